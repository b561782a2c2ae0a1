//! Exactly labelled positions read from a file, as a training source beside self-play and the
//! database's labels. The format is defined here: JSON lines, one position outside the endgame
//! database a line, every legal move solved (`{"i", "position", "source", "ply", "board_seeds",
//! "value", "moves": {pit: value}, "seconds"}`); `python -m kalaha.labels` writes such a file,
//! and `checkpoints/labels/labels-6x4-seed1.jsonl` is the one the product ships.
//!
//! Each line carries an index `i`; the lines whose index is a multiple of the hold-out stride are
//! never trained on, so the same file gives a held-out set that training cannot have seen.

use std::collections::HashSet;
use std::path::Path;

use anyhow::{Context, bail};
use rand::RngExt;
use serde::Deserialize;

use super::replay::Replay;
use crate::rules::{Move, Position, Rules};
use crate::solver::ExactMoves;

/// One line of a labels file (any other key is refused, naming it and the line).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)] // The writer's notes, read so that only known keys pass.
struct Line {
    /// The position's index in its drawing stream (the hold-out split is by it).
    i: u64,
    /// The position in the project's notation.
    position: String,
    /// Final margin under perfect play for the player to move.
    value: i32,
    /// Pit number (1-based, the mover's) → final margin for the mover if it is played.
    moves: std::collections::BTreeMap<String, i32>,
    /// Where the position was drawn (the writer's note).
    #[serde(default)]
    source: Option<String>,
    /// The ply it was drawn at (the writer's note).
    #[serde(default)]
    ply: Option<u32>,
    /// Seeds on the board (the writer's note).
    #[serde(default)]
    board_seeds: Option<u32>,
    /// Seconds the solver took (the writer's note).
    #[serde(default)]
    seconds: Option<f64>,
}

/// The labelled positions of a file, split into those trained on and those held out.
pub struct LabelFile {
    /// Positions trained on, with every legal move's exact value.
    train: Vec<(Position, ExactMoves)>,
    /// Positions held out (index a multiple of the stride).
    held_out: Vec<(Position, ExactMoves)>,
    /// Lines left out because their position is in `exclude` (a judge set).
    excluded: usize,
}

impl LabelFile {
    /// Reads `path` under `rules`; lines whose index is a multiple of `holdout` (0: none) are held
    /// out, and lines whose position (in notation) is in `exclude` are left out. A line that does
    /// not parse, a position of other rules, or move values that are not the position's legal
    /// moves with `value` their best, is an error naming the line.
    pub fn load(
        path: &Path,
        rules: &Rules,
        holdout: u64,
        exclude: &HashSet<String>,
    ) -> anyhow::Result<LabelFile> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read the labels file {}", path.display()))?;
        let (mut train, mut held_out, mut seen) = (Vec::new(), Vec::new(), HashSet::new());
        let mut excluded = 0;
        for (n, raw) in text.lines().enumerate() {
            if raw.trim().is_empty() {
                continue;
            }
            let at = || format!("{}, line {}", path.display(), n + 1);
            let line: Line = serde_json::from_str(raw).with_context(at)?;
            let (pos, exact) = parse(&line, rules).with_context(at)?;
            if !seen.insert(line.i) {
                continue; // a resumed labeller may repeat an index: the first line wins
            }
            if exclude.contains(&pos.to_string()) {
                excluded += 1;
                continue;
            }
            if holdout > 0 && line.i.is_multiple_of(holdout) {
                held_out.push((pos, exact));
            } else {
                train.push((pos, exact));
            }
        }
        if train.is_empty() {
            bail!(
                "the labels file {} has no position to train on (hold-out stride {holdout})",
                path.display()
            );
        }
        Ok(LabelFile {
            train,
            held_out,
            excluded,
        })
    }

    /// Positions trained on.
    pub fn train(&self) -> &[(Position, ExactMoves)] {
        &self.train
    }

    /// Positions held out.
    pub fn held_out(&self) -> &[(Position, ExactMoves)] {
        &self.held_out
    }

    /// Lines left out because their position was excluded.
    pub fn excluded(&self) -> usize {
        self.excluded
    }

    /// `n` training positions drawn uniformly (with replacement, from `seed`) into `replay`, their
    /// policy targets at `temperature` as the database's labelled positions have them.
    pub fn generate(&self, n: usize, replay: &mut Replay, seed: u64, temperature: f32) -> usize {
        let mut rng = crate::env::rng::stream(seed, 0);
        for _ in 0..n {
            let (pos, exact) = &self.train[rng.random_range(0..self.train.len())];
            let total = pos.rules().total_seeds();
            replay.push(super::labelled::sample(*pos, exact, total, temperature));
        }
        n
    }
}

