//! Throughput measurements behind `kalaha bench`.

use std::time::Instant;

use rand::Rng;
use serde::Serialize;

use crate::rules::{Position, Rules, count_bits, select_bit};

/// Games the benchmark interleaves in its one thread.
pub const LANES: usize = 8;

/// Result of the random-playout benchmark.
#[derive(Clone, Debug, Serialize)]
pub struct RulesBench {
    /// Rules played.
    pub rules: String,
    /// Median moves per second over the runs.
    pub steps_per_sec: f64,
    /// Median finished games per second over the runs.
    pub games_per_sec: f64,
    /// Median moves per second when one game is played at a time (no interleaving).
    pub single_game_steps_per_sec: f64,
    /// Games interleaved in the thread for `steps_per_sec`.
    pub lanes: usize,
    /// Every run's moves per second.
    pub runs: Vec<f64>,
    /// Seconds each run lasted.
    pub seconds_per_run: f64,
}

/// Plays uniformly random games from the start, restarting each finished game, for `moves`
/// moves in all; returns the number of finished games. Single-threaded: `LANES` independent
/// games take turns, one move each, so the processor overlaps their work (one game alone is a
/// chain of dependent loads); `LANES = 1` is one game at a time.
pub fn random_playouts<const LANES: usize>(rules: &Rules, moves: u64, rng: &mut impl Rng) -> u64 {
    let start = Position::start(rules);
    let mut lanes = [start; LANES];
    let mut games = 0;
    for _ in 0..moves / LANES as u64 {
        let mut r = 0;
        for (i, pos) in lanes.iter_mut().enumerate() {
            if i % 4 == 0 {
                r = rng.next_u64();
            }
            let pits = pos.nonempty_pits();
            // The k-th legal pit from 16 random bits by multiply-shift (no modulo; the bias is
            // below 1 in 4000 for 15 moves).
            let bits = (r >> (16 * (i % 4))) & 0xFFFF;
            let k = ((bits * count_bits(pits) as u64) >> 16) as u32;
            let out = pos.play_index_unchecked(select_bit(pits, k));
            if out.game_over {
                *pos = start;
                games += 1;
            }
        }
    }
    games
}

/// Times [`random_playouts`] in `runs` runs of about `seconds` each and reports medians. The moves
/// come from `rng` (the caller's seeded stream: this layer is below `env`, whose `rng::stream`
/// makes it).
pub fn bench_rules(rules: &Rules, runs: usize, seconds: f64, rng: &mut impl Rng) -> RulesBench {
    // Calibrate the batch size so each run lasts about `seconds`.
    let mut batch = 1_000_000u64;
    loop {
        let t = Instant::now();
        random_playouts::<LANES>(rules, batch, rng);
        let dt = t.elapsed().as_secs_f64();
        if dt > 0.05 {
            batch = ((batch as f64) * seconds / dt).max(1.0) as u64;
            break;
        }
        batch *= 4;
    }
    let mut runs_sps = Vec::new();
    let mut runs_gps = Vec::new();
    let mut runs_single = Vec::new();
    for _ in 0..runs.max(1) {
        let t = Instant::now();
        let games = random_playouts::<LANES>(rules, batch, rng);
        let dt = t.elapsed().as_secs_f64();
        runs_sps.push(batch as f64 / dt);
        runs_gps.push(games as f64 / dt);
        let t = Instant::now();
        random_playouts::<1>(rules, batch / 2, rng);
        runs_single.push((batch / 2) as f64 / t.elapsed().as_secs_f64());
    }
    RulesBench {
        rules: rules.describe(),
        steps_per_sec: median(&runs_sps),
        games_per_sec: median(&runs_gps),
        single_game_steps_per_sec: median(&runs_single),
        lanes: LANES,
        runs: runs_sps,
        seconds_per_run: seconds,
    }
}

/// Median of a list (the mean of the middle two for an even count); 0 for an empty one.
pub fn median(xs: &[f64]) -> f64 {
    if xs.is_empty() {
        return 0.0;
    }
    let mut v = xs.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::median;

    #[test]
    fn medians() {
        assert_eq!(median(&[]), 0.0);
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
    }
}
