//! Self-play training: Gumbel-search self-play into a replay buffer, AdamW steps on the network,
//! periodic evaluation, TensorBoard logs and checkpoints.
//!
//! One iteration: play until `selfplay.positions_per_iteration` new positions are recorded (every
//! game of the batch searches with the current network; the leaves of all games share one forward
//! pass per simulation step), then take `optim.steps_per_iteration` gradient steps on uniform
//! batches from the buffer. Checkpoints keep the replay buffer and the games in flight, and every
//! random stream is drawn from the run's seed and the iteration, so a resumed run goes on as the
//! uninterrupted one would have.

pub mod bench;
pub mod checkpoint;
pub mod config;
pub mod distributed;
pub mod eval;
pub mod heldout;
pub mod judge;
pub mod label_file;
pub mod labelled;
pub mod selfplay;
pub mod state;
pub mod tb;

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use anyhow::{Context, bail};
use burn::optim::{AdamWConfig, GradientsParams, ModuleOptimizer};
use burn::prelude::*;
use burn::tensor::activation::log_softmax;
use rand::SeedableRng;
use rand::rngs::SmallRng;

use crate::nn::{Net, NetConfig, NetEvaluator};
use crate::rules::Rules;
pub use checkpoint::{Evaluation, Meta};
pub use config::TrainConfig;
use selfplay::{Replay, Sample, SelfPlay, SelfPlayStats};
use tb::TbLog;

/// The burn device a config names (`cpu`, `wgpu` or `cuda`), without autodiff.
pub fn device(name: &str) -> anyhow::Result<Device> {
    match name {
        "cpu" => Ok(Device::flex()),
        #[cfg(feature = "wgpu")]
        "wgpu" => {
            // The adapter is acquired once per process (burn refuses to initialise its runtime
            // twice), so that a machine without one gets an error here, not a panic at the first
            // tensor; which one it is goes to stderr (a software one, e.g. llvmpipe, is slower
            // than the CPU backend). CUBECL_WGPU_DEFAULT_DEVICE (e.g. `DiscreteGpu(1)`) picks
            // another adapter.
            static WGPU: std::sync::OnceLock<Result<Device, String>> = std::sync::OnceLock::new();
            WGPU.get_or_init(|| {
                let (device, setup) = Device::wgpu_options()
                    .init_with_setup()
                    .map_err(|e| e.to_string())?;
                let a = setup.adapter.get_info();
                eprintln!(
                    "kalaha: wgpu adapter: {} ({:?}, {:?}; {} {})",
                    a.name, a.backend, a.device_type, a.driver, a.driver_info
                );
                Ok(device)
            })
            .clone()
            .map_err(|e| {
                anyhow::anyhow!(
                    "run.device = \"wgpu\": no usable GPU adapter ({e}); it needs a Vulkan \
                     loader and driver (libvulkan.so.1 and the GPU's, or Mesa's lavapipe on the \
                     CPU), or an OpenGL one"
                )
            })
        }
        #[cfg(not(feature = "wgpu"))]
        "wgpu" => bail!("run.device = \"wgpu\" needs kalaha built with the `wgpu` feature"),
        #[cfg(feature = "cuda")]
        "cuda" => Ok(Device::cuda(0)),
        #[cfg(not(feature = "cuda"))]
        "cuda" => bail!("run.device = \"cuda\" needs kalaha built with the `cuda` feature"),
        other => bail!("run.device: unknown device '{other}' (expected cpu, wgpu or cuda)"),
    }
}

/// What the trainer reports after each iteration.
#[derive(Clone, Debug, Default)]
pub struct Progress {
    /// Iterations completed.
    pub iteration: u32,
    /// Iterations in the run.
    pub iterations: u32,
    /// A one-line summary of the iteration.
    pub message: String,
    /// New positions a second in the iteration's self-play (labelled positions included).
    pub positions_per_sec: f64,
    /// Network evaluations a second in the iteration's self-play.
    pub evals_per_sec: f64,
    /// Samples a second through the iteration's gradient steps (steps x batch / their seconds).
    pub samples_per_sec: f64,
}

/// Mean losses over an iteration's gradient steps.
#[derive(Clone, Copy, Debug, Default)]
struct Losses {
    policy: f64,
    value: f64,
    margin: f64,
    entropy: f64,
    /// The move head's loss (0 without one).
    moves: f64,
}

