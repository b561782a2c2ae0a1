//! Judging the network against perfect play: a fixed set of positions drawn from several sources,
//! analysed once per rule set by the exact solver and cached as JSON, then scored on the share of
//! the network's moves that keep the exact value (with its standard error), by game phase and
//! inside and outside the endgame database, and on the mean seeds lost per move.
//!
//! Sources, in equal thirds: `mixed` (4 to 40 plies of random and greedy moves mixed), `minimax`
//! (games of `minimax:4` against itself after 2 to 6 random moves, 4 to 40 plies in) and `endgame`
//! (mixed games played on until at most [`DB_REPORT_SEEDS`] seeds are left on the board, then 0 to
//! 6 plies more). Self-play never trains on these positions: they come from their own seed and
//! their own players.

use std::io::Write;
use std::path::{Path, PathBuf};

use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use serde::{Deserialize, Serialize};

use crate::bots::{Bot, Minimax, greedy_or_random, random_move};
use crate::rules::{Move, NotationError, Position, Rules, RulesSpec};
use crate::search::{Evaluator, greedy_actions};
use crate::solver::{Solver, SolverConfig, swap_answer_agrees};

/// Positions with at most this many seeds on the board count as "inside the database" in
/// reports, whatever database a run trains with (18 is the Kalah(6,4) solver's own).
pub const DB_REPORT_SEEDS: u32 = 18;

/// Most seeds on the board of a judged position drawn from a game of `rules`: any position in
/// games of up to Kalah(6,4)'s 48 seeds, at most 40 in bigger ones (the solver cannot prove the
/// Kalah(6,6) start, but proves positions with 40 seeds left in seconds).
pub fn deep_enough(rules: &Rules) -> u32 {
    let total = rules.total_seeds();
    if total > 48 { 40 } else { total }
}

/// The seed every run draws its judge set with, so that runs are judged on the same positions.
pub const JUDGE_SEED: u64 = 2026;

/// Where a judged position came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    /// Random and greedy moves mixed.
    Mixed,
    /// `minimax:4` against itself after a few random moves.
    Minimax,
    /// Mixed games played into the endgame.
    Endgame,
    /// Under the pie rule, every decision of the opening: the opener's moves of its first turn
    /// and each position where the answer `swap` is open (scored apart, see [`PieScore`]).
    Pie,
}

/// A judged position: its notation, where it came from, and the exact value of every legal move
/// (action index order).
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Judged {
    position: String,
    source: Source,
    /// Plies played from the start to reach it.
    ply: u32,
    value: i32,
    /// `(action, value)` for every legal move.
    moves: Vec<(usize, i32)>,
}

#[derive(Serialize, Deserialize)]
struct JudgeFile {
    format: String,
    rules: RulesSpec,
    seed: u64,
    positions: Vec<Judged>,
    /// Positions drawn but not proved within the time limit (left out of `positions`).
    #[serde(default)]
    unsolved: usize,
    /// The solver's limit per position, in seconds, if it had one.
    #[serde(default)]
    time_limit: Option<f64>,
    /// Seconds the solver took over the whole set.
    #[serde(default)]
    seconds: f64,
}

const FORMAT: &str = "kalaha-judge-2";

/// An optimal-move rate over some of the judged positions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Rate {
    /// Positions counted.
    pub positions: usize,
    /// Share of them where the network's move is optimal.
    pub optimal_rate: f64,
    /// Standard error of that share, `sqrt(p (1 - p) / n)`.
    pub std_err: f64,
}

impl Rate {
    fn of(optimal: usize, n: usize) -> Rate {
        let p = optimal as f64 / n.max(1) as f64;
        Rate {
            positions: n,
            optimal_rate: p,
            std_err: (p * (1.0 - p) / n.max(1) as f64).sqrt(),
        }
    }
}

/// The network's score against the solver.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct JudgeScore {
    /// Positions judged.
    pub positions: usize,
    /// Positions drawn but left out: the solver did not prove them within its time limit.
    #[serde(default)]
    pub unsolved: usize,
    /// Share of the network's moves that are optimal.
    pub optimal_rate: f64,
    /// Standard error of `optimal_rate`.
    #[serde(default)]
    pub std_err: f64,
    /// Mean seeds the network's move gives up against the best move.
    pub mean_loss: f64,
    /// Positions with at most [`DB_REPORT_SEEDS`] seeds on the board.
    #[serde(default)]
    pub inside_db: Rate,
    /// Positions with more seeds on the board.
    #[serde(default)]
    pub outside_db: Rate,
    /// By phase: `opening` (plies 0-11), `middle` (12-24), `late` (25 on).
    #[serde(default)]
    pub phases: Vec<(String, Rate)>,
    /// By where the positions came from: `mixed`, `minimax`, `endgame`.
    #[serde(default)]
    pub sources: Vec<(String, Rate)>,
    /// Under the pie rule: the opening decisions (not counted in the figures above).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pie: Option<PieScore>,
}

