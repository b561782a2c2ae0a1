//! The training loop on a device: its throughput (`kalaha bench train`), and whether its training
//! steps agree with another device's (`kalaha bench compare`).
//!
//! Throughput: the real trainer runs a few iterations of a config in a scratch folder, and the
//! figures are its own per-iteration rates (self-play positions a second, training-step samples a
//! second).
//!
//! Nothing of the config's run is touched: checkpoints and logs go to a scratch folder that is
//! removed afterwards, evaluations, the solver's judge set and the held-out sets are off, and the
//! replay buffer's `min_size` is cut to one iteration's positions so that every timed iteration
//! takes its gradient steps. The first `warmup` iterations (shader compilation and autotuning on a
//! GPU, the first fill of the buffer) are reported apart and left out of the medians.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use anyhow::{Context, bail};
use burn::module::{Module, ModuleVisitor, Param};
use burn::optim::{AdamWConfig, GradientsParams};
use burn::prelude::*;
use burn::tensor::activation::log_softmax;
use rand::RngExt;
use serde::Serialize;

use super::{TrainConfig, Trainer, device};
use crate::nn::{Net, NetConfig};
use crate::rules::{Move, Position, Rules, select_bit};

/// What to measure.
#[derive(Clone, Debug)]
pub struct TrainBenchSpec {
    /// The device to train on, as `run.device` names it (`cpu`, `wgpu`, `cuda`).
    pub device: String,
    /// Iterations timed (after the warm-up).
    pub iterations: u32,
    /// Iterations run first and left out of the medians.
    pub warmup: u32,
}

/// One iteration's rates, as the trainer measured them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct IterationRates {
    /// New positions a second during the iteration's self-play (labelled positions included).
    pub positions_per_sec: f64,
    /// Network evaluations a second during self-play.
    pub evals_per_sec: f64,
    /// Samples a second through the gradient steps (steps x batch size / their seconds).
    pub samples_per_sec: f64,
    /// Seconds of the whole iteration (self-play, gradient steps, logs).
    pub seconds: f64,
}

/// The result of [`bench_train`].
#[derive(Clone, Debug, Serialize)]
pub struct TrainBench {
    /// The device trained on (`run.device`).
    pub device: String,
    /// The run's name in its config.
    pub run: String,
    /// Width of the hidden layers.
    pub hidden: usize,
    /// Hidden layers.
    pub layers: usize,
    /// Trainable parameters of the network.
    pub parameters: usize,
    /// Positions per gradient step.
    pub batch_size: usize,
    /// Gradient steps per iteration.
    pub steps_per_iteration: u32,
    /// New self-play positions per iteration.
    pub positions_per_iteration: usize,
    /// Games played at once (the batch of each network call in self-play).
    pub games: usize,
    /// Search simulations per move.
    pub simulations: usize,
    /// Median over the timed iterations: training-step samples a second.
    pub samples_per_sec: f64,
    /// Median over the timed iterations: self-play positions a second.
    pub positions_per_sec: f64,
    /// Median over the timed iterations: network evaluations a second in self-play.
    pub evals_per_sec: f64,
    /// Median over the timed iterations: seconds an iteration.
    pub seconds_per_iteration: f64,
    /// The warm-up iterations, in order.
    pub warmup_runs: Vec<IterationRates>,
    /// The timed iterations, in order.
    pub runs: Vec<IterationRates>,
    /// Seconds from the start to the trainer's first iteration (device, database, network).
    pub setup_seconds: f64,
    /// Seconds of the whole measurement, the final checkpoint into the scratch folder included.
    pub seconds: f64,
}