/// A training run in progress.
pub struct Trainer {
    cfg: TrainConfig,
    rules: Rules,
    device: Device,
    train_device: Device,
    model: Net,
    optim: ModuleOptimizer,
    selfplay: SelfPlay,
    /// Exact labels instead of self-play (`selfplay.labels = "exact"`).
    labeller: Option<labelled::Labeller>,
    replay: Replay,
    meta: Meta,
    checkpoint_dir: PathBuf,
    log: TbLog,
    /// Solved positions for judging, once built.
    judge: Option<judge::JudgeSet>,
    /// The judge set being loaded or solved on a thread of its own, so that training goes on
    /// meanwhile (solving a few hundred Kalah(6,4) positions takes minutes); evaluations before
    /// it is ready skip the solver, the last one waits for it.
    judge_build: Option<std::thread::JoinHandle<anyhow::Result<judge::JudgeSet>>>,
    /// The evaluation opponents, prepared once (a network or solver among them loaded at start).
    opponents: Vec<crate::bots::Player>,
    /// The held-out sets, once built (`eval.heldout_positions`).
    heldout: Vec<heldout::HeldoutSet>,
    /// The held-out sets being loaded or built on a thread of their own.
    heldout_build: Option<std::thread::JoinHandle<anyhow::Result<Vec<heldout::HeldoutSet>>>>,
    /// The iteration of the last checkpoint written in this session.
    saved: Option<u32>,
}

impl Trainer {
    /// Starts a run, or continues it from its checkpoint with `resume`.
    pub fn new(cfg: TrainConfig, resume: bool) -> anyhow::Result<Trainer> {
        cfg.validate()?;
        let rules = cfg.rules()?;
        let device = device(&cfg.run.device)?;
        let train_device = device.clone().autodiff();
        let checkpoint_dir = cfg.run.checkpoint_dir.join(&cfg.run.name);
        let start = start_or_resume(&cfg, &rules, &train_device, &checkpoint_dir, resume)?;
        let log_dir = cfg.run.experiment_dir.join(&cfg.run.name);
        std::fs::create_dir_all(&log_dir)
            .with_context(|| format!("cannot create {}", log_dir.display()))?;
        let log = TbLog::open(&log_dir);
        let judge_build = spawn_judge(&cfg, &rules);
        let (db, labeller) = data_sources(&cfg, &rules)?;
        // Self-play consults the database unless the run learns from labels alone.
        let oracle = db
            .clone()
            .filter(|_| cfg.selfplay.labels != config::Labels::Exact);
        let heldout_build = spawn_heldout(&cfg, &rules, db);
        let opponents = cfg.opponents()?;
        let mut trainer = Trainer {
            opponents,
            heldout: Vec::new(),
            heldout_build,
            labeller,
            selfplay: SelfPlay::new(
                &rules,
                cfg.selfplay.games,
                cfg.selfplay.opening_random_moves,
                cfg.run.seed ^ start.meta.iteration as u64,
                oracle,
                cfg.selfplay.targets,
            )?,
            replay: Replay::new(cfg.replay.capacity),
            cfg,
            rules,
            device,
            train_device,
            model: start.net,
            optim: start.optim,
            meta: start.meta,
            checkpoint_dir,
            log,
            judge: None,
            judge_build,
            saved: None,
        };
        if let Some(bytes) = start.state {
            trainer.load_state(&bytes).with_context(|| {
                format!(
                    "--resume: the run state of {} is unreadable",
                    trainer.checkpoint_dir.display()
                )
            })?;
        }
        Ok(trainer)
    }

    /// The replay buffer and the games in flight, as a checkpoint keeps them.
    fn state_bytes(&self) -> Vec<u8> {
        let mut w = state::Writer::new();
        self.replay.save(&mut w);
        self.selfplay.save(&mut w);
        w.finish()
    }

    fn load_state(&mut self, bytes: &[u8]) -> anyhow::Result<()> {
        let mut r = state::Reader::new(bytes, &self.rules)?;
        self.replay.load(&mut r)?;
        self.selfplay.load(&mut r)?;
        r.end()
    }

    /// The sidecar as it stands.
    pub fn meta(&self) -> &Meta {
        &self.meta
    }

    /// Where checkpoints go.
    pub fn checkpoint_dir(&self) -> &std::path::Path {
        &self.checkpoint_dir
    }

    /// Where the TensorBoard event file is.
    pub fn log_dir(&self) -> &std::path::Path {
        self.log.dir()
    }

    /// The learning rate at gradient step `step`: linear warm-up, then cosine decay to `lr_min`.
    fn lr(&self, step: u64) -> f64 {
        let o = &self.cfg.optim;
        let total = (self.cfg.run.iterations as u64 * o.steps_per_iteration as u64).max(1);
        if step < o.warmup_steps as u64 {
            return o.lr * (step + 1) as f64 / o.warmup_steps as f64;
        }
        let t = ((step - o.warmup_steps as u64) as f64
            / (total.saturating_sub(o.warmup_steps as u64)).max(1) as f64)
            .min(1.0);
        o.lr_min + 0.5 * (o.lr - o.lr_min) * (1.0 + (std::f64::consts::PI * t).cos())
    }

