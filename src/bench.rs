//! Throughput measurements behind `kalaha bench`.

use std::time::Instant;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde::Serialize;

use crate::rules::{Position, Rules};

/// Result of the random-playout benchmark.
#[derive(Clone, Debug, Serialize)]
pub struct RulesBench {
    /// Rules played.
    pub rules: String,
    /// Median moves per second over the runs.
    pub steps_per_sec: f64,
    /// Median finished games per second over the runs.
    pub games_per_sec: f64,
    /// Every run's moves per second.
    pub runs: Vec<f64>,
    /// Seconds each run lasted.
    pub seconds_per_run: f64,
}

/// Plays uniformly random games from the start, restarting each finished game, for `moves`
/// moves; returns the number of finished games. Single-threaded.
pub fn random_playouts(rules: &Rules, moves: u64, rng: &mut impl Rng) -> u64 {
    let start = Position::start(rules);
    let mut pos = start;
    let mut games = 0;
    for _ in 0..moves {
        let pits = pos.nonempty_pits();
        // Uniform choice of the k-th set bit: multiply-shift instead of a modulo.
        let k = ((rng.next_u32() as u64 * pits.count_ones() as u64) >> 32) as u32;
        let mut bits = pits;
        for _ in 0..k {
            bits &= bits - 1;
        }
        let out = pos.play_index_unchecked(bits.trailing_zeros() as usize);
        if out.game_over {
            pos = start;
            games += 1;
        }
    }
    games
}

/// Times [`random_playouts`] in `runs` runs of about `seconds` each and reports medians.
pub fn bench_rules(rules: &Rules, runs: usize, seconds: f64, seed: u64) -> RulesBench {
    let mut rng = SmallRng::seed_from_u64(seed);
    // Calibrate the batch size so each run lasts about `seconds`.
    let mut batch = 1_000_000u64;
    loop {
        let t = Instant::now();
        random_playouts(rules, batch, &mut rng);
        let dt = t.elapsed().as_secs_f64();
        if dt > 0.05 {
            batch = ((batch as f64) * seconds / dt).max(1.0) as u64;
            break;
        }
        batch *= 4;
    }
    let mut runs_sps = Vec::new();
    let mut runs_gps = Vec::new();
    for _ in 0..runs.max(1) {
        let t = Instant::now();
        let games = random_playouts(rules, batch, &mut rng);
        let dt = t.elapsed().as_secs_f64();
        runs_sps.push(batch as f64 / dt);
        runs_gps.push(games as f64 / dt);
    }
    RulesBench {
        rules: rules.describe(),
        steps_per_sec: median(&runs_sps),
        games_per_sec: median(&runs_gps),
        runs: runs_sps,
        seconds_per_run: seconds,
    }
}

/// Median of a non-empty list.
pub fn median(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 }
}