/// The network's pie-rule decisions against the solver's, over every position of the opening
/// turn and every swap decision (not sampled: all of them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PieScore {
    /// The opener's moves in its first turn, knowing it may be swapped: share optimal.
    pub openings: Rate,
    /// The answer: share of positions where the network swaps exactly when swapping is optimal
    /// (either choice agrees where both are optimal).
    pub swaps: Rate,
}

/// A judged position where the network's move is not optimal.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Miss {
    /// The position's notation.
    pub position: String,
    /// Where it came from.
    pub source: Source,
    /// Plies from the start.
    pub ply: u32,
    /// Seeds on the board.
    pub board_seeds: u32,
    /// Its exact value (final margin for the player to move).
    pub value: i32,
    /// The network's action and its exact value.
    pub chosen: (usize, i32),
    /// Every legal action's exact value.
    pub moves: Vec<(usize, i32)>,
}

/// Two networks compared position by position on one judge set (pie decisions left out).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Paired {
    /// Positions where the first network's move is optimal and the second's is not.
    pub only_first: usize,
    /// Positions where the second network's move is optimal and the first's is not.
    pub only_second: usize,
    /// Two-sided exact sign test over those positions of "both networks are as good".
    pub p_value: f64,
}

impl Paired {
    /// The paired comparison of two players' per-position correctness, position by position.
    pub fn of(
        first: impl IntoIterator<Item = bool>,
        second: impl IntoIterator<Item = bool>,
    ) -> Paired {
        let (mut only_first, mut only_second) = (0, 0);
        for (a, b) in first.into_iter().zip(second) {
            match (a, b) {
                (true, false) => only_first += 1,
                (false, true) => only_second += 1,
                _ => {}
            }
        }
        Paired {
            only_first,
            only_second,
            p_value: sign_test(only_first, only_first + only_second),
        }
    }
}

/// Two-sided exact sign test: the chance of a split at least as uneven as `k` of `n` when each
/// side is equally likely.
pub fn sign_test(k: usize, n: usize) -> f64 {
    if n == 0 {
        return 1.0;
    }
    let low = k.min(n - k);
    // ln C(n, i) - n ln 2, summed over i = 0..=low.
    let mut ln_c = 0.0f64;
    let mut tail = 0.0f64;
    for i in 0..=low {
        if i > 0 {
            ln_c += ((n - i + 1) as f64).ln() - (i as f64).ln();
        }
        tail += (ln_c - n as f64 * std::f64::consts::LN_2).exp();
    }
    (2.0 * tail).min(1.0)
}

/// The exact value of action `a` in judged position `j`. Every legal move is among the moves
/// (the public scorers refuse other actions first, [`JudgeSet::check_picks`]); anything else would
/// count as the worst move, never as an optimal one.
fn chosen_value(j: &Judged, a: usize) -> i32 {
    j.moves
        .iter()
        .find(|m| m.0 == a)
        .map_or(i32::MIN / 2, |m| m.1)
}

/// The start of the cache file names of `rules`' judge sets.
fn cache_prefix(rules: &Rules) -> String {
    let spec = rules.spec();
    format!(
        "judge2-{}x{}-{:?}-{:?}-{:?}-pie{}",
        spec.pits, spec.seeds, spec.capture, spec.leftover, spec.end, spec.pie
    )
    .to_lowercase()
}

/// The judge-set files of `rules` in `cache_dir`: each one's path and its name's settings part
/// (what follows the rules' prefix, before `.json`).
fn cache_files(rules: &Rules, cache_dir: &Path) -> Vec<(PathBuf, String)> {
    let prefix = format!("{}-", cache_prefix(rules));
    let Ok(dir) = std::fs::read_dir(cache_dir) else {
        return Vec::new();
    };
    dir.flatten()
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let rest = name
                .strip_prefix(&prefix)?
                .strip_suffix(".json")?
                .to_string();
            Some((e.path(), rest))
        })
        .collect()
}