    /// Runs iterations until the configured count or until `stop` is set, checkpointing on the
    /// way and at the end.
    pub fn run(
        &mut self,
        stop: &AtomicBool,
        on_progress: &mut dyn FnMut(&Progress),
    ) -> anyhow::Result<()> {
        while self.meta.iteration < self.cfg.run.iterations {
            if stop.load(Ordering::Relaxed) {
                break;
            }
            let t = Instant::now();
            let seed = self.iteration_seed();
            let (st, evaluated) = self.generate(seed, stop);
            let p = self.finish_iteration(&st, evaluated, t.elapsed().as_secs_f64(), stop)?;
            on_progress(&p);
        }
        self.finish()
    }

    /// Ends a run: a checkpoint of where it stands unless the last iteration wrote one, and the
    /// TensorBoard log flushed.
    pub fn finish(&mut self) -> anyhow::Result<()> {
        if self.saved != Some(self.meta.iteration) {
            self.save()?;
        }
        self.log.flush();
        Ok(())
    }

    /// The seed of the next iteration's random streams.
    fn iteration_seed(&self) -> u64 {
        let it = self.meta.iteration + 1;
        self.cfg.run.seed ^ (it as u64).wrapping_mul(0xD6E8_FEB8_6659_FD93)
    }

    /// Ends an iteration whose new samples are in the replay buffer (`st` counts them, made with
    /// `evaluated` network evaluations in `play_secs` seconds): the gradient steps, the logs, an
    /// evaluation and a checkpoint when due.
    pub fn finish_iteration(
        &mut self,
        st: &SelfPlayStats,
        evaluated: u64,
        play_secs: f64,
        stop: &AtomicBool,
    ) -> anyhow::Result<Progress> {
        let started = Instant::now();
        let (msg, rates) = self.iteration(st, evaluated, play_secs, stop)?;
        self.meta.seconds += play_secs + started.elapsed().as_secs_f64();
        let it = self.meta.iteration;
        let iterations = self.cfg.run.iterations;
        let last = it == iterations || stop.load(Ordering::Relaxed);
        if it.is_multiple_of(self.cfg.run.checkpoint_every) || last {
            self.save()?;
        }
        Ok(Progress {
            iteration: it,
            iterations,
            message: msg,
            positions_per_sec: rates[0],
            evals_per_sec: rates[1],
            samples_per_sec: rates[2],
        })
    }

    /// Writes a checkpoint now.
    pub fn save(&mut self) -> anyhow::Result<()> {
        let state = self.state_bytes();
        checkpoint::save(
            &self.checkpoint_dir,
            &self.model,
            &self.optim,
            &state,
            &mut self.meta,
        )?;
        self.saved = Some(self.meta.iteration);
        Ok(())
    }

    fn iteration(
        &mut self,
        st: &SelfPlayStats,
        evaluated: u64,
        sp_secs: f64,
        stop: &AtomicBool,
    ) -> anyhow::Result<(String, [f64; 3])> {
        let seed = self.iteration_seed();
        let sp_secs = sp_secs.max(1e-9);
        self.meta.positions += st.positions;
        self.meta.games += st.games;
        let t = Instant::now();
        let (losses, steps) = self.learn(seed, stop);
        let train_secs = t.elapsed().as_secs_f64().max(1e-9);
        self.meta.iteration += 1;
        let it = self.meta.iteration;
        let rates = [
            st.positions as f64 / sp_secs,
            evaluated as f64 / sp_secs,
            steps as f64 * self.cfg.optim.batch_size as f64 / train_secs,
        ];
        let mut msg = self.log_iteration(st, &losses, steps, rates);
        let every = self.cfg.eval.every;
        let due = (every > 0 && it.is_multiple_of(every)) || it == self.cfg.run.iterations;
        if due && !stop.load(Ordering::Relaxed) {
            let e = self.evaluate()?;
            msg.push_str(&self.log_evaluation(&e));
            self.meta.evaluations.push(e);
        }
        self.log.flush();
        Ok((msg, rates))
    }

    /// New samples into the replay buffer: self-play with the current network (and labelled
    /// database positions with `exact_share`), or exact labels alone; the statistics and the
    /// network evaluations made.
    fn generate(&mut self, seed: u64, stop: &AtomicBool) -> (SelfPlayStats, u64) {
        play(
            &self.cfg,
            &mut self.selfplay,
            self.labeller.as_ref(),
            NetEvaluator::new(self.model.valid(), self.device.clone()),
            &mut self.replay,
            seed,
            stop,
        )
    }