/// A line's position and move values, checked against the position's legal moves.
fn parse(line: &Line, rules: &Rules) -> anyhow::Result<(Position, ExactMoves)> {
    let pos = Position::parse(&line.position, rules)
        .with_context(|| format!("position '{}'", line.position))?;
    if pos.is_over() {
        bail!("position '{}' is over", line.position);
    }
    let legal = pos.legal_moves();
    let mut moves = Vec::with_capacity(line.moves.len());
    for (pit, &v) in &line.moves {
        let mv = match pit.parse::<u8>() {
            Ok(p) if (1..=rules.pits() as u8).contains(&p) => Move::Pit(p),
            _ => bail!("move '{pit}' is not a pit number of these rules"),
        };
        if !legal.contains(mv) {
            bail!("move {pit} is not legal in '{}'", line.position);
        }
        moves.push((mv, v));
    }
    if moves.len() != legal.len() {
        bail!(
            "{} legal moves in '{}' but {} move values",
            legal.len(),
            line.position,
            moves.len()
        );
    }
    let best = moves.iter().map(|m| m.1).max();
    if best != Some(line.value) {
        bail!(
            "value {} is not the best move's value ({best:?})",
            line.value
        );
    }
    moves.sort_by_key(|m| m.0.action(rules.pits()));
    Ok((
        pos,
        ExactMoves {
            value: line.value,
            moves,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::{Solver, SolverConfig};

    /// A file of `n` Kalah(4,3) positions solved exactly, in label.py's format.
    fn write(dir: &Path, n: u64) -> (Rules, std::path::PathBuf) {
        let rules = Rules::new(4, 3).unwrap();
        let solver = Solver::new(&rules, &SolverConfig::default()).unwrap();
        let mut rng = crate::env::rng::stream(3, 0);
        let mut out = String::new();
        let mut i = 0;
        while i < n {
            let Some(pos) = crate::eval::judge::game_position(&rules, &mut rng, 12) else {
                continue;
            };
            let a = solver.analyse_within(&pos, None, None);
            let moves: Vec<String> = a
                .moves
                .iter()
                .map(|m| format!("\"{}\": {}", m.mv.action(4) + 1, m.value().unwrap()))
                .collect();
            out.push_str(&format!(
                "{{\"i\": {i}, \"position\": \"{pos}\", \"value\": {}, \"moves\": {{{}}}}}\n",
                a.value().unwrap(),
                moves.join(", ")
            ));
            i += 1;
        }
        let path = dir.join("labels.jsonl");
        std::fs::write(&path, out).unwrap();
        (rules, path)
    }

    #[test]
    fn an_unknown_key_is_refused_naming_it_and_the_line() {
        let dir = std::env::temp_dir().join(format!("kalaha-label-keys-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (rules, path) = write(&dir, 2);
        let text = std::fs::read_to_string(&path).unwrap();
        // The writer's notes pass.
        let noted = text.replacen(
            "{\"i\"",
            "{\"source\": \"minimax\", \"ply\": 3, \"board_seeds\": 20, \"seconds\": 0.5, \"i\"",
            1,
        );
        std::fs::write(&path, noted).unwrap();
        LabelFile::load(&path, &rules, 0, &HashSet::new()).unwrap();
        let typo = text.replacen("\"value\"", "\"valeu\": 0, \"value\"", 2);
        std::fs::write(&path, typo).unwrap();
        let e = format!(
            "{:#}",
            LabelFile::load(&path, &rules, 0, &HashSet::new())
                .err()
                .expect("a misspelt key is refused")
        );
        assert!(e.contains("valeu") && e.contains("line 1"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_file_splits_by_index_and_its_samples_carry_the_solvers_values() {
        let dir = std::env::temp_dir().join(format!("kalaha-label-file-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (rules, path) = write(&dir, 50);
        let f = LabelFile::load(&path, &rules, 5, &HashSet::new()).unwrap();
        assert_eq!((f.train().len(), f.held_out().len()), (40, 10));
        let first = f.train()[0].0.to_string();
        let g = LabelFile::load(&path, &rules, 5, &HashSet::from([first.clone()])).unwrap();
        assert_eq!(
            g.excluded(),
            f.train()
                .iter()
                .filter(|t| t.0.to_string() == first)
                .count()
        );
        assert!(g.train().iter().all(|t| t.0.to_string() != first));
        let mut replay = Replay::new(100);
        f.generate(100, &mut replay, 1, 0.0);
        for s in replay.iter() {
            let (_, e) = f
                .train()
                .iter()
                .find(|t| t.0 == s.pos)
                .expect("held-out positions are never drawn");
            for &(mv, v) in &e.moves {
                assert_eq!(s.lost[mv.action(4)], (e.value - v) as f32);
            }
            assert!(s.exact);
        }
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn a_damaged_file_is_refused_naming_the_line() {
        let dir = std::env::temp_dir().join(format!("kalaha-label-bad-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (rules, path) = write(&dir, 3);
        let good = std::fs::read_to_string(&path).unwrap();
        let first = good.lines().next().unwrap().to_string();
        let edit = |f: &dyn Fn(&mut serde_json::Value)| {
            let mut v: serde_json::Value = serde_json::from_str(&first).unwrap();
            f(&mut v);
            v.to_string()
        };
        let cases = [
            ("{not json".to_string(), "line 2"),
            (
                edit(&|v| v["value"] = (v["value"].as_i64().unwrap() + 1).into()),
                "not the best move",
            ),
            (edit(&|v| v["moves"]["9"] = 0.into()), "not a pit number"),
            (edit(&|v| v["position"] = "1,2/3".into()), "position"),
        ];
        for (bad, says) in cases {
            std::fs::write(&path, format!("{first}\n{bad}\n")).unwrap();
            let e = format!(
                "{:#}",
                LabelFile::load(&path, &rules, 0, &HashSet::new())
                    .err()
                    .unwrap()
            );
            assert!(e.contains(says) && e.contains("line 2"), "{e}");
        }
        let other = Rules::new(6, 4).unwrap();
        std::fs::write(&path, &good).unwrap();
        assert!(
            LabelFile::load(&path, &other, 0, &HashSet::new()).is_err(),
            "other rules refused"
        );
        std::fs::remove_dir_all(&dir).ok();
    }

    /// The committed labels file, loaded as training loads it, leaves out every position of the
    /// committed judge set: the judge set stays unseen.
    #[test]
    fn the_committed_labels_leave_the_judge_sets_positions_out() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let rules = Rules::new(6, 4).unwrap();
        let judged: HashSet<String> =
            crate::eval::judge::cached_positions(&rules, &root.join("checkpoints/judge"))
                .into_iter()
                .collect();
        assert!(judged.len() > 1000, "the committed judge set is read");
        let path = root.join("checkpoints/labels/labels-6x4-seed1.jsonl");
        let f = LabelFile::load(&path, &rules, 5, &judged).unwrap();
        eprintln!(
            "{} trained on, {} held out, {} left out",
            f.train().len(),
            f.held_out().len(),
            f.excluded()
        );
        assert!(
            f.excluded() > 0,
            "some labelled positions are judge-set positions"
        );
        for (pos, _) in f.train().iter().chain(f.held_out()) {
            assert!(
                !judged.contains(&pos.to_string()),
                "{pos} is in the judge set"
            );
        }
    }
}