/// The settings (positions, solver time limit) of the judge set of `rules` already solved in
/// `cache_dir` at [`JUDGE_SEED`], if there is one (the most positions if several).
pub fn cached_settings(rules: &Rules, cache_dir: &Path) -> Option<(usize, Option<Duration>)> {
    let mut found: Vec<(usize, Option<Duration>)> = cache_files(rules, cache_dir)
        .into_iter()
        .filter_map(|(_, rest)| {
            let mut parts = rest.split('-');
            let n: usize = parts.next()?.parse().ok()?;
            (parts.next()? == JUDGE_SEED.to_string()).then_some(())?;
            let limit = match parts.next() {
                None => None,
                Some(t) => Some(Duration::from_secs_f64(t.strip_prefix('t')?.parse().ok()?)),
            };
            Some((n, limit))
        })
        .collect();
    found.sort_by_key(|f| f.0);
    found.pop()
}

/// The positions of every judge set of `rules` solved in `cache_dir` (any size or time limit), in
/// notation: what a training source must leave out so that the judge set stays unseen.
pub fn cached_positions(rules: &Rules, cache_dir: &Path) -> Vec<String> {
    cache_files(rules, cache_dir)
        .into_iter()
        .filter_map(|(path, _)| std::fs::read_to_string(path).ok())
        .filter_map(|t| serde_json::from_str::<JudgeFile>(&t).ok())
        .flat_map(|f| f.positions.into_iter().map(|j| j.position))
        .collect()
}

/// An error naming the first of `actions` (one per position, in order) that is not a legal move
/// of its position, or a count that is not one per position: what every scorer of chosen moves
/// checks first (judge sets, held-out sets).
pub fn check_actions<'a>(
    positions: impl ExactSizeIterator<Item = &'a Position>,
    actions: &[usize],
) -> anyhow::Result<()> {
    if actions.len() != positions.len() {
        bail!(
            "{} actions for the {} positions of the set",
            actions.len(),
            positions.len()
        );
    }
    for (i, (pos, &a)) in positions.zip(actions).enumerate() {
        let pits = pos.rules().pits();
        if !pos.legal_moves().iter().any(|m| m.action(pits) == a) {
            bail!("position {i} ({pos}): action {a} is not a legal move");
        }
    }
    Ok(())
}

/// A fixed, cached set of solved positions.
pub struct JudgeSet {
    positions: Vec<(Position, Judged)>,
    unsolved: usize,
}

/// A game of random and greedy moves mixed (the share of greedy moves drawn per game), played
/// until `stop(pos, ply)` or the end; the position and its ply if it is usable (not over, two legal
/// moves at least).
fn mixed_game(
    rules: &Rules,
    rng: &mut SmallRng,
    mut stop: impl FnMut(&Position, u32) -> bool,
) -> Option<(Position, u32)> {
    let mut pos = Position::start(rules);
    let greedy_share: f64 = rng.random();
    let mut ply = 0;
    while !pos.is_over() && !stop(&pos, ply) {
        let mv = greedy_or_random(&pos, greedy_share, rng);
        pos.play(mv).expect("bots play legal moves");
        ply += 1;
    }
    (!pos.is_over() && pos.legal_moves().len() >= 2).then_some((pos, ply))
}

/// One position from `source`.
fn draw_one(rules: &Rules, source: Source, rng: &mut SmallRng) -> Option<(Position, u32)> {
    match source {
        Source::Mixed => {
            let (target, cap) = (rng.random_range(4..40), deep_enough(rules));
            mixed_game(rules, rng, |pos, ply| {
                ply >= target && pos.board_seeds() <= cap
            })
        }
        Source::Minimax => {
            let (random, target) = (rng.random_range(2..=6), rng.random_range(4..40));
            let mut pos = Position::start(rules);
            let mut bot = Minimax::new(4);
            let (mut ply, cap) = (0, deep_enough(rules));
            while !pos.is_over() && (ply < target || pos.board_seeds() > cap) {
                let mv = if ply < random {
                    random_move(&pos, rng)
                } else {
                    bot.choose(&pos, rng)
                };
                pos.play(mv).expect("bots play legal moves");
                ply += 1;
            }
            (!pos.is_over() && pos.legal_moves().len() >= 2).then_some((pos, ply))
        }
        // The pie rule's positions are enumerated, not drawn (see `pie_positions`).
        Source::Pie => None,
        Source::Endgame => {
            let extra = rng.random_range(0..=6);
            let mut inside = None;
            mixed_game(rules, rng, |pos, ply| {
                if inside.is_none() && pos.board_seeds() <= DB_REPORT_SEEDS {
                    inside = Some(ply);
                }
                inside.is_some_and(|k| ply >= k + extra)
            })
        }
    }
}