    /// The iteration's gradient steps on uniform batches from the buffer (none until it holds
    /// `replay.min_size`): the summed losses and the steps taken.
    fn learn(&mut self, seed: u64, stop: &AtomicBool) -> (Losses, u32) {
        let mut losses = Losses::default();
        let mut steps = 0u32;
        if self.replay.len() < self.cfg.replay.min_size.max(1) {
            return (losses, 0);
        }
        let mut rng = SmallRng::seed_from_u64(seed);
        for _ in 0..self.cfg.optim.steps_per_iteration {
            if stop.load(Ordering::Relaxed) {
                break;
            }
            let batch = self.replay.batch(self.cfg.optim.batch_size, &mut rng);
            let lr = self.lr(self.meta.step);
            let l = self.train_step(&batch, lr);
            losses.policy += l.policy;
            losses.value += l.value;
            losses.margin += l.margin;
            losses.entropy += l.entropy;
            losses.moves += l.moves;
            steps += 1;
            self.meta.step += 1;
        }
        (losses, steps)
    }

    /// Logs an iteration's throughput (`[positions, evaluations, samples]` a second), self-play
    /// and losses to TensorBoard; its progress line.
    fn log_iteration(
        &mut self,
        st: &SelfPlayStats,
        losses: &Losses,
        steps: u32,
        rates: [f64; 3],
    ) -> String {
        let step = self.meta.iteration as u64;
        let n = steps.max(1) as f64;
        let share = |x: u64, of: u64| x as f64 / of.max(1) as f64;
        let lr_now = self.lr(self.meta.step);
        let log = &mut self.log;
        log.scalar("throughput/positions_per_sec", rates[0], step);
        log.scalar("throughput/evals_per_sec", rates[1], step);
        log.scalar("throughput/samples_per_sec", rates[2], step);
        log.scalar("selfplay/games", st.games as f64, step);
        log.scalar(
            "selfplay/exact_share",
            share(st.exact_positions, st.positions),
            step,
        );
        log.scalar(
            "selfplay/exploratory_share",
            share(st.exploratory, st.positions),
            step,
        );
        if st.games > 0 {
            let g = st.games;
            log.scalar("selfplay/game_length", share(st.game_moves, g), step);
            log.scalar(
                "selfplay/first_player_win_rate",
                share(st.results[0], g),
                step,
            );
            log.scalar("selfplay/draw_rate", share(st.results[2], g), step);
        }
        log.scalar("replay/size", self.replay.len() as f64, step);
        if steps > 0 {
            log.scalar("loss/policy", losses.policy / n, step);
            log.scalar("loss/value", losses.value / n, step);
            log.scalar("loss/margin", losses.margin / n, step);
            log.scalar("policy/entropy", losses.entropy / n, step);
            log.scalar("loss/moves", losses.moves / n, step);
            log.scalar("optim/lr", lr_now, step);
        }
        let mut msg = format!(
            "pos/s {:.0}  evals/s {:.0}  samples/s {:.0}  loss p {:.3} v {:.3} m {:.4}  exact {:.0}%",
            rates[0],
            rates[1],
            rates[2],
            losses.policy / n,
            losses.value / n,
            losses.margin / n,
            100.0 * share(st.exact_positions, st.positions)
        );
        if self.cfg.optim.moves_weight > 0.0 {
            msg.push_str(&format!("  moves {:.3}", losses.moves / n));
        }
        if st.games > 0 {
            msg.push_str(&format!(
                "  1st wins {:.0}%",
                100.0 * share(st.results[0], st.games)
            ));
        }
        msg
    }