/// Runs `spec.warmup + spec.iterations` iterations of `cfg` on `spec.device` and reports the
/// trainer's rates (see the module text for what is changed in the config).
pub fn bench_train(cfg: &TrainConfig, spec: &TrainBenchSpec) -> anyhow::Result<TrainBench> {
    if spec.iterations == 0 {
        bail!("at least one timed iteration is needed");
    }
    let total = spec
        .warmup
        .checked_add(spec.iterations)
        .filter(|&t| t < u32::MAX)
        .context("too many iterations")?;
    let started = Instant::now();
    // Before anything is built: a device that is missing or not compiled in fails first.
    device(&spec.device)?;
    let scratch = Scratch::new(&spec.device)?;
    let mut cfg = cfg.clone();
    cfg.run.device = spec.device.clone();
    cfg.run.checkpoint_dir = scratch.0.join("checkpoints");
    cfg.run.experiment_dir = scratch.0.join("experiments");
    // One more iteration than run, so that the last one (which always evaluates) never comes.
    cfg.run.iterations = total + 1;
    cfg.run.checkpoint_every = total + 1;
    cfg.eval.every = 0;
    cfg.eval.solver_positions = 0;
    cfg.eval.heldout_positions = 0;
    cfg.replay.min_size = cfg
        .replay
        .min_size
        .min(cfg.selfplay.positions_per_iteration);
    let rules = cfg.rules()?;
    let parameters =
        Net::new(&cfg.network, rules.pits(), &burn::prelude::Device::flex()).num_params();

    let mut trainer = Trainer::new(cfg.clone(), false)?;
    let stop = AtomicBool::new(false);
    let mut rates = Vec::new();
    let mut last = Instant::now();
    let setup_seconds = started.elapsed().as_secs_f64();
    trainer.run(&stop, &mut |p| {
        let now = Instant::now();
        let seconds = (now - last).as_secs_f64();
        last = now;
        rates.push(IterationRates {
            positions_per_sec: p.positions_per_sec,
            evals_per_sec: p.evals_per_sec,
            samples_per_sec: p.samples_per_sec,
            seconds,
        });
        if p.iteration >= total {
            stop.store(true, Ordering::Relaxed);
        }
    })?;
    if rates.len() != total as usize {
        bail!(
            "the trainer stopped after {} of {total} iterations",
            rates.len()
        );
    }
    let runs = rates.split_off(spec.warmup as usize);
    if runs.iter().any(|r| r.samples_per_sec == 0.0) {
        bail!("a timed iteration took no gradient step (is optim.steps_per_iteration 0?)");
    }
    let median_of = |f: fn(&IterationRates) -> f64| {
        crate::bench::median(&runs.iter().map(f).collect::<Vec<_>>())
    };
    Ok(TrainBench {
        device: spec.device.clone(),
        run: cfg.run.name.clone(),
        hidden: cfg.network.hidden,
        layers: cfg.network.layers,
        parameters,
        batch_size: cfg.optim.batch_size,
        steps_per_iteration: cfg.optim.steps_per_iteration,
        positions_per_iteration: cfg.selfplay.positions_per_iteration,
        games: cfg.selfplay.games,
        simulations: cfg.search.simulations as usize,
        samples_per_sec: median_of(|r| r.samples_per_sec),
        positions_per_sec: median_of(|r| r.positions_per_sec),
        evals_per_sec: median_of(|r| r.evals_per_sec),
        seconds_per_iteration: median_of(|r| r.seconds),
        warmup_runs: rates,
        runs,
        setup_seconds,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// A scratch folder, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(device: &str) -> anyhow::Result<Scratch> {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let dir = std::env::temp_dir().join(format!(
            "kalaha-bench-train-{}-{device}-{nanos}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create {}", dir.display()))?;
        Ok(Scratch(dir))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Largest allowed difference of a loss between two devices, relative to the loss (at least 1):
/// f32 sums taken in another order.
pub const LOSS_TOL: f64 = 1e-4;
/// Largest allowed difference of a weight after the steps, as a share of the learning rate: AdamW
/// moves a weight by about the learning rate a step whatever its gradient's size, so a gradient
/// that rounds differently moves it by a different share of it.
pub const WEIGHT_TOL_LR: f64 = 0.05;
/// Largest allowed difference of an output (logits, value, margin) after the steps.
pub const OUTPUT_TOL: f64 = 1e-3;

/// What [`compare_devices`] trains.
#[derive(Clone, Debug)]
pub struct CompareSpec {
    /// Width of the hidden layers.
    pub hidden: usize,
    /// Hidden layers.
    pub layers: usize,
    /// Positions in the batch (from random Kalah(6,4) games).
    pub batch: usize,
    /// AdamW steps.
    pub steps: usize,
    /// Learning rate.
    pub lr: f64,
    /// Seed of the weights and the batch.
    pub seed: u64,
    /// Hidden-layer nonlinearity. A smooth one by default: at ReLU's kink a pre-activation that
    /// rounds to either side of zero switches a unit on one device and off on the other, and AdamW
    /// turns the one position's gradient that this adds or removes into a whole step of a
    /// weight (a rarely lit one-hot input's), so weights then differ by the learning rate
    /// without either device computing anything wrong.
    pub activation: crate::nn::Activation,
    /// A relative error put into the second device's starting weights (each weight times
    /// `1 + perturb`; 0, the default: none): a device that computes a little wrong, which the
    /// comparison must catch (`kalaha bench compare --perturb`, the check that the check works).
    pub perturb: f64,
}

impl Default for CompareSpec {
    fn default() -> Self {
        CompareSpec {
            hidden: 128,
            layers: 3,
            batch: 512,
            steps: 5,
            lr: 1e-3,
            seed: 7,
            activation: crate::nn::Activation::Tanh,
            perturb: 0.0,
        }
    }
}

/// The result of [`compare_devices`].
#[derive(Clone, Debug, Serialize)]
pub struct DeviceComparison {
    /// The two devices, as `run.device` names them.
    pub devices: [String; 2],
    /// Width of the hidden layers.
    pub hidden: usize,
    /// Hidden layers.
    pub layers: usize,
    /// Positions in the batch.
    pub batch: usize,
    /// Learning rate.
    pub lr: f64,
    /// Hidden-layer nonlinearity.
    pub activation: crate::nn::Activation,
    /// Each device's loss before each step.
    pub losses: [Vec<f64>; 2],
    /// The largest difference of a step's loss, relative to the loss (at least 1).
    pub loss_difference: f64,
    /// Float weights compared.
    pub weights: usize,
    /// The largest difference of a weight after the steps.
    pub weight_difference: f64,
    /// The largest change of a weight by the steps (on the first device): what the differences
    /// are small against.
    pub weight_change: f64,
    /// The largest difference of an output (logits, value, margin) on other positions after the
    /// steps.
    pub output_difference: f64,
    /// The tolerances: loss (relative), weight, output.
    pub tolerances: [f64; 3],
    /// Whether every difference is within its tolerance.
    pub within_tolerance: bool,
}

/// The same AdamW steps (the trainer's policy cross-entropy, value and margin losses) from the
/// same weights on the same batch, on devices `a` and `b`: their losses, weights and outputs
/// compared.
pub fn compare_devices(a: &str, b: &str, spec: &CompareSpec) -> anyhow::Result<DeviceComparison> {
    if spec.hidden == 0 || spec.layers == 0 || spec.batch == 0 || spec.steps == 0 {
        bail!("the network, the batch and the steps must not be empty");
    }
    if !(spec.lr > 0.0 && spec.lr.is_finite()) {
        bail!("the learning rate must be a positive number");
    }
    if spec.perturb.is_nan() || spec.perturb.abs() > 1.0 {
        bail!("the perturbation must be from -1 to 1");
    }
    let (da, db) = (device(a)?, device(b)?);
    let cfg = NetConfig {
        hidden: spec.hidden,
        layers: spec.layers,
        activation: spec.activation,
        input: crate::nn::Input::Onehot,
        block: crate::nn::Block::Plain,
        moves: false,
        margin_bins: 0,
    };
    let rules = Rules::kalah64();
    let train_a = da.clone().autodiff();
    train_a.seed(spec.seed);
    let start = Net::new(&cfg, rules.pits(), &train_a);
    let w0 = weights(&start);
    // `fork`, not `to_device`: the copy gets a graph of its own (a moved one stays tied to `a`'s).
    let on_b = start.clone().fork(&db.clone().autodiff());
    let on_b = match spec.perturb {
        0.0 => on_b,
        e => on_b.map(&mut Scale(1.0 + e)),
    };
    let batch = Batch::random(&rules, spec.batch, crate::env::rng::derive(spec.seed, 0));
    let (losses_a, net_a) = train_steps(start, &batch, &train_a, spec);
    let (losses_b, net_b) = train_steps(on_b, &batch, &db.clone().autodiff(), spec);
    let loss_difference = losses_a
        .iter()
        .zip(&losses_b)
        .map(|(x, y)| (x - y).abs() / x.abs().max(1.0))
        .fold(0.0, f64::max);
    let (wa, wb) = (weights(&net_a), weights(&net_b));
    let probe = Batch::random(&rules, 256, crate::env::rng::derive(spec.seed, 1)).positions;
    let outputs = |net: &Net, d: &Device| {
        let out = net.valid().forward(net.input().batch(&probe, d));
        [out.logits, out.value, out.margin].map(floats)
    };
    let (oa, ob) = (outputs(&net_a, &da), outputs(&net_b, &db));
    let output_difference = oa
        .iter()
        .zip(&ob)
        .map(|(x, y)| max_diff(x, y))
        .fold(0.0, f64::max);
    let weight_difference = max_diff(&wa, &wb);
    let tolerances = [LOSS_TOL, WEIGHT_TOL_LR * spec.lr, OUTPUT_TOL];
    let within_tolerance = loss_difference <= tolerances[0]
        && weight_difference <= tolerances[1]
        && output_difference <= tolerances[2];
    Ok(DeviceComparison {
        devices: [a.to_string(), b.to_string()],
        hidden: spec.hidden,
        layers: spec.layers,
        batch: spec.batch,
        lr: spec.lr,
        activation: spec.activation,
        losses: [losses_a, losses_b],
        loss_difference,
        weights: wa.len(),
        weight_difference,
        weight_change: max_diff(&wa, &w0),
        output_difference,
        tolerances,
        within_tolerance,
    })
}

/// Multiplies every float weight by a factor.
struct Scale(f64);

impl burn::module::ModuleMapper for Scale {
    fn map_float<const D: usize>(&mut self, param: Param<Tensor<D>>) -> Param<Tensor<D>> {
        let k = self.0;
        // A new leaf of the graph, as the weights it replaces are.
        param.map(|w| w.mul_scalar(k).detach().require_grad())
    }
}

/// Every float weight of a module, in order, flattened.
struct Weights(Vec<f32>);

impl ModuleVisitor for Weights {
    fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
        self.0.extend(floats(param.val()));
    }
}