/// One position from a source drawn at random among the three (mixed, minimax, endgame), as the
/// judge set draws them: the held-out sets' judge-like draw.
pub(crate) fn draw_any(rules: &Rules, rng: &mut SmallRng) -> Option<Position> {
    let sources = [Source::Mixed, Source::Minimax, Source::Endgame];
    let source = sources[rng.random_range(0..3)];
    draw_one(rules, source, rng).map(|(p, _)| p)
}

/// Under the pie rule, every decision of the opening with its ply: the opener's positions in its
/// first turn and each position where `swap` is open; none without the pie rule.
pub fn pie_positions(rules: &Rules) -> Vec<(Position, u32)> {
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut stack = vec![(Position::start(rules), 0)];
    while let Some((p, ply)) = stack.pop() {
        let opening = crate::env::obs::pie_to_come(&p);
        if !(opening || p.swap_allowed()) || !seen.insert(p.to_string()) {
            continue;
        }
        out.push((p, ply));
        if opening {
            for mv in p.legal_moves().iter() {
                let (child, _) = p.after(mv).expect("legal moves play");
                stack.push((child, ply + 1));
            }
        }
    }
    out.sort_by_key(|(p, ply)| (*ply, p.to_string()));
    out
}

/// `n` positions, a third from each source, then (pie rule) every decision of the opening.
fn draw_set(rules: &Rules, n: usize, seed: u64) -> Vec<(Position, Source, u32)> {
    let mut drawn = draw_positions(rules, n, seed);
    drawn.extend(
        pie_positions(rules)
            .into_iter()
            .map(|(p, ply)| (p, Source::Pie, ply)),
    );
    drawn
}

/// `n` positions, a third from each source.
fn draw_positions(rules: &Rules, n: usize, seed: u64) -> Vec<(Position, Source, u32)> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let sources = [Source::Mixed, Source::Minimax, Source::Endgame];
    let mut out = Vec::with_capacity(n);
    let mut k = 0;
    while out.len() < n {
        let source = sources[k % 3];
        if let Some((pos, ply)) = draw_one(rules, source, &mut rng) {
            out.push((pos, source, ply));
            k += 1;
        }
    }
    out
}

fn phase(ply: u32) -> &'static str {
    match ply {
        0..=11 => "opening",
        12..=24 => "middle",
        _ => "late",
    }
}

/// The position of a cached judged entry. Caches written before the notation marked South's
/// opening turn (`... s opening`) hold the pie openings after an extra turn without the marker;
/// every pie-set position that is not a swap answer is in the opening turn.
fn judged_position(j: &Judged, rules: &Rules) -> Result<Position, NotationError> {
    let pos = Position::parse(&j.position, rules)?;
    if j.source == Source::Pie && !pos.swap_allowed() && !pos.in_opening_turn() {
        return Position::parse(&format!("{} opening", j.position), rules);
    }
    Ok(pos)
}