    /// Logs an evaluation to TensorBoard; its part of the progress line.
    fn log_evaluation(&mut self, e: &Evaluation) -> String {
        let step = self.meta.iteration as u64;
        let mut msg = String::new();
        for r in &e.games {
            let tag = format!("eval/{}/{}", r.opponent, r.seat.name());
            self.log
                .scalar(&format!("{tag}/win_rate"), r.win_rate(), step);
            self.log
                .scalar(&format!("{tag}/mean_margin"), r.mean_margin, step);
        }
        for pair in e.games.chunks(2) {
            let w = pair.iter().map(|r| r.wins).sum::<u32>() as f64;
            let g = pair.iter().map(|r| r.games).sum::<u32>().max(1) as f64;
            self.log
                .scalar(&format!("eval/{}/win_rate", pair[0].opponent), w / g, step);
            msg.push_str(&format!("  vs {} {:.0}%", pair[0].opponent, 100.0 * w / g));
        }
        for h in &e.heldout {
            let tag = format!("eval/heldout_{}", h.set);
            let log = &mut self.log;
            log.scalar(&format!("{tag}/optimal_rate"), h.optimal_rate, step);
            log.scalar(&format!("{tag}/kl"), h.kl, step);
            log.scalar(&format!("{tag}/set_loss"), h.set_loss, step);
            log.scalar(&format!("{tag}/mean_loss"), h.mean_loss, step);
            for b in &h.bands {
                let band = format!("{tag}/seeds_{}_{}", b.min_seeds, b.max_seeds);
                log.scalar(&format!("{band}/optimal_rate"), b.optimal_rate, step);
                log.scalar(&format!("{band}/kl"), b.kl, step);
            }
            msg.push_str(&format!("  {}", heldout::summary(h)));
        }
        if let Some(j) = &e.solver {
            let log = &mut self.log;
            log.scalar("eval/solver/optimal_rate", j.optimal_rate, step);
            log.scalar("eval/solver/std_err", j.std_err, step);
            log.scalar("eval/solver/mean_loss", j.mean_loss, step);
            log.scalar("eval/solver/inside_db", j.inside_db.optimal_rate, step);
            log.scalar("eval/solver/outside_db", j.outside_db.optimal_rate, step);
            for (name, r) in &j.phases {
                log.scalar(&format!("eval/solver/{name}"), r.optimal_rate, step);
            }
            msg.push_str(&format!(
                "  optimal {:.1}%±{:.1} (out of db {:.1}%, in {:.1}%) loss {:.2}",
                100.0 * j.optimal_rate,
                100.0 * j.std_err,
                100.0 * j.outside_db.optimal_rate,
                100.0 * j.inside_db.optimal_rate,
                j.mean_loss
            ));
            if let Some(pie) = &j.pie {
                log.scalar("eval/solver/pie_openings", pie.openings.optimal_rate, step);
                log.scalar("eval/solver/pie_swaps", pie.swaps.optimal_rate, step);
                msg.push_str(&format!(
                    "  pie: openings {:.0}% swaps {:.0}%",
                    100.0 * pie.openings.optimal_rate,
                    100.0 * pie.swaps.optimal_rate
                ));
            }
            if j.unsolved > 0 {
                msg.push_str(&format!(
                    " on {} judged ({} unproved left out)",
                    j.positions, j.unsolved
                ));
            }
        }
        msg
    }

    /// Plays the evaluation games with the current network.
    pub fn evaluate(&mut self) -> anyhow::Result<Evaluation> {
        let mut ev = NetEvaluator::new(self.model.valid(), self.device.clone());
        let games = eval::play_vs_bots(
            &self.rules,
            &self.opponents,
            self.cfg.eval.games,
            &mut ev,
            self.cfg.run.seed ^ 0xE7A1,
        );
        let last = self.meta.iteration >= self.cfg.run.iterations;
        if self
            .judge_build
            .as_ref()
            .is_some_and(|h| h.is_finished() || last)
        {
            let h = self.judge_build.take().expect("checked above");
            let set = h
                .join()
                .map_err(|_| anyhow::anyhow!("the judge set builder panicked"))??;
            self.judge = Some(set);
        }
        let solver = self.judge.as_ref().map(|j| j.score(&mut ev));
        if self
            .heldout_build
            .as_ref()
            .is_some_and(|h| h.is_finished() || last)
        {
            let h = self.heldout_build.take().expect("checked above");
            self.heldout = h
                .join()
                .map_err(|_| anyhow::anyhow!("the held-out set builder panicked"))??;
        }
        let heldout = heldout::score_all(&self.heldout, &mut ev, self.rules.pits() + 1);
        Ok(Evaluation {
            iteration: self.meta.iteration,
            seconds: self.meta.seconds,
            games,
            solver,
            heldout,
        })
    }

