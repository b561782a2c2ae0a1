//! `kalaha bench train` and `kalaha bench compare`: the training side's benchmarks (feature
//! `train`): a config's training and self-play rates on a device, and a device's training steps
//! against the CPU's.

use clap::Args;

use super::{emit, emit_json};

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
    /// Multiply the second device's starting weights by 1 + X (-1 to 1; 0, the default: none):
    /// a device that computes a little wrong, which the comparison must report (exit 2). For
    /// checking the check.
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
    perturb: f64,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Args)]
pub struct BenchTrainArgs {
    /// The run's TOML config (see configs/); nothing of its run is touched.
    #[arg(long, value_name = "FILE")]
    config: std::path::PathBuf,
    /// Override a config key, e.g. `--set network.hidden=1024` (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    sets: Vec<String>,
    /// The stage of a recipe to measure (a config of `[[stage]]`s needs one).
    #[arg(long, value_name = "NAME")]
    stage: Option<String>,
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

/// `kalaha bench train`.
pub(super) fn train(a: BenchTrainArgs) -> anyhow::Result<()> {
    use crate::train::Recipe;
    use crate::train::bench::{TrainBenchSpec, bench_train};
    let cfg = Recipe::load(&a.config, &a.sets)?.stage(a.stage.as_deref())?;
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
fn parse_activation(s: &str) -> Result<crate::nn::Activation, String> {
    serde_json::from_value(serde_json::Value::String(s.to_string()))
        .map_err(|_| format!("unknown activation `{s}` (relu, gelu, silu or tanh)"))
}

/// `kalaha bench compare`.
pub(super) fn compare(a: BenchCompareArgs) -> anyhow::Result<()> {
    use crate::train::bench::{CompareSpec, compare_devices};
    let spec = CompareSpec {
        hidden: a.hidden,
        layers: a.layers,
        batch: a.batch,
        steps: a.steps,
        activation: a.activation,
        perturb: a.perturb,
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
