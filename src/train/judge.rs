//! Judging the network against perfect play: a fixed set of positions drawn from varied games,
//! analysed once per rule set by the exact solver and cached as JSON, then scored on the share of
//! the network's moves that keep the exact value and the mean seeds lost per move.

use std::path::{Path, PathBuf};

use anyhow::Context;
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use serde::{Deserialize, Serialize};

use super::eval::greedy_actions;
use crate::bots::{Bot, Greedy, random_move};
use crate::rules::{Position, Rules, RulesSpec};
use crate::search::Evaluator;
use crate::solver::{Solver, SolverConfig};

/// A judged position: its notation and the exact value of every legal move (action index order).
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Judged {
    position: String,
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
}

const FORMAT: &str = "kalaha-judge-1";

/// The network's score against the solver.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct JudgeScore {
    /// Positions judged.
    pub positions: usize,
    /// Share of the network's moves that are optimal.
    pub optimal_rate: f64,
    /// Mean seeds the network's move gives up against the best move.
    pub mean_loss: f64,
}

/// A fixed, cached set of solved positions.
pub struct JudgeSet {
    positions: Vec<(Position, Judged)>,
}

/// Positions from varied games: random and greedy moves mixed, sampled 4 to 40 moves in, each
/// with at least two legal moves.
fn draw_positions(rules: &Rules, n: usize, seed: u64) -> Vec<Position> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let mut pos = Position::start(rules);
        let target = rng.random_range(4..40);
        let greedy_share: f64 = rng.random();
        let mut ply = 0;
        while !pos.is_over() && ply < target {
            let mv = if rng.random::<f64>() < greedy_share {
                Greedy.choose(&pos, &mut rng)
            } else {
                random_move(&pos, &mut rng)
            };
            pos.play(mv).expect("bots play legal moves");
            ply += 1;
        }
        if !pos.is_over() && pos.legal_moves().len() >= 2 {
            out.push(pos);
        }
    }
    out
}

impl JudgeSet {
    /// Loads the set for `rules` from `cache_dir`, or draws and solves it (and caches it).
    pub fn load_or_build(
        rules: &Rules,
        n: usize,
        seed: u64,
        cache_dir: &Path,
    ) -> anyhow::Result<JudgeSet> {
        let spec = rules.spec();
        let name = format!(
            "judge-{}x{}-{:?}-{:?}-{:?}-pie{}-{n}-{seed}.json",
            spec.pits, spec.seeds, spec.capture, spec.leftover, spec.end, spec.pie
        )
        .to_lowercase();
        let path: PathBuf = cache_dir.join(name);
        if let Ok(text) = std::fs::read_to_string(&path) {
            match serde_json::from_str::<JudgeFile>(&text) {
                Ok(f) if f.format == FORMAT && f.rules == spec && f.positions.len() == n => {
                    let positions = f
                        .positions
                        .into_iter()
                        .map(|j| Ok((Position::parse(&j.position, rules)?, j)))
                        .collect::<anyhow::Result<Vec<_>>>()
                        .with_context(|| format!("corrupt judge cache {}", path.display()))?;
                    return Ok(JudgeSet { positions });
                }
                _ => eprintln!(
                    "kalaha: judge cache {} is stale or corrupt; rebuilding",
                    path.display()
                ),
            }
        }
        let drawn = draw_positions(rules, n, seed);
        let solver = Solver::new(rules, &SolverConfig::default())?;
        let analyses = solver.judge(&drawn);
        let pits = rules.pits();
        let mut positions = Vec::with_capacity(n);
        for (p, a) in drawn.into_iter().zip(analyses) {
            let value = a.value().context("the solver left a position unsolved")?;
            let moves = a
                .moves
                .iter()
                .map(|m| {
                    Ok((
                        m.mv.action(pits),
                        m.value().context("the solver left a move unsolved")?,
                    ))
                })
                .collect::<anyhow::Result<Vec<_>>>()?;
            positions.push((
                p,
                Judged {
                    position: p.to_string(),
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
        };
        std::fs::create_dir_all(cache_dir)?;
        let tmp = path.with_extension("json.tmp");
        std::fs::write(&tmp, serde_json::to_string(&file)?)?;
        std::fs::rename(&tmp, &path)?;
        Ok(JudgeSet { positions })
    }

    /// Scores the network's best move (by its policy) in every position.
    pub fn score(&self, evaluator: &mut dyn Evaluator) -> JudgeScore {
        let positions: Vec<Position> = self.positions.iter().map(|p| p.0).collect();
        if positions.is_empty() {
            return JudgeScore::default();
        }
        let actions = greedy_actions(&positions, evaluator);
        let mut optimal = 0usize;
        let mut lost = 0i64;
        for ((_, j), a) in self.positions.iter().zip(actions) {
            let v = j
                .moves
                .iter()
                .find(|m| m.0 == a)
                .map(|m| m.1)
                .unwrap_or(j.value);
            let loss = (j.value - v).max(0);
            optimal += (loss == 0) as usize;
            lost += loss as i64;
        }
        let n = self.positions.len();
        JudgeScore {
            positions: n,
            optimal_rate: optimal as f64 / n as f64,
            mean_loss: lost as f64 / n as f64,
        }
    }
}
