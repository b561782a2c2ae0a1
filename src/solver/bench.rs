//! Judging speed: full analyses (every move's exact value) of positions from the middle of random
//! games, the measurement behind `kalaha bench solver`; and the endgame database's build speed,
//! behind `kalaha bench endgame`.

use std::time::Instant;

use rand::RngExt;
use serde::Serialize;

use super::analyse::Solver;
use super::endgame::{Endgame, MAX_DB_SEEDS, entries};
use crate::env::rng::stream;
use crate::rules::{Position, Rules};

/// Positions `from..=to` moves into uniformly random games (games that end sooner are replayed).
pub fn midgame_positions(
    rules: &Rules,
    count: usize,
    from: usize,
    to: usize,
    seed: u64,
) -> Vec<Position> {
    let mut rng = stream(seed, 0);
    let mut out = Vec::with_capacity(count);
    while out.len() < count {
        let plies = rng.random_range(from..=to);
        let mut pos = Position::start(rules);
        let mut ok = true;
        for _ in 0..plies {
            let moves: Vec<_> = pos.legal_moves().iter().collect();
            if moves.is_empty() {
                ok = false;
                break;
            }
            pos.play(moves[rng.random_range(0..moves.len())])
                .expect("legal");
        }
        if ok && !pos.is_over() {
            out.push(pos);
        }
    }
    out
}

/// Result of the judging benchmark.
#[derive(Clone, Debug, Serialize)]
pub struct SolverBench {
    /// Rules played.
    pub rules: String,
    /// Positions analysed.
    pub positions: usize,
    /// Positions fully analysed per second (wall clock, all threads), after set-up.
    pub positions_per_sec: f64,
    /// Nodes searched per position, on average.
    pub nodes_per_position: f64,
    /// Seconds of the analyses.
    pub seconds: f64,
    /// Seconds to load or build the endgame database.
    pub setup_seconds: f64,
    /// Seeds the endgame database covers.
    pub db_seeds: u32,
    /// Threads of the rayon pool.
    pub threads: usize,
}

/// Judges `positions` with `solver` and times it.
pub fn bench_solver(solver: &Solver, positions: &[Position], setup_seconds: f64) -> SolverBench {
    let t = Instant::now();
    let n0 = solver.nodes();
    let results = solver.judge(positions);
    let seconds = t.elapsed().as_secs_f64();
    debug_assert!(results.iter().all(|a| a.complete()));
    SolverBench {
        rules: solver.rules().describe(),
        positions: positions.len(),
        positions_per_sec: positions.len() as f64 / seconds.max(1e-9),
        nodes_per_position: (solver.nodes() - n0) as f64 / positions.len().max(1) as f64,
        seconds,
        setup_seconds,
        db_seeds: solver.db_seeds(),
        threads: rayon::current_num_threads(),
    }
}

/// Result of the database-building benchmark.
#[derive(Clone, Debug, Serialize)]
pub struct EndgameBench {
    /// Rules the database is for.
    pub rules: String,
    /// Seeds the database covers.
    pub db_seeds: u32,
    /// Boards in it (one byte each).
    pub entries: u64,
    /// Boards solved per second, the median over the runs (wall clock, all threads).
    pub boards_per_sec: f64,
    /// Median seconds a build took.
    pub seconds: f64,
    /// Every run's seconds.
    pub runs: Vec<f64>,
    /// Threads of the rayon pool.
    pub threads: usize,
}

/// Builds the database of `seeds` seeds for `rules` in memory `runs` times and times it.
/// Precondition: `seeds <= MAX_DB_SEEDS` and `runs >= 1`.
pub fn bench_endgame(rules: &Rules, seeds: u32, runs: usize) -> EndgameBench {
    debug_assert!(seeds <= MAX_DB_SEEDS && runs >= 1);
    let count = entries(rules.pits(), seeds) as u64;
    let times: Vec<f64> = (0..runs.max(1))
        .map(|_| {
            let t = Instant::now();
            let db = Endgame::build(rules, seeds, None);
            let dt = t.elapsed().as_secs_f64();
            drop(db);
            dt
        })
        .collect();
    let seconds = crate::bench::median(&times);
    EndgameBench {
        rules: rules.describe(),
        db_seeds: seeds,
        entries: count,
        boards_per_sec: count as f64 / seconds.max(1e-9),
        seconds,
        runs: times,
        threads: rayon::current_num_threads(),
    }
}