    fn train_step(&mut self, batch: &[Sample], lr: f64) -> Losses {
        let pits = self.rules.pits();
        let a = pits + 1;
        let b = batch.len();
        let d = &self.train_device;
        let o = self.cfg.optim.clone();
        let positions: Vec<_> = batch.iter().map(|s| s.pos).collect();
        let x = self.model.input().batch(&positions, d);
        let t = Targets::of(batch, a, &o);
        let tensor =
            |v: Vec<f32>, cols: usize| Tensor::<2>::from_data(TensorData::new(v, [b, cols]), d);
        let target = tensor(t.policy, a);
        let mask = tensor(t.mask, a);
        let z = tensor(batch.iter().map(|s| s.value).collect(), 1);
        let mz = tensor(batch.iter().map(|s| s.margin).collect(), 1);

        let out = self.model.forward(x);
        let logp = log_softmax(out.logits + mask, 1);
        let cross = (target * logp.clone()).sum_dim(1).neg();
        let policy_rows = match o.policy_loss {
            config::PolicyLoss::CrossEntropy => cross,
            config::PolicyLoss::Set => {
                // -log of the optimal moves' total probability on labelled rows.
                let set = tensor(t.set_mask, a);
                let x = logp.clone() + set;
                let top = x.clone().max_dim(1);
                let lse = top.clone() + (x - top).exp().sum_dim(1).log();
                let exact = tensor(t.exact, 1);
                lse.neg() * exact.clone() + cross * exact.neg().add_scalar(1.0)
            }
        };
        let policy_loss = policy_rows.mean();
        let value_loss = (out.value - z).powi_scalar(2).mean();
        let margin_loss = (out.margin - mz).powi_scalar(2).mean();
        let mut loss = policy_loss.clone()
            + value_loss.clone().mul_scalar(o.value_weight)
            + margin_loss.clone().mul_scalar(o.margin_weight);
        let mut moves_loss = None;
        if let (Some(pred), true) = (out.lost, o.moves_weight > 0.0) {
            let w = tensor(t.lost_weight, a);
            let diff = (pred - tensor(t.lost, a)).abs();
            let c = diff.clone().clamp_max(1.0);
            let huber = c.clone().powi_scalar(2).mul_scalar(0.5) + (diff - c);
            let l = (huber * w).sum().div_scalar(t.lost_count.max(1) as f32);
            loss = loss + l.clone().mul_scalar(o.moves_weight);
            moves_loss = Some(l);
        }
        let entropy = (logp.clone().exp() * logp).sum_dim(1).mean().neg();

        let grads = GradientsParams::from_grads(loss.backward(), &self.model);
        self.model = self.optim.step(lr, self.model.clone(), grads);
        let scalar = |t: Tensor<1>| t.into_scalar::<f32>() as f64;
        Losses {
            policy: scalar(policy_loss.inner()),
            value: scalar(value_loss.inner()),
            margin: scalar(margin_loss.inner()),
            entropy: scalar(entropy.inner()),
            moves: moves_loss.map_or(0.0, |l| scalar(l.inner())),
        }
    }
}

/// Plays `selfplay.positions_per_iteration` new positions into `replay` as a config asks:
/// self-play with `ev`'s network (and labelled database positions with `exact_share`), or exact
/// labels alone; the statistics and the network evaluations made.
fn play(
    cfg: &TrainConfig,
    selfplay: &mut SelfPlay,
    labeller: Option<&labelled::Labeller>,
    ev: NetEvaluator,
    replay: &mut Replay,
    seed: u64,
    stop: &AtomicBool,
) -> (SelfPlayStats, u64) {
    // Self-play's search reads the policy head alone: its targets train that head, and a move
    // head still learning would only add noise to the priors.
    let mut ev = ev.with_moves_mix(0.0);
    let n = cfg.selfplay.positions_per_iteration;
    let exact_only = cfg.selfplay.labels == config::Labels::Exact;
    let mut st = match (labeller, exact_only) {
        (Some(l), true) => l.generate(n, replay, seed, stop),
        _ => selfplay.generate(n, &cfg.selfplay, &cfg.search, &mut ev, replay, seed, stop),
    };
    if let (Some(l), false) = (labeller, exact_only) {
        let extra = (cfg.selfplay.exact_share * n as f32).round() as usize;
        let more = l.generate(extra, replay, seed ^ 0xE4AC7, stop);
        st.positions += more.positions;
        st.exact_positions += more.exact_positions;
        let wanted = (cfg.selfplay.label_file_share * n as f32).round() as usize;
        let from_file = l.generate_file(wanted, replay, seed ^ 0xF11E) as u64;
        st.positions += from_file;
        st.exact_positions += from_file;
    }
    (st, ev.evaluated)
}

/// A batch's targets as flat rows for the training step.
struct Targets {
    /// The policy targets, `[b, a]`.
    policy: Vec<f32>,
    /// 0 for legal actions, -1e9 for illegal ones.
    mask: Vec<f32>,
    /// 0 for optimal actions of labelled rows (all actions of the others), -1e9 elsewhere.
    set_mask: Vec<f32>,
    /// 1 for labelled rows, 0 for searched ones, `[b, 1]`.
    exact: Vec<f32>,
    /// Seeds lost per action (0 where unknown) and whether it is known.
    lost: Vec<f32>,
    lost_weight: Vec<f32>,
    /// Actions with a known seeds-lost target.
    lost_count: usize,
}

