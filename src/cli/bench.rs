//! `kalaha bench ...`: throughput benchmarks.

use clap::{Args, Subcommand};

use super::{RuleArgs, emit, emit_json};
use crate::bench::bench_rules;

#[derive(Debug, Subcommand)]
pub enum BenchCommand {
    /// Single-threaded random playouts through the rules core: moves per second.
    Rules(BenchRulesArgs),
}

#[derive(Debug, Args)]
pub struct BenchRulesArgs {
    #[command(flatten)]
    rules: RuleArgs,
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

pub fn run(cmd: BenchCommand) -> anyhow::Result<()> {
    match cmd {
        BenchCommand::Rules(a) => {
            let rules = a.rules.rules()?;
            anyhow::ensure!(a.seconds > 0.0 && a.seconds.is_finite(), "--seconds must be a positive number");
            let r = bench_rules(&rules, a.runs, a.seconds, a.seed);
            if a.json {
                emit_json(&r)
            } else {
                emit(&format!(
                    "{}: {:.1} M moves/s, {:.2} M games/s (median of {} runs of {:.1} s, one thread)\n",
                    r.rules,
                    r.steps_per_sec / 1e6,
                    r.games_per_sec / 1e6,
                    r.runs.len(),
                    r.seconds_per_run
                ))
            }
        }
    }
}
