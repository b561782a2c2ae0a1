//! Exactly labelled positions instead of self-play: the supervised upper bound of what the network
//! can learn. Positions come from games of random and greedy moves mixed (a share of greedy moves
//! drawn per game, stopped at a random ply), each labelled by perfect play: the endgame database
//! answers positions it covers in microseconds, the solver the others within a time limit (those
//! it cannot prove in time are skipped). The policy target is uniform over the optimal moves, the
//! value and margin targets the exact ones.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use rayon::prelude::*;

use super::selfplay::{Replay, Sample, SelfPlayStats, exact_policy};
use crate::bots::{Bot, Greedy, random_move};
use crate::rules::{Position, Rules};
use crate::solver::{EndgameOracle, ExactMoves, Solver};

/// Draws and labels positions.
pub struct Labeller {
    rules: Rules,
    oracle: Arc<EndgameOracle>,
    /// The solver for positions outside the database, and its time limit a position.
    solver: Option<(Solver, Duration)>,
    /// Temperature of the policy targets ([`exact_policy`]).
    temperature: f32,
}

/// A position `plies` random-and-greedy moves into a game (fewer if it ends), not over.
fn draw(rules: &Rules, rng: &mut SmallRng, max_plies: u32) -> Option<Position> {
    let mut pos = Position::start(rules);
    let target = rng.random_range(0..max_plies);
    let greedy: f64 = rng.random();
    for _ in 0..target {
        let mv = if rng.random::<f64>() < greedy {
            Greedy.choose(&pos, rng)
        } else {
            random_move(&pos, rng)
        };
        let mut next = pos;
        next.play(mv).expect("bots play legal moves");
        if next.is_over() {
            break;
        }
        pos = next;
    }
    (!pos.is_over()).then_some(pos)
}

/// A sample from every legal move's exact value, its policy target at `temperature` (see
/// [`exact_policy`]).
fn sample(pos: Position, exact: &ExactMoves, total: u32, temperature: f32) -> Sample {
    Sample {
        pos,
        policy: exact_policy(exact, pos.rules().pits(), temperature),
        value: exact.value.signum() as f32,
        margin: exact.value as f32 / total.max(1) as f32,
        exact: true,
    }
}

impl Labeller {
    /// A labeller with `oracle`; with `solver`, positions outside the database are solved within
    /// the time limit, else only positions the database covers are drawn. Policy targets at
    /// `temperature` (0: uniform over the optimal moves; above 0, every move weighed by its
    /// exact value).
    pub fn new(
        rules: &Rules,
        oracle: Arc<EndgameOracle>,
        solver: Option<(Solver, Duration)>,
        temperature: f32,
    ) -> Labeller {
        Labeller {
            rules: *rules,
            oracle,
            solver,
            temperature,
        }
    }

    /// Draws and labels `n` positions into `replay` (or fewer if `stop` is set).
    pub fn generate(
        &self,
        n: usize,
        replay: &mut Replay,
        seed: u64,
        stop: &AtomicBool,
    ) -> SelfPlayStats {
        let mut stats = SelfPlayStats::default();
        let total = self.rules.total_seeds();
        let max_plies = 4 * total / self.rules.pits().max(1) as u32 + 8;
        let mut round = 0u64;
        while (stats.positions as usize) < n && !stop.load(Ordering::Relaxed) {
            round += 1;
            let want = (n - stats.positions as usize).min(1024);
            let drawn: Vec<Option<Sample>> = (0..want)
                .into_par_iter()
                .map(|k| {
                    let mut rng = SmallRng::seed_from_u64(
                        seed ^ round.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (k as u64) << 32,
                    );
                    for _ in 0..64 {
                        let Some(pos) = draw(&self.rules, &mut rng, max_plies) else {
                            continue;
                        };
                        if let Some(e) = self.oracle.moves(&pos) {
                            return Some(sample(pos, &e, total, self.temperature));
                        }
                        if let Some((solver, limit)) = &self.solver {
                            let a = solver.analyse_within(&pos, Some(*limit), None);
                            if a.complete() {
                                let exact = ExactMoves {
                                    value: a.value().expect("a complete analysis has a value"),
                                    moves: a
                                        .moves
                                        .iter()
                                        .filter_map(|m| m.value().map(|v| (m.mv, v)))
                                        .collect(),
                                };
                                return Some(sample(pos, &exact, total, self.temperature));
                            }
                        }
                    }
                    None
                })
                .collect();
            for s in drawn.into_iter().flatten() {
                stats.positions += 1;
                stats.exact_positions += 1;
                replay.push(s);
            }
        }
        stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_the_oracles() {
        let rules = Rules::new(4, 3).unwrap();
        let build =
            || EndgameOracle::from_db(&rules, crate::solver::Endgame::build(&rules, 12, None));
        let l = Labeller::new(&rules, Arc::new(build()), None, 0.0);
        let check = build();
        let mut replay = Replay::new(1000);
        let st = l.generate(300, &mut replay, 4, &AtomicBool::new(false));
        assert_eq!(st.positions, 300);
        for s in replay.iter() {
            let e = check
                .moves(&s.pos)
                .expect("only covered positions without a solver");
            assert_eq!(s.margin * rules.total_seeds() as f32, e.value as f32);
            assert!((s.policy.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        }
    }
}