impl Targets {
    fn of(batch: &[Sample], a: usize, o: &config::OptimConfig) -> Targets {
        let n = batch.len() * a;
        let mut t = Targets {
            policy: Vec::with_capacity(n),
            mask: Vec::with_capacity(n),
            set_mask: Vec::with_capacity(n),
            exact: Vec::with_capacity(batch.len()),
            lost: Vec::with_capacity(n),
            lost_weight: Vec::with_capacity(n),
            lost_count: 0,
        };
        let pits = a - 1;
        for s in batch {
            t.policy.extend_from_slice(&s.policy[..a]);
            t.exact.push(s.exact as u8 as f32);
            let legal = s.pos.legal_moves();
            let use_lost = s.exact || o.moves_from_search;
            for i in 0..a {
                let ok = legal.contains(crate::rules::Move::from_action(i, pits));
                t.mask.push(if ok { 0.0 } else { -1e9 });
                let optimal = ok && s.lost[i] == 0.0;
                t.set_mask
                    .push(if !s.exact || optimal { 0.0 } else { -1e9 });
                let known = ok && use_lost && s.lost[i].is_finite();
                t.lost.push(if known { s.lost[i] } else { 0.0 });
                t.lost_weight.push(known as u8 as f32);
                t.lost_count += known as usize;
            }
        }
        t
    }
}

/// What a run starts from: a fresh network, or a checkpoint's network, optimizer, sidecar and run
/// state.
struct Start {
    net: Net,
    optim: ModuleOptimizer,
    meta: Meta,
    state: Option<Vec<u8>>,
}

/// A fresh start in `dir` (refused if a checkpoint is there), or with `resume` the checkpoint
/// there (refused if missing, of other rules or shape, or made with a config that differs in a key
/// that may not change).
fn start_or_resume(
    cfg: &TrainConfig,
    rules: &Rules,
    train_device: &Device,
    dir: &std::path::Path,
    resume: bool,
) -> anyhow::Result<Start> {
    let exists = dir.join("meta.json").exists();
    let optim = AdamWConfig::new()
        .with_weight_decay(cfg.optim.weight_decay)
        .init();
    if resume {
        if !exists {
            bail!("--resume: no checkpoint at {}", dir.display());
        }
        let (net, mut meta) = checkpoint::load_net(dir, train_device)?;
        checkpoint::check_compatible(&meta, rules, &cfg.network, dir)?;
        let changed = checkpoint::changed_keys(&meta.config, cfg);
        if !changed.is_empty() {
            bail!(
                "--resume: the config differs from the checkpoint's in {} (only run.iterations, run.checkpoint_every, run.device, the folders and eval.* may change)",
                changed.join(", ")
            );
        }
        let optim = checkpoint::load_optim(dir, &meta, optim)?;
        let state = checkpoint::load_state(dir, &meta)?;
        meta.config = cfg.clone();
        return Ok(Start {
            net,
            optim,
            meta,
            state,
        });
    }
    if exists {
        if released(dir) {
            bail!(
                "{} holds a released network (its sidecar names no optimizer or run state), not a run to continue or overwrite: train under another name, e.g. --set run.name={}-2",
                dir.display(),
                cfg.run.name
            );
        }
        bail!(
            "a checkpoint already exists at {}: pass --resume to continue it, or choose another run.name",
            dir.display()
        );
    }
    train_device.seed(cfg.run.seed);
    let net = match &cfg.run.init {
        Some(path) => init_net(path, cfg, rules, train_device)?,
        None => Net::new(&cfg.network, rules.pits(), train_device),
    };
    Ok(Start {
        net,
        optim,
        meta: Meta {
            format: checkpoint::FORMAT.to_string(),
            rules: rules.spec(),
            network: cfg.network,
            config: cfg.clone(),
            iteration: 0,
            step: 0,
            positions: 0,
            games: 0,
            seconds: 0.0,
            evaluations: Vec::new(),
            files: checkpoint::Files::of_run(0),
        },
        state: None,
    })
}

/// Whether the checkpoint in `dir` is a released network: a sidecar without the optimizer and run
/// state a run needs to go on (how `checkpoints/kalah64` and its siblings are committed).
fn released(dir: &std::path::Path) -> bool {
    checkpoint::load_meta(dir).is_ok_and(|m| m.files.optim.is_none() && m.files.state.is_none())
}