fn weights(net: &Net) -> Vec<f32> {
    let mut w = Weights(Vec::new());
    net.visit(&mut w);
    w.0
}

fn floats<const D: usize>(t: Tensor<D>) -> Vec<f32> {
    t.into_data().iter::<f32>().collect()
}

/// The largest absolute difference of two rows (infinite if their lengths differ).
fn max_diff(a: &[f32], b: &[f32]) -> f64 {
    if a.len() != b.len() {
        return f64::INFINITY;
    }
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs() as f64)
        .fold(0.0, f64::max)
}

/// A batch of positions from random games, with uniform policy targets over the legal moves and
/// random value and margin targets, as host rows.
struct Batch {
    positions: Vec<Position>,
    /// `[b, a]`.
    policy: Vec<f32>,
    /// 0 for legal moves, -1e9 for the others, `[b, a]`.
    mask: Vec<f32>,
    value: Vec<f32>,
    margin: Vec<f32>,
}

impl Batch {
    fn random(rules: &Rules, n: usize, seed: u64) -> Batch {
        let mut rng = crate::env::rng::stream(seed, 0);
        let pits = rules.pits();
        let mut positions = Vec::with_capacity(n);
        let mut pos = Position::start(rules);
        while positions.len() < n {
            if pos.is_over() {
                pos = Position::start(rules);
            }
            positions.push(pos);
            let nonempty = pos.nonempty_pits();
            let k = rng.random_range(0..nonempty.count_ones());
            pos.play_index_unchecked(select_bit(nonempty, k));
        }
        let (mut policy, mut mask) = (Vec::new(), Vec::new());
        for p in &positions {
            let legal = p.legal_moves();
            let ok: Vec<bool> = (0..=pits)
                .map(|i| legal.contains(Move::from_action(i, pits)))
                .collect();
            let count = ok.iter().filter(|&&o| o).count().max(1) as f32;
            for o in ok {
                policy.push(if o { 1.0 / count } else { 0.0 });
                mask.push(if o { 0.0 } else { -1e9 });
            }
        }
        let value = (0..n).map(|_| rng.random_range(-1..=1) as f32).collect();
        let margin = (0..n).map(|_| rng.random_range(-0.5..0.5)).collect();
        Batch {
            positions,
            policy,
            mask,
            value,
            margin,
        }
    }
}

