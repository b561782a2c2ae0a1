//! Exactly labelled positions instead of self-play: the supervised upper bound of what the network
//! can learn. Positions come from games of random and greedy moves mixed (a share of greedy moves
//! drawn per game, stopped at a random ply), each labelled by perfect play: the endgame database
//! answers positions it covers in microseconds, the solver the others within a time limit (those
//! it cannot prove in time are skipped). The policy target is uniform over the optimal moves, the
//! value and margin targets the exact ones.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use rand::RngExt;
use rayon::prelude::*;

use super::config::LabelDraw;
use super::replay::{Replay, Sample};
use super::selfplay::{SelfPlayStats, exact_lost, exact_policy};
use crate::bots::{Minimax, greedy_or_random, random_move};
use crate::env::rng::{GameRng, derive, stream};
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
    /// Where positions are drawn.
    draw: LabelDraw,
    /// Leave positions with one legal move out.
    skip_forced: bool,
    /// Exactly labelled positions read from a file, drawn with [`Labeller::generate_file`].
    file: Option<super::label_file::LabelFile>,
}

/// Plies after the database is entered that [`LabelDraw::Judge`] keeps (the judge set's
/// endgames are drawn 0 to 6 plies in).
const JUDGE_PLIES: u32 = 6;

/// Depth of the minimax games of [`LabelDraw::Judge`] (the judge set's are `minimax:4`; depth 2
/// keeps a labelled position to a fraction of a millisecond).
const JUDGE_MINIMAX_DEPTH: u32 = 2;

/// The positions of one game as [`LabelDraw::Judge`] draws them: a game of random and greedy moves
/// mixed (two in three) or of minimax after 2 to 6 random moves, every position from the first
/// with at most `db_seeds` seeds on the board to [`JUDGE_PLIES`] plies later, not over, with two
/// legal moves at least.
pub(crate) fn judge_like_game(rules: &Rules, rng: &mut GameRng, db_seeds: u32) -> Vec<Position> {
    let mut pos = Position::start(rules);
    let minimax = rng.random_range(0..3) == 0;
    let (random_plies, greedy) = if minimax {
        (rng.random_range(2..=6), 0.0)
    } else {
        (0, rng.random::<f64>())
    };
    let bot = Minimax::new(JUDGE_MINIMAX_DEPTH);
    let (mut ply, mut entered) = (0u32, None);
    let mut out = Vec::new();
    while !pos.is_over() {
        if entered.is_none() && pos.board_seeds() <= db_seeds {
            entered = Some(ply);
        }
        if let Some(k) = entered {
            if ply > k + JUDGE_PLIES {
                break;
            }
            if pos.legal_moves().len() >= 2 {
                out.push(pos);
            }
        }
        let mv = if ply < random_plies {
            random_move(&pos, rng)
        } else if minimax {
            bot.pick(&pos, rng)
        } else {
            greedy_or_random(&pos, greedy, rng)
        };
        pos.play(mv).expect("bots play legal moves");
        ply += 1;
    }
    out
}

/// A sample from every legal move's exact value, its policy target at `temperature` (see
/// [`exact_policy`]).
pub(super) fn sample(pos: Position, exact: &ExactMoves, total: u32, temperature: f32) -> Sample {
    Sample {
        pos,
        policy: exact_policy(exact, pos.rules().pits(), temperature),
        value: exact.value.signum() as f32,
        margin: exact.value as f32 / total.max(1) as f32,
        exact: true,
        lost: exact_lost(exact, pos.rules().pits()),
    }
}

impl Labeller {
    /// A labeller with `oracle`; with `solver`, positions outside the database are solved within
    /// the time limit, else only positions the database covers are drawn. Policy targets at
    /// `temperature` (0: uniform over the optimal moves; above 0, every move weighed by its
    /// exact value). Positions are drawn as `draw` says, those with one legal move left out with
    /// `skip_forced`.
    pub fn new(
        rules: &Rules,
        oracle: Arc<EndgameOracle>,
        solver: Option<(Solver, Duration)>,
        temperature: f32,
        (draw, skip_forced): (LabelDraw, bool),
    ) -> Labeller {
        Labeller {
            rules: *rules,
            oracle,
            solver,
            temperature,
            draw,
            skip_forced,
            file: None,
        }
    }

    /// This labeller drawing from `file` too ([`Labeller::generate_file`]).
    pub fn with_file(self, file: super::label_file::LabelFile) -> Labeller {
        Labeller {
            file: Some(file),
            ..self
        }
    }

