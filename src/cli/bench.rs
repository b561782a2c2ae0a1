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
    Train(BenchTrainArgs),
    /// The same training steps from the same weights on a device and on the CPU: whether their
    /// losses, weights and outputs agree (exit code 2 where they do not).
    #[cfg(feature = "train")]
    Compare(BenchCompareArgs),
}

#[cfg(feature = "train")]
#[derive(Debug, Args)]
pub struct BenchCompareArgs {
    /// The device compared with the CPU: wgpu (a build with the `wgpu` feature) or cuda.
    #[arg(long, default_value = "wgpu")]
    device: String,
    /// Width of the hidden layers.
    #[arg(long, default_value_t = 128)]
    hidden: usize,
    /// Hidden layers.
    #[arg(long, default_value_t = 3)]
    layers: usize,
    /// Positions in the batch.
    #[arg(long, default_value_t = 512)]
    batch: usize,
    /// AdamW steps.
    #[arg(long, default_value_t = 5)]
    steps: usize,
    /// Hidden-layer nonlinearity: tanh (smooth, so the weights compare closely), relu, gelu or
    /// silu. With relu a unit whose input rounds to the other side of zero on one device can move a
    /// weight by a whole learning rate; the outputs still agree.
    #[arg(long, default_value = "tanh", value_parser = parse_activation)]
    activation: crate::nn::Activation,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

#[cfg(feature = "train")]
#[derive(Debug, Args)]
pub struct BenchTrainArgs {
    /// The run's TOML config (see configs/); nothing of its run is touched.
    #[arg(long, value_name = "FILE")]
    config: std::path::PathBuf,
    /// Override a config key, e.g. `--set network.hidden=1024` (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    sets: Vec<String>,
    /// The device: cpu, wgpu (a build with the `wgpu` feature) or cuda (with `cuda`).
    #[arg(long, default_value = "cpu")]
    device: String,
    /// Iterations timed.
    #[arg(long, default_value_t = 3)]
    iterations: u32,
    /// Iterations run first and left out of the medians (shader compilation, autotuning).
    #[arg(long, default_value_t = 1)]
    warmup: u32,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
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
        BenchCommand::Train(a) => train(a),
        #[cfg(feature = "train")]
        BenchCommand::Compare(a) => compare(a),
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

/// `kalaha bench train`.
#[cfg(feature = "train")]
fn train(a: BenchTrainArgs) -> anyhow::Result<()> {
    use crate::train::TrainConfig;
    use crate::train::bench::{TrainBenchSpec, bench_train};
    let cfg = TrainConfig::load(&a.config, &a.sets)?;
    let spec = TrainBenchSpec {
        device: a.device,
        iterations: a.iterations,
        warmup: a.warmup,
    };
    let r = bench_train(&cfg, &spec)?;
    if a.json {
        return emit_json(&r);
    }
    emit(&format!(
        "{} on {}: {}x{} network ({} parameters): training {:.0} samples/s (batch {}, {} steps an \
         iteration), self-play {:.0} positions/s, {:.0} evals/s ({} games, {} simulations); \
         median of {} iterations of {:.1} s after {} of warm-up\n",
        r.run,
        r.device,
        r.layers,
        r.hidden,
        r.parameters,
        r.samples_per_sec,
        r.batch_size,
        r.steps_per_iteration,
        r.positions_per_sec,
        r.evals_per_sec,
        r.games,
        r.simulations,
        r.runs.len(),
        r.seconds_per_iteration,
        r.warmup_runs.len()
    ))
}

/// An activation as configs spell it (`relu`, `gelu`, `silu`, `tanh`).
#[cfg(feature = "train")]
fn parse_activation(s: &str) -> Result<crate::nn::Activation, String> {
    serde_json::from_value(serde_json::Value::String(s.to_string()))
        .map_err(|_| format!("unknown activation `{s}` (relu, gelu, silu or tanh)"))
}

/// `kalaha bench compare`.
#[cfg(feature = "train")]
fn compare(a: BenchCompareArgs) -> anyhow::Result<()> {
    use crate::train::bench::{CompareSpec, compare_devices};
    let spec = CompareSpec {
        hidden: a.hidden,
        layers: a.layers,
        batch: a.batch,
        steps: a.steps,
        activation: a.activation,
        ..CompareSpec::default()
    };
    let c = compare_devices("cpu", &a.device, &spec)?;
    if a.json {
        emit_json(&c)?;
    } else {
        emit(&format!(
            "cpu against {}: {} AdamW steps of a {}x{} {} network on {} positions: losses differ by \
             up to {:.1e} (relative; tolerance {:.0e}), weights by {:.1e} (tolerance {:.0e}; the \
             steps moved them by up to {:.1e}), outputs by {:.1e} (tolerance {:.0e})\n",
            a.device,
            c.losses[0].len(),
            c.layers,
            c.hidden,
            c.activation.name(),
            c.batch,
            c.loss_difference,
            c.tolerances[0],
            c.weight_difference,
            c.tolerances[1],
            c.weight_change,
            c.output_difference,
            c.tolerances[2]
        ))?;
    }
    anyhow::ensure!(
        c.within_tolerance,
        "cpu and {} differ beyond the tolerances",
        a.device
    );
    Ok(())
}