impl JudgeSet {
    /// Loads the set for `rules` from `cache_dir`, or draws and solves it (and caches it); with a
    /// `limit`, each position gets at most that long and those not proved are left out (and
    /// counted).
    ///
    /// The cache file's name holds every setting (rules, `n`, `seed`, `limit`), so a set of other
    /// settings is another file and is left alone. A file of this name that cannot be read or
    /// parsed, or whose contents are not this set, is an error naming it: solving the set again
    /// takes minutes, so that is done only once the file is deleted.
    pub fn load_or_build(
        rules: &Rules,
        n: usize,
        seed: u64,
        cache_dir: &Path,
        limit: Option<Duration>,
    ) -> anyhow::Result<JudgeSet> {
        let spec = rules.spec();
        let timed = limit.map_or(String::new(), |l| format!("-t{}", l.as_secs_f64()));
        let name = format!("{}-{n}-{seed}{timed}.json", cache_prefix(rules));
        let path: PathBuf = cache_dir.join(name);
        let damaged = |why: String| {
            anyhow::anyhow!(
                "judge cache {} {why}; delete it to solve the set again (minutes)",
                path.display()
            )
        };
        match std::fs::read_to_string(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(damaged(format!("cannot be read ({e})"))),
            Ok(text) => {
                let f = serde_json::from_str::<JudgeFile>(&text)
                    .map_err(|e| damaged(format!("is damaged ({e})")))?;
                let want = n + pie_positions(rules).len();
                let mismatch = if f.format != FORMAT {
                    Some(format!("is in format '{}', not '{FORMAT}'", f.format))
                } else if f.rules != spec {
                    Some(format!("holds the set of other rules ({:?})", f.rules))
                } else if f.seed != seed {
                    Some(format!("holds the set of seed {}, not {seed}", f.seed))
                } else if f.positions.len() + f.unsolved != want {
                    Some(format!(
                        "holds {} positions ({} solved, {} unsolved), not {want}",
                        f.positions.len() + f.unsolved,
                        f.positions.len(),
                        f.unsolved
                    ))
                } else {
                    None
                };
                if let Some(why) = mismatch {
                    return Err(damaged(why));
                }
                let positions = f
                    .positions
                    .into_iter()
                    .map(|j| Ok((judged_position(&j, rules)?, j)))
                    .collect::<anyhow::Result<Vec<_>>>()
                    .map_err(|e| damaged(format!("holds a position that is not one ({e})")))?;
                return Ok(JudgeSet {
                    positions,
                    unsolved: f.unsolved,
                });
            }
        }
        let drawn = draw_set(rules, n, seed);
        let started = Instant::now();
        let solver = Solver::new(rules, &SolverConfig::default())?;
        let just: Vec<Position> = drawn.iter().map(|d| d.0).collect();
        let analyses = solver.judge_within(&just, limit);
        let seconds = started.elapsed().as_secs_f64();
        let pits = rules.pits();
        let mut positions = Vec::with_capacity(n);
        let mut unsolved = 0;
        for ((p, source, ply), a) in drawn.into_iter().zip(analyses) {
            let moves: Option<Vec<(usize, i32)>> = a
                .moves
                .iter()
                .map(|m| Some((m.mv.action(pits), m.value()?)))
                .collect();
            let (Some(value), Some(moves)) = (a.value(), moves) else {
                if limit.is_none() {
                    bail!("the solver left {p} unsolved without a time limit");
                }
                unsolved += 1;
                continue;
            };
            positions.push((
                p,
                Judged {
                    position: p.to_string(),
                    source,
                    ply,
                    value,
                    moves,
                },
            ));
        }
        let file = JudgeFile {
            format: FORMAT.to_string(),
            rules: spec,
            seed,
            positions: positions.iter().map(|p| p.1.clone()).collect(),
            unsolved,
            time_limit: limit.map(|l| l.as_secs_f64()),
            seconds,
        };
        let text = serde_json::to_string(&file)?;
        crate::files::write_atomic(&path, |w| w.write_all(text.as_bytes()))
            .with_context(|| format!("cannot write {}", path.display()))?;
        Ok(JudgeSet {
            positions,
            unsolved,
        })
    }

    /// Positions in the set.
    pub fn len(&self) -> usize {
        self.positions.len()
    }

