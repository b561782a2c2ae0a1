//! `kalaha bench ...`: throughput benchmarks.

use clap::{Args, Subcommand};

use super::{RuleArgs, emit, emit_json};
use crate::bench::bench_rules;
use crate::env::bench::{EnvBenchSpec, bench_env};
use crate::env::rng::stream;

#[derive(Debug, Subcommand)]
pub enum BenchCommand {
    /// Single-threaded random playouts through the rules core: moves per second.
    Rules(BenchRulesArgs),
    /// Random legal steps of a batch of games through the vectorised environment: steps per second.
    Env(BenchEnvArgs),
    /// Full analyses (every move's exact value) of positions from random games: positions per second.
    Solver(super::bench_solver::BenchSolverArgs),
    /// Building the endgame database in memory by retrograde analysis: boards per second.
    Endgame(super::bench_solver::BenchEndgameArgs),
    /// A few training iterations of a config on a device: self-play positions and training-step
    /// samples per second.
    #[cfg(feature = "train")]
    Train(super::bench_train::BenchTrainArgs),
    /// The same training steps from the same weights on a device and on the CPU: whether their
    /// losses, weights and outputs agree (exit code 2 where they do not).
    #[cfg(feature = "train")]
    Compare(super::bench_train::BenchCompareArgs),
}

#[derive(Debug, Args)]
pub struct BenchEnvArgs {
    #[command(flatten)]
    rules: RuleArgs,
    /// Games stepped together.
    #[arg(long, default_value_t = 4096)]
    games: usize,
    /// Threads of the rayon pool.
    #[arg(long, default_value_t = 2)]
    threads: usize,
    /// Games per parallel piece (default: a quarter of a thread's share, 256 to 8192).
    #[arg(long)]
    grain: Option<usize>,
    #[command(flatten)]
    timing: TimingArgs,
}

#[derive(Debug, Args)]
pub struct BenchRulesArgs {
    #[command(flatten)]
    rules: RuleArgs,
    #[command(flatten)]
    timing: TimingArgs,
}

/// The timing flags every throughput benchmark shares.
#[derive(Debug, Args)]
pub struct TimingArgs {
    /// Timed runs; the median is reported.
    #[arg(long, default_value_t = 5)]
    runs: usize,
    /// Seconds per run.
    #[arg(long, default_value_t = 1.0)]
    seconds: f64,
    /// Seed of the random moves.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

impl TimingArgs {
    /// Refuses impossible timings.
    fn check(&self) -> anyhow::Result<()> {
        anyhow::ensure!(self.runs >= 1, "--runs must be at least 1");
        anyhow::ensure!(
            self.seconds > 0.0 && self.seconds.is_finite(),
            "--seconds must be a positive number"
        );
        Ok(())
    }
}

pub fn run(cmd: BenchCommand) -> anyhow::Result<()> {
    match cmd {
        BenchCommand::Solver(a) => super::bench_solver::solver(a),
        BenchCommand::Endgame(a) => super::bench_solver::endgame(a),
        #[cfg(feature = "train")]
        BenchCommand::Train(a) => super::bench_train::train(a),
        #[cfg(feature = "train")]
        BenchCommand::Compare(a) => super::bench_train::compare(a),
        BenchCommand::Env(a) => {
            let rules = a.rules.rules()?;
            let t = &a.timing;
            t.check()?;
            anyhow::ensure!(a.games >= 1, "--games must be at least 1");
            anyhow::ensure!(a.threads >= 1, "--threads must be at least 1");
            anyhow::ensure!(a.grain != Some(0), "--grain must be at least 1");
            let spec = EnvBenchSpec {
                games: a.games,
                threads: a.threads,
                grain: a.grain,
                runs: t.runs,
                seconds: t.seconds,
                seed: t.seed,
            };
            let r = bench_env(&rules, &spec)?;
            if t.json {
                emit_json(&r)
            } else {
                emit(&format!(
                    "{}: {:.1} M steps/s, {:.2} M games/s ({} games, {} threads, pieces of {}; median of {} runs of {:.1} s{})\n",
                    r.rules,
                    r.steps_per_sec / 1e6,
                    r.games_per_sec / 1e6,
                    r.games,
                    r.threads,
                    r.grain,
                    r.runs.len(),
                    r.seconds_per_run,
                    r.cpu_share
                        .map(|s| format!("; cpu share {:.0}%", 100.0 * s))
                        .unwrap_or_default()
                ))
            }
        }
        BenchCommand::Rules(a) => {
            let rules = a.rules.rules()?;
            let t = &a.timing;
            t.check()?;
            let r = bench_rules(&rules, t.runs, t.seconds, &mut stream(t.seed, 0));
            if t.json {
                emit_json(&r)
            } else {
                emit(&format!(
                    "{}: {:.1} M moves/s, {:.2} M games/s (one thread, {} games interleaved; \
                     median of {} runs of {:.1} s)\none game at a time: {:.1} M moves/s\n",
                    r.rules,
                    r.steps_per_sec / 1e6,
                    r.games_per_sec / 1e6,
                    r.lanes,
                    r.runs.len(),
                    r.seconds_per_run,
                    r.single_game_steps_per_sec / 1e6
                ))
            }
        }
    }
}