    /// `n` positions of the labels file into `replay` (none without a file); the number pushed.
    pub fn generate_file(&self, n: usize, replay: &mut Replay, seed: u64) -> usize {
        match &self.file {
            Some(f) => f.generate(n, replay, seed, self.temperature),
            None => 0,
        }
    }

    /// One labelled position of a random and greedy game stopped at a uniform ply (after up to 64
    /// tries), if one was found.
    fn draw_games(&self, rng: &mut GameRng, max_plies: u32, total: u32) -> Option<Sample> {
        for _ in 0..64 {
            let Some(pos) = crate::eval::judge::game_position(&self.rules, rng, max_plies) else {
                continue;
            };
            if self.skip_forced && pos.legal_moves().len() < 2 {
                continue;
            }
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
    }

    /// The labelled positions of one game drawn as [`LabelDraw::Judge`] says.
    fn draw_judge_like(&self, rng: &mut GameRng, total: u32) -> Vec<Sample> {
        judge_like_game(&self.rules, rng, self.oracle.max_seeds())
            .into_iter()
            .filter_map(|pos| {
                let e = self.oracle.moves(&pos)?;
                Some(sample(pos, &e, total, self.temperature))
            })
            .collect()
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
        let (mut round, mut empty_rounds) = (0u64, 0);
        while (stats.positions as usize) < n && !stop.load(Ordering::Relaxed) {
            round += 1;
            let want = (n - stats.positions as usize).min(1024);
            // A judge-like game gives several positions.
            let tasks = match self.draw {
                LabelDraw::Games => want,
                LabelDraw::Judge => want.div_ceil(4),
            };
            // Task `k` of round `round` draws from its own seed, whatever the threads.
            let round_seed = derive(seed, round);
            let drawn: Vec<Vec<Sample>> = (0..tasks)
                .into_par_iter()
                .map(|k| {
                    let mut rng = stream(round_seed, k as u64);
                    match self.draw {
                        LabelDraw::Games => self
                            .draw_games(&mut rng, max_plies, total)
                            .into_iter()
                            .collect(),
                        LabelDraw::Judge => self.draw_judge_like(&mut rng, total),
                    }
                })
                .collect();
            if drawn.iter().all(Vec::is_empty) {
                empty_rounds += 1;
                if empty_rounds == 64 {
                    break; // nothing to draw under these rules and database
                }
                continue;
            }
            empty_rounds = 0;
            for s in drawn
                .into_iter()
                .flatten()
                .take(n - stats.positions as usize)
            {
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

    /// Kalah(4,3) with a 12-seed database: the rules, a labeller drawing as `draw` says, and a
    /// second copy of the database to check its labels against.
    fn small(draw: (LabelDraw, bool)) -> (Rules, Labeller, EndgameOracle) {
        let rules = Rules::new(4, 3).unwrap();
        let build =
            || EndgameOracle::from_db(&rules, crate::solver::Endgame::build(&rules, 12, None));
        let l = Labeller::new(&rules, Arc::new(build()), None, 0.0, draw);
        (rules, l, build())
    }

    #[test]
    fn labels_are_the_oracles() {
        let (rules, l, check) = small((LabelDraw::Games, false));
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

    /// Judge-like draws are inside the database with a choice to make, and every legal move's
    /// seeds lost is the database's: 0 exactly for the optimal moves.
    #[test]
    fn judge_like_draws_carry_every_moves_exact_loss() {
        let (rules, l, check) = small((LabelDraw::Judge, true));
        let mut replay = Replay::new(1000);
        let st = l.generate(400, &mut replay, 7, &AtomicBool::new(false));
        assert_eq!(st.positions, 400);
        let pits = rules.pits();
        let mut ties = 0;
        for s in replay.iter() {
            assert!(s.pos.board_seeds() <= 12 && s.pos.legal_moves().len() >= 2);
            let e = check.moves(&s.pos).expect("inside the database");
            for &(mv, v) in &e.moves {
                assert_eq!(s.lost[mv.action(pits)], (e.value - v) as f32);
            }
            let known = s.lost.iter().filter(|x| x.is_finite()).count();
            assert_eq!(known, e.moves.len(), "illegal actions are unknown");
            ties += (e.best().count() > 1) as usize;
        }
        assert!(ties > 0, "some positions have tied optimal moves");
    }
}
