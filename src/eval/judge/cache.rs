//! The judge set's cache file: one JSON file per rules and settings in the cache folder, loaded
//! and checked, or drawn, solved and written once; the settings and positions of the sets already
//! solved.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde::{Deserialize, Serialize};

use super::draw::{draw_set, pie_positions};
use super::{JUDGE_SEED, JudgeSet, Judged, Source};
use crate::rules::{NotationError, Position, Rules, RulesSpec};
use crate::solver::{Solver, SolverConfig};

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
                // A limit outside the one range of time limits (`-t1e30`) is no name this
                // program writes: that file is passed over, as any other name it cannot read.
                Some(t) => {
                    Some(crate::solver::seconds::seconds(t.strip_prefix('t')?.parse().ok()?).ok()?)
                }
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cache_name_with_a_time_limit_out_of_range_is_passed_over() {
        // `-t1e30` panicked in `Duration::from_secs_f64` (issue 54); such a name is no file this
        // program writes, and is passed over like any other name it cannot read.
        let rules = Rules::kalah64();
        let dir = std::env::temp_dir().join(format!("kalaha-judge-names-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let prefix = cache_prefix(&rules);
        for t in ["1e30", "inf", "NaN", "-1", "1e400"] {
            std::fs::write(
                dir.join(format!("{prefix}-9000-{JUDGE_SEED}-t{t}.json")),
                "{}",
            )
            .unwrap();
        }
        assert_eq!(cached_settings(&rules, &dir), None);
        std::fs::write(
            dir.join(format!("{prefix}-300-{JUDGE_SEED}-t2.5.json")),
            "{}",
        )
        .unwrap();
        assert_eq!(
            cached_settings(&rules, &dir),
            Some((300, Some(Duration::from_millis(2500))))
        );
        std::fs::remove_dir_all(&dir).unwrap();
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

    /// The draw is pinned (`rand`'s `SmallRng`, see `draw`): the committed Kalah(6,4) set is drawn
    /// again position for position, so deleting its file would solve the same set again.
    #[test]
    fn the_committed_judge_set_is_drawn_again_exactly() {
        let rules = Rules::kalah64();
        let name = "judge2-6x4-standard-owner-immediate-piefalse-1200-2026.json";
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("checkpoints/judge")
            .join(name);
        let f: JudgeFile = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let cached: Vec<(String, Source, u32)> = f
            .positions
            .into_iter()
            .map(|j| (j.position, j.source, j.ply))
            .collect();
        let drawn: Vec<(String, Source, u32)> = draw_set(&rules, 1200, JUDGE_SEED)
            .into_iter()
            .map(|(p, s, ply)| (p.to_string(), s, ply))
            .collect();
        assert_eq!(drawn, cached);
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
    fn the_committed_sets_settings_are_found_by_their_rules() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("checkpoints/judge");
        let kalah64 = Rules::kalah64();
        assert_eq!(cached_settings(&kalah64, &dir), Some((1200, None)));
        let swedish = crate::rules::Preset::Swedish.rules();
        let (n, limit) = cached_settings(&swedish, &dir).expect("the Swedish set is committed");
        assert_eq!((n, limit), (600, Some(Duration::from_secs(10))));
        assert_eq!(cached_settings(&Rules::new(5, 3).unwrap(), &dir), None);
    }
}
