//! The environment benchmark behind `kalaha bench env`: random legal steps of a whole batch.

use std::time::Instant;

use serde::Serialize;

use crate::bench::median;
use crate::rules::Rules;

use super::vec_env::VecEnv;

/// Result of [`bench_env`].
#[derive(Clone, Debug, Serialize)]
pub struct EnvBench {
    /// Rules played.
    pub rules: String,
    /// Games in the batch.
    pub games: usize,
    /// Threads of the rayon pool.
    pub threads: usize,
    /// Games per parallel piece.
    pub grain: usize,
    /// Median game steps (moves) per second over the runs.
    pub steps_per_sec: f64,
    /// Median finished games per second over the runs.
    pub games_per_sec: f64,
    /// Every run's steps per second.
    pub runs: Vec<f64>,
    /// Seconds each run lasted, about.
    pub seconds_per_run: f64,
    /// Median share of the pool's threads' wall time that this process got on a CPU (Linux
    /// only): well below 1 means other programs took the cores and the figures are low.
    pub cpu_share: Option<f64>,
}

/// What [`bench_env`] runs.
#[derive(Clone, Copy, Debug)]
pub struct EnvBenchSpec {
    /// Games stepped together.
    pub games: usize,
    /// Threads of the rayon pool.
    pub threads: usize,
    /// Games per parallel piece; `None` for [`default_grain`].
    pub grain: Option<usize>,
    /// Timed runs; medians are reported.
    pub runs: usize,
    /// Seconds per run, about.
    pub seconds: f64,
    /// Seed of the games' random streams.
    pub seed: u64,
}

impl Default for EnvBenchSpec {
    fn default() -> EnvBenchSpec {
        EnvBenchSpec {
            games: 4096,
            threads: 2,
            grain: None,
            runs: 5,
            seconds: 1.0,
            seed: 1,
        }
    }
}

/// Steps a batch of games with uniformly random legal actions ([`VecEnv::step_random`]: the
/// actions are drawn inside the step, observations and masks are written every step) on a pool of
/// its own threads, in timed runs, and reports medians. Finished games are counted from the done
/// flags after every step, as a learner would read them.
pub fn bench_env(rules: &Rules, spec: &EnvBenchSpec) -> anyhow::Result<EnvBench> {
    let EnvBenchSpec {
        games,
        threads,
        grain,
        runs,
        seconds,
        seed,
    } = *spec;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()?;
    let mut env = VecEnv::new(*rules, games, seed)?;
    let grain = grain.unwrap_or_else(|| default_grain(games, threads));
    env.set_grain(grain);
    let (runs_sps, runs_gps, shares) = pool.install(|| {
        // Steps (of the whole batch) per run, calibrated so that a run lasts about `seconds`.
        let mut steps = 1u64;
        loop {
            let t = Instant::now();
            run(&mut env, steps);
            let dt = t.elapsed().as_secs_f64();
            if dt > 0.05 {
                steps = ((steps as f64) * seconds / dt).max(1.0) as u64;
                break;
            }
            steps *= 4;
        }
        let (mut sps, mut gps, mut share) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..runs.max(1) {
            let cpu = cpu_seconds();
            let t = Instant::now();
            let finished = run(&mut env, steps);
            let dt = t.elapsed().as_secs_f64();
            sps.push((steps * games as u64) as f64 / dt);
            gps.push(finished as f64 / dt);
            if let (Some(a), Some(b)) = (cpu, cpu_seconds()) {
                share.push((b - a) / (dt * threads as f64));
            }
        }
        (sps, gps, share)
    });
    Ok(EnvBench {
        rules: rules.describe(),
        games,
        threads,
        grain,
        steps_per_sec: median(&runs_sps),
        games_per_sec: median(&runs_gps),
        runs: runs_sps,
        seconds_per_run: seconds,
        cpu_share: (!shares.is_empty()).then(|| median(&shares)),
    })
}

/// CPU time of every thread of this process so far, in seconds (Linux only: the scheduler's
/// per-thread run time in `/proc/self/task/*/schedstat`).
fn cpu_seconds() -> Option<f64> {
    let mut ns = 0u64;
    for task in std::fs::read_dir("/proc/self/task").ok()? {
        let stat = std::fs::read_to_string(task.ok()?.path().join("schedstat")).ok()?;
        ns += stat.split_whitespace().next()?.parse::<u64>().ok()?;
    }
    Some(ns as f64 * 1e-9)
}

/// A piece size that gives each thread a few pieces to balance, but not pieces so small that
/// the fork-join overhead shows.
pub fn default_grain(games: usize, threads: usize) -> usize {
    games.div_ceil(4 * threads.max(1)).clamp(256, 8192)
}

/// `steps` random steps of the batch; returns the number of games that finished.
fn run(env: &mut VecEnv, steps: u64) -> u64 {
    let mut finished = 0;
    for _ in 0..steps {
        env.step_random();
        finished += env.done().iter().filter(|&&d| d).count() as u64;
    }
    finished
}