    /// The set is empty.
    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }

    /// The set's positions, in set order.
    pub fn positions(&self) -> Vec<Position> {
        self.positions.iter().map(|p| p.0).collect()
    }

    /// Positions drawn but left out because the solver could not prove them in time.
    pub fn unsolved(&self) -> usize {
        self.unsolved
    }

    /// An error naming the first of `picks` (one action per position, in set order) that is not a
    /// legal move of its position, or a count that is not one per position.
    pub fn check_picks(&self, picks: &[usize]) -> anyhow::Result<()> {
        check_actions(self.positions.iter().map(|p| &p.0), picks)
    }

    /// The network's best move (by its policy) in every position, in set order.
    pub fn picks(&self, evaluator: &mut dyn Evaluator) -> Vec<usize> {
        self.picks_with(|positions| greedy_actions(positions, evaluator))
    }

    /// The action `choose` picks in every position (given all of them at once, in set order).
    pub fn picks_with(&self, choose: impl FnOnce(&[Position]) -> Vec<usize>) -> Vec<usize> {
        let positions: Vec<Position> = self.positions.iter().map(|p| p.0).collect();
        if positions.is_empty() {
            return Vec::new();
        }
        choose(&positions)
    }

    /// The positions (outside the pie openings) where `picks` (one legal action per position,
    /// e.g. from [`JudgeSet::picks`]) is not optimal; an error for picks that are not.
    pub fn misses(&self, picks: &[usize]) -> anyhow::Result<Vec<Miss>> {
        self.check_picks(picks)?;
        Ok(self
            .positions
            .iter()
            .zip(picks)
            .filter(|((_, j), _)| j.source != Source::Pie)
            .filter_map(|((pos, j), &a)| {
                let v = chosen_value(j, a);
                (v < j.value).then(|| Miss {
                    position: j.position.clone(),
                    source: j.source,
                    ply: j.ply,
                    board_seeds: pos.board_seeds(),
                    value: j.value,
                    chosen: (a, v),
                    moves: j.moves.clone(),
                })
            })
            .collect())
    }

    /// Compares two networks' `picks` (from [`JudgeSet::picks`]) position by position; an error
    /// for picks that are not one legal action per position.
    pub fn compare(&self, first: &[usize], second: &[usize]) -> anyhow::Result<Paired> {
        self.check_picks(first)?;
        self.check_picks(second)?;
        // Pie decisions are scored apart (see `PieScore`).
        let right = |picks: &[usize]| {
            self.positions
                .iter()
                .zip(picks)
                .filter(|((_, j), _)| j.source != Source::Pie)
                .map(|((_, j), &a)| chosen_value(j, a) == j.value)
                .collect::<Vec<bool>>()
        };
        Ok(Paired::of(right(first), right(second)))
    }

    /// Scores the network's best move (by its policy) in every position.
    pub fn score(&self, evaluator: &mut dyn Evaluator) -> JudgeScore {
        let picks = self.picks(evaluator);
        self.tally(&picks)
    }

    /// Scores `picks`, one legal action per position in set order (e.g. from
    /// [`JudgeSet::picks`]); an error naming the first that is not a legal move.
    pub fn score_picks(&self, actions: &[usize]) -> anyhow::Result<JudgeScore> {
        self.check_picks(actions)?;
        Ok(self.tally(actions))
    }

    /// The score of legal `actions`.
    fn tally(&self, actions: &[usize]) -> JudgeScore {
        if self.positions.is_empty() {
            return JudgeScore::default();
        }
        let mut optimal = 0usize;
        let mut lost = 0i64;
        let mut db = [(0usize, 0usize); 2];
        let names = ["opening", "middle", "late"];
        let mut by_phase = [(0usize, 0usize); 3];
        let sources = [
            (Source::Mixed, "mixed"),
            (Source::Minimax, "minimax"),
            (Source::Endgame, "endgame"),
        ];
        let mut by_source = [(0usize, 0usize); 3];
        let (mut openings, mut swaps) = ((0usize, 0usize), (0usize, 0usize));
        let mut n = 0;
        for ((pos, j), &a) in self.positions.iter().zip(actions) {
            if j.source == Source::Pie {
                let swap = Move::Swap.action(pos.rules().pits());
                if pos.swap_allowed() {
                    let moves = j.moves.iter().map(|&(x, v)| (x == swap, Some(v)));
                    swaps.0 += swap_answer_agrees(a == swap, j.value, moves) as usize;
                    swaps.1 += 1;
                } else {
                    openings.0 += j.moves.iter().any(|&(x, v)| x == a && v == j.value) as usize;
                    openings.1 += 1;
                }
                continue;
            }
            n += 1;
            let v = chosen_value(j, a);
            let loss = (j.value - v).max(0);
            let ok = (loss == 0) as usize;
            optimal += ok;
            lost += loss as i64;
            let d = &mut db[(pos.board_seeds() <= DB_REPORT_SEEDS) as usize];
            d.0 += ok;
            d.1 += 1;
            let k = names
                .iter()
                .position(|&n| n == phase(j.ply))
                .expect("a known phase");
            by_phase[k].0 += ok;
            by_phase[k].1 += 1;
            if let Some(k) = sources.iter().position(|s| s.0 == j.source) {
                by_source[k].0 += ok;
                by_source[k].1 += 1;
            }
        }
        let all = Rate::of(optimal, n);
        JudgeScore {
            positions: n,
            unsolved: self.unsolved,
            optimal_rate: all.optimal_rate,
            std_err: all.std_err,
            mean_loss: lost as f64 / n.max(1) as f64,
            inside_db: Rate::of(db[1].0, db[1].1),
            outside_db: Rate::of(db[0].0, db[0].1),
            phases: names
                .iter()
                .zip(by_phase)
                .map(|(name, (o, c))| (name.to_string(), Rate::of(o, c)))
                .collect(),
            sources: sources
                .iter()
                .zip(by_source)
                .map(|((_, name), (o, c))| (name.to_string(), Rate::of(o, c)))
                .collect(),
            pie: (openings.1 + swaps.1 > 0).then(|| PieScore {
                openings: Rate::of(openings.0, openings.1),
                swaps: Rate::of(swaps.0, swaps.1),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_from_every_source_and_the_endgame_ones_are_inside_the_database() {
        let rules = Rules::kalah64();
        let drawn = draw_positions(&rules, 60, 3);
        assert_eq!(drawn.len(), 60);
        for s in [Source::Mixed, Source::Minimax, Source::Endgame] {
            assert_eq!(drawn.iter().filter(|d| d.1 == s).count(), 20);
        }
        for (p, s, _) in &drawn {
            assert!(!p.is_over() && p.legal_moves().len() >= 2);
            if *s == Source::Endgame {
                assert!(p.board_seeds() <= DB_REPORT_SEEDS, "{p}");
            }
        }
    }

    #[test]
    fn six_seed_sets_are_drawn_deep_enough_to_prove() {
        let rules = crate::rules::Preset::Swedish.rules();
        assert_eq!(deep_enough(&rules), 40);
        assert_eq!(deep_enough(&Rules::kalah64()), 48);
        for (p, _, _) in draw_positions(&rules, 30, 5) {
            assert!(p.board_seeds() <= 40, "{p}");
        }
    }

    #[test]
    fn the_pie_set_holds_every_opening_decision_and_every_swap_answer() {
        assert!(pie_positions(&Rules::kalah64()).is_empty());
        let rules = Rules::kalah64().with_pie(true);
        let all = pie_positions(&rules);
        let start = Position::start(&rules);
        assert_eq!((all[0].0.to_string(), all[0].1), (start.to_string(), 0));
        let swaps = all.iter().filter(|(p, _)| p.swap_allowed()).count();
        // Every first move of South that ends its turn is a swap point (pit 3 of 4 seeds ends in
        // the store and goes on), and the opener's turn goes on only through extra turns.
        assert!(swaps >= 5, "{swaps}");
        for (p, ply) in &all {
            assert!(p.swap_allowed() || crate::env::obs::pie_to_come(p), "{p}");
            assert_eq!(
                p.to_move() == start.to_move(),
                !p.swap_allowed(),
                "{p} {ply}"
            );
        }
        // Drawn sets carry them after the sampled positions.
        let set = draw_set(&rules, 9, 1);
        assert_eq!(set.len(), 9 + all.len());
        assert!(set[9..].iter().all(|d| d.1 == Source::Pie));
    }

    #[test]
    fn cached_pie_openings_load_in_the_opening_turn() {
        // The committed pie set, and the same file as written before the notation marked the
        // opening turn: both load the opener's second decision (after pit 3's extra turn) with
        // the pie answer still to come, as the solver judged it.
        let rules = Rules::kalah64().with_pie(true);
        let name = "judge2-6x4-standard-owner-immediate-pietrue-1200-2026.json";
        let committed = Path::new(env!("CARGO_MANIFEST_DIR")).join("checkpoints/judge");
        let text = std::fs::read_to_string(committed.join(name)).unwrap();
        assert!(text.contains("s opening"));
        let legacy =
            std::env::temp_dir().join(format!("kalaha-judge-legacy-{}", std::process::id()));
        std::fs::create_dir_all(&legacy).unwrap();
        std::fs::write(legacy.join(name), text.replace(" s opening", " s")).unwrap();
        for dir in [committed, legacy.clone()] {
            let set = JudgeSet::load_or_build(&rules, 1200, JUDGE_SEED, &dir, None).unwrap();
            let pie: Vec<&Position> = set
                .positions
                .iter()
                .filter(|(_, j)| j.source == Source::Pie)
                .map(|(p, _)| p)
                .collect();
            assert_eq!(pie.len(), pie_positions(&rules).len());
            assert!(pie.iter().all(|p| p.swap_allowed() || p.in_opening_turn()));
            assert_eq!(pie.iter().filter(|p| p.in_opening_turn()).count(), 2);
        }
        std::fs::remove_dir_all(&legacy).unwrap();
    }

    /// A cache file of this set that is damaged or holds another set is an error naming the
    /// file and the way out, left as it is; a set of other settings is another file.
    #[test]
    fn a_damaged_judge_cache_is_an_error_naming_it_not_solved_again() {
        let rules = Rules::new(4, 3).unwrap();
        let dir = std::env::temp_dir().join(format!("kalaha-judge-cache-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let built = JudgeSet::load_or_build(&rules, 6, 7, &dir, None).unwrap();
        let path = dir.join(format!("{}-6-7.json", cache_prefix(&rules)));
        let good = std::fs::read_to_string(&path).unwrap();
        let loaded = JudgeSet::load_or_build(&rules, 6, 7, &dir, None).unwrap();
        assert_eq!(loaded.positions(), built.positions());
        // Another n is another set, solved beside the first.
        let other = JudgeSet::load_or_build(&rules, 3, 7, &dir, None).unwrap();
        assert_eq!(other.len(), 3);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), good);

        let edited = |edit: &dyn Fn(&mut serde_json::Value)| {
            let mut v: serde_json::Value = serde_json::from_str(&good).unwrap();
            edit(&mut v);
            v.to_string()
        };
        let cases = [
            (good[..good.len() / 2].to_string(), "is damaged"),
            (String::new(), "is damaged"),
            (
                edited(&|v| v["format"] = "kalaha-judge-9".into()),
                "format 'kalaha-judge-9'",
            ),
            (
                edited(&|v| v["rules"]["seeds"] = 4.into()),
                "set of other rules",
            ),
            (edited(&|v| v["seed"] = 8.into()), "seed 8, not 7"),
            (
                edited(&|v| {
                    v["positions"].as_array_mut().unwrap().pop();
                }),
                "holds 5 positions (5 solved, 0 unsolved), not 6",
            ),
            (
                edited(&|v| v["positions"][0]["position"] = "4,4/4,4 s".into()),
                "holds a position that is not one",
            ),
        ];
        for (text, says) in cases {
            std::fs::write(&path, &text).unwrap();
            let e = match JudgeSet::load_or_build(&rules, 6, 7, &dir, None) {
                Ok(_) => panic!("{says}: loaded"),
                Err(e) => e.to_string(),
            };
            assert!(
                e.contains(&path.display().to_string())
                    && e.contains(says)
                    && e.contains("delete it to solve the set again"),
                "{says}: {e}"
            );
            assert_eq!(
                std::fs::read_to_string(&path).unwrap(),
                text,
                "left as it was"
            );
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_sign_test_matches_the_binomial_tails() {
        // n = 10: P(X <= 1) = 11 / 1024, two-sided 22 / 1024.
        assert!((sign_test(1, 10) - 22.0 / 1024.0).abs() < 1e-12);
        assert!((sign_test(9, 10) - 22.0 / 1024.0).abs() < 1e-12);
        assert_eq!(sign_test(5, 10), 1.0);
        assert_eq!(sign_test(0, 0), 1.0);
        // 22 against 15 is chance; 40 against 10 is not; large n does not underflow.
        assert!(
            (0.3..0.4).contains(&sign_test(22, 37)),
            "{}",
            sign_test(22, 37)
        );
        assert!(sign_test(40, 50) < 1e-4);
        assert!(sign_test(600, 1200) > 0.9 && sign_test(500, 1200) < 1e-6);
    }

    #[test]
    fn the_committed_sets_settings_are_found_by_their_rules() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("checkpoints/judge");
        let kalah64 = Rules::kalah64();
        assert_eq!(cached_settings(&kalah64, &dir), Some((1200, None)));
        let swedish = crate::rules::Preset::Swedish.rules();
        let (n, limit) = cached_settings(&swedish, &dir).expect("the Swedish set is committed");
        assert_eq!((n, limit), (600, Some(Duration::from_secs(10))));
        assert_eq!(cached_settings(&Rules::new(5, 3).unwrap(), &dir), None);
    }

    #[test]
    fn rates_carry_their_standard_error() {
        let r = Rate::of(90, 100);
        assert!((r.optimal_rate - 0.9).abs() < 1e-12);
        assert!((r.std_err - 0.03).abs() < 1e-12);
        assert_eq!(Rate::of(0, 0).positions, 0);
    }

    /// The committed Kalah(6,4) set scores only legal picks: an illegal action (or a count that
    /// is not one per position) is an error naming it, never a move scored as optimal.
    #[test]
    fn illegal_picks_are_refused_not_scored() {
        let rules = Rules::kalah64();
        let committed = Path::new(env!("CARGO_MANIFEST_DIR")).join("checkpoints/judge");
        let set = JudgeSet::load_or_build(&rules, 1200, JUDGE_SEED, &committed, None).unwrap();
        let first_legal: Vec<usize> = set
            .positions()
            .iter()
            .map(|p| p.legal_moves().iter().next().unwrap().action(6))
            .collect();
        let score = set.score_picks(&first_legal).unwrap();
        assert!(score.optimal_rate > 0.0 && score.optimal_rate < 1.0);
        assert_eq!(
            set.misses(&first_legal).unwrap().len(),
            score.positions - (score.optimal_rate * score.positions as f64).round() as usize
        );
        let mut bad = first_legal.clone();
        bad[7] = 6; // swap: never legal without the pie rule
        let e = set.score_picks(&bad).unwrap_err().to_string();
        assert!(
            e.contains("position 7") && e.contains("action 6 is not a legal move"),
            "{e}"
        );
        assert!(set.misses(&bad).is_err());
        assert!(set.compare(&first_legal, &bad).is_err());
        let e = set.score_picks(&first_legal[1..]).unwrap_err().to_string();
        assert!(e.contains("1199 actions for the 1200 positions"), "{e}");
    }
}