/// The weights of the checkpoint `path` (`run.init`) as the start of a fresh run: same network
/// shape and pits per side as the config asks, any other rules (the observation and actions depend
/// only on the pits, so a network of one rule set is a start for another).
fn init_net(
    path: &std::path::Path,
    cfg: &TrainConfig,
    rules: &Rules,
    train_device: &Device,
) -> anyhow::Result<Net> {
    let dir = crate::nn::model::folder(path).context("run.init")?;
    let card = crate::nn::model::load_card(&dir).context("run.init")?;
    // A move head may be added (a fresh one) or left behind; the rest of the shape must match.
    let without_moves = NetConfig {
        moves: card.network.moves,
        ..cfg.network
    };
    if card.network != without_moves {
        bail!(
            "run.init: {} is a network of {:?}, the config asks for {:?}",
            dir.display(),
            card.network,
            cfg.network
        );
    }
    let pits = card.rules.build()?.pits();
    if pits != rules.pits() {
        bail!(
            "run.init: {} plays {pits} pits a side, the config's rules {}",
            dir.display(),
            rules.pits()
        );
    }
    let net = crate::nn::model::load_weights(
        &dir,
        &card.model_file,
        &card.network,
        &card.rules,
        train_device,
    )?;
    Ok(if cfg.network.moves {
        net.with_moves(&cfg.network, rules.pits(), train_device)
    } else {
        net.without_moves()
    })
}

/// Loads or solves the judge set on a thread of its own (with a pool of one thread, so that the
/// solver's parallel loops do not hold up self-play's), if the config asks for one.
fn spawn_judge(
    cfg: &TrainConfig,
    rules: &Rules,
) -> Option<std::thread::JoinHandle<anyhow::Result<judge::JudgeSet>>> {
    let (n, seed, rules) = (cfg.eval.solver_positions, judge::JUDGE_SEED, *rules);
    let limit = cfg.judge_time_limit();
    let cache = cfg.run.judge_dir.clone();
    (n > 0).then(|| {
        std::thread::spawn(move || {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build()?;
            pool.install(|| judge::JudgeSet::load_or_build(&rules, n, seed, &cache, limit))
        })
    })
}

/// Loads or builds the held-out sets on a thread of its own (a pool of one thread), if the config
/// asks for them; cached in the solver's cache folder.
fn spawn_heldout(
    cfg: &TrainConfig,
    rules: &Rules,
    db: Option<std::sync::Arc<crate::solver::EndgameOracle>>,
) -> Option<std::thread::JoinHandle<anyhow::Result<Vec<heldout::HeldoutSet>>>> {
    let (n, rules, db) = (cfg.eval.heldout_positions, *rules, db?);
    let dir = crate::solver::default_cache_dir()?;
    (n > 0).then(|| {
        std::thread::spawn(move || {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build()?;
            pool.install(|| heldout::HeldoutSet::load_or_build_all(&rules, n, &db, &dir))
        })
    })
}

/// The endgame database of a run, if it has one, and the labeller of exact positions (with
/// `selfplay.labels = "exact"` or `exact_share`), as the config asks.
fn data_sources(
    cfg: &TrainConfig,
    rules: &Rules,
) -> anyhow::Result<(
    Option<std::sync::Arc<crate::solver::EndgameOracle>>,
    Option<labelled::Labeller>,
)> {
    let p = &cfg.selfplay;
    if p.endgame_db_seeds == 0 {
        return Ok((None, None));
    }
    let cache = crate::solver::default_cache_dir();
    let (oracle, _) = crate::solver::EndgameOracle::load_or_build(
        rules,
        p.endgame_db_seeds,
        cache.as_deref(),
        None,
    );
    let oracle = std::sync::Arc::new(oracle);
    let exact = p.labels == config::Labels::Exact;
    if !exact && p.exact_share == 0.0 && p.label_file.is_none() {
        return Ok((Some(oracle), None));
    }
    let solver = if exact && p.label_time_limit > 0.0 {
        let s = crate::solver::Solver::new(rules, &crate::solver::SolverConfig::default())?;
        Some((s, std::time::Duration::from_secs_f64(p.label_time_limit)))
    } else {
        None
    };
    let labeller = labelled::Labeller::new(
        rules,
        oracle.clone(),
        solver,
        p.exact_temperature,
        (p.label_draw, p.label_skip_forced),
    );
    let labeller = match &p.label_file {
        Some(path) => {
            // The judge sets stay unseen: their positions are never trained on.
            let judged = judge::cached_positions(rules, &cfg.run.judge_dir);
            let exclude = judged.into_iter().collect();
            let file = label_file::LabelFile::load(
                std::path::Path::new(path),
                rules,
                p.label_file_holdout,
                &exclude,
            )?;
            labeller.with_file(file)
        }
        None => labeller,
    };
    Ok((Some(oracle), Some(labeller)))
}