/// `spec.steps` AdamW steps of `net` on `b` on the autodiff device `d`: the loss before each
/// step and the trained network.
fn train_steps(mut net: Net, b: &Batch, d: &Device, spec: &CompareSpec) -> (Vec<f64>, Net) {
    let n = b.positions.len();
    let a = b.policy.len() / n;
    let mut optim = AdamWConfig::new().with_weight_decay(1e-4).init();
    let rows =
        |v: &[f32], cols: usize| Tensor::<2>::from_data(TensorData::new(v.to_vec(), [n, cols]), d);
    let mut losses = Vec::with_capacity(spec.steps);
    for _ in 0..spec.steps {
        let out = net.forward(net.input().batch(&b.positions, d));
        let logp = log_softmax(out.logits + rows(&b.mask, a), 1);
        let policy = (rows(&b.policy, a) * logp).sum_dim(1).neg().mean();
        let value = (out.value - rows(&b.value, 1)).powi_scalar(2).mean();
        let margin = (out.margin - rows(&b.margin, 1)).powi_scalar(2).mean();
        let loss = policy + value + margin.mul_scalar(8.0);
        losses.push(loss.clone().inner().into_scalar::<f32>() as f64);
        let grads = GradientsParams::from_grads(loss.backward(), &net);
        net = optim.step(spec.lr, net, grads);
    }
    (losses, net)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cpu_agrees_with_itself() {
        let spec = CompareSpec {
            hidden: 16,
            layers: 2,
            batch: 64,
            steps: 3,
            ..CompareSpec::default()
        };
        let c = compare_devices("cpu", "cpu", &spec).unwrap();
        assert!(c.within_tolerance, "{c:?}");
        assert_eq!(c.losses[0].len(), 3);
        assert!(c.weight_change > 0.0 && c.weights > 0);
        let empty = CompareSpec { steps: 0, ..spec };
        assert!(compare_devices("cpu", "cpu", &empty).is_err());
        assert!(compare_devices("cpu", "tpu", &CompareSpec::default()).is_err());
    }

    #[test]
    fn the_smoke_config_is_measured_on_the_cpu() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/smoke.toml");
        let cfg = TrainConfig::load(&path, &[]).unwrap();
        let spec = TrainBenchSpec {
            device: "cpu".into(),
            iterations: 2,
            warmup: 1,
        };
        let r = bench_train(&cfg, &spec).unwrap();
        assert_eq!((r.runs.len(), r.warmup_runs.len()), (2, 1));
        assert!(r.samples_per_sec > 0.0 && r.positions_per_sec > 0.0);
        assert_eq!((r.hidden, r.layers, r.batch_size), (32, 2, 64));
        assert!(r.parameters > 0);
        let zero = TrainBenchSpec {
            iterations: 0,
            ..spec
        };
        assert!(bench_train(&cfg, &zero).is_err());
    }
}
