//! Self-play training: Gumbel-search self-play into a replay buffer, AdamW steps on the network,
//! periodic evaluation, TensorBoard logs and checkpoints.
//!
//! One iteration: play until `selfplay.positions_per_iteration` new positions are recorded (every
//! game of the batch searches with the current network; the leaves of all games share one forward
//! pass per simulation step), then take `optim.steps_per_iteration` gradient steps on uniform
//! batches from the buffer. Checkpoints keep the replay buffer and the games in flight, and every
//! random stream is drawn from the run's seed and the iteration, so a resumed run goes on as the
//! uninterrupted one would have.
//!
//! The [`Trainer`] and its iteration loop are here, over one type a stage, each with the inputs
//! it needs: self-play (`selfplay`: the games in flight, and the labellers of `labelled` and
//! `label_file`) into the replay buffer (`replay`), the learner (`learner`: the weights, their
//! average, the optimizer and the schedule), the evaluation (`eval`: the bots and the judged
//! sets). Starting or resuming a run is in `start`, the TensorBoard logs and the progress line
//! in `log`, the burn device in `device`.

pub mod bench;
pub mod checkpoint;
pub mod config;
pub mod distributed;
pub mod eval;
pub mod label_file;
pub mod labelled;
pub mod recipe;
pub mod release;
pub mod selfplay;
pub mod state;
pub mod tb;

pub mod replay;

mod device;
mod ema;
mod learner;
mod log;
mod start;

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use burn::prelude::*;

use crate::env::rng::derive;
use crate::eval::{heldout, judge};
use crate::nn::{Net, NetEvaluator};
use crate::rules::Rules;
pub use checkpoint::{Evaluation, Meta};
pub use config::TrainConfig;
pub use device::device;
use distributed::Batch;
use eval::Scoring;
use learner::Learner;
pub use recipe::Recipe;
use replay::Replay;
use selfplay::{SelfPlay, SelfPlayStats};
use start::data_sources;
use tb::TbLog;

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

/// A training run in progress: a stage each (self-play, the replay buffer, the learner, the
/// evaluation), the run's sidecar and its logs.
pub struct Trainer {
    cfg: TrainConfig,
    rules: Rules,
    /// The device self-play and evaluation run on (the learner's is its autodiff twin).
    device: Device,
    /// Self-play: the games in flight.
    selfplay: SelfPlay,
    /// Exact labels beside or instead of self-play (`selfplay.labels`, `exact_share`,
    /// `label_file`).
    labeller: Option<labelled::Labeller>,
    replay: Replay,
    learner: Learner,
    scoring: Scoring,
    meta: Meta,
    checkpoint_dir: PathBuf,
    log: TbLog,
    /// The iteration of the last checkpoint written in this session.
    saved: Option<u32>,
}

impl Trainer {
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

    /// The config the run follows.
    pub fn config(&self) -> &TrainConfig {
        &self.cfg
    }

    /// The rules the run plays.
    pub fn rules(&self) -> &Rules {
        &self.rules
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
        run_stream::nth(self.cfg.run.seed, run_stream::ITERATIONS, it as u64)
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
        self.learner
            .save(&self.checkpoint_dir, &state, &mut self.meta)?;
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
        let learn_seed = derive(seed, iteration_stream::LEARN);
        let (losses, steps) =
            self.learner
                .learn(&self.replay, &mut self.meta.step, learn_seed, stop);
        let train_secs = t.elapsed().as_secs_f64().max(1e-9);
        self.meta.iteration += 1;
        let it = self.meta.iteration;
        let rates = [
            st.positions as f64 / sp_secs,
            evaluated as f64 / sp_secs,
            steps as f64 * self.cfg.optim.batch_size as f64 / train_secs,
        ];
        let done = log::Iteration {
            number: it,
            selfplay: st,
            losses: &losses,
            steps,
            rates,
            lr: self.learner.lr(self.meta.step),
            replay: self.replay.len(),
            moves_head: self.cfg.optim.moves_weight > 0.0,
        };
        let mut msg = log::log_iteration(&mut self.log, &done);
        let every = self.cfg.eval.every;
        let due = (every > 0 && it.is_multiple_of(every)) || it == self.cfg.run.iterations;
        if due && !stop.load(Ordering::Relaxed) {
            let e = self.evaluate()?;
            msg.push_str(&log::log_evaluation(&mut self.log, &e));
            self.meta.evaluations.push(e);
        }
        self.log.flush();
        Ok((msg, rates))
    }

    /// New samples into the replay buffer: self-play with the trained weights (and labelled
    /// database positions with `exact_share`), or exact labels alone; the statistics and the
    /// network evaluations made.
    fn generate(&mut self, seed: u64, stop: &AtomicBool) -> (SelfPlayStats, u64) {
        play(
            &self.cfg,
            &mut self.selfplay,
            self.labeller.as_ref(),
            NetEvaluator::new(self.learner.trained(), self.device.clone()),
            &mut self.replay,
            seed,
            stop,
        )
    }

    /// The network a checkpoint holds as its model: the moving average of the trained weights
    /// if the run keeps one, else the trained weights; off the autodiff device.
    pub fn network(&self) -> Net {
        self.learner.network()
    }

    /// Scores the checkpoint's network ([`Trainer::network`]) in games and on the judged sets;
    /// with a moving average, the trained weights on the judged sets as well.
    pub fn evaluate(&mut self) -> anyhow::Result<Evaluation> {
        let trained = self.learner.averages().then(|| self.learner.trained());
        let last = self.meta.iteration >= self.cfg.run.iterations;
        self.scoring.evaluate(
            self.learner.network(),
            trained,
            &self.device,
            (self.meta.iteration, self.meta.seconds),
            last,
        )
    }

    /// The trained weights as burnpack bytes, for [`distributed::Worker::set_weights`].
    pub fn weights(&self) -> anyhow::Result<Vec<u8>> {
        let bytes = self
            .learner
            .trained()
            .into_record()
            .into_bytes()
            .map_err(|e| anyhow::anyhow!("cannot serialise the network: {e:?}"))?;
        Ok(bytes.to_vec())
    }

    /// The version of the current weights: the iterations completed.
    pub fn version(&self) -> u64 {
        self.meta.iteration as u64
    }

    /// Adds a worker's samples to the replay buffer.
    pub fn absorb(&mut self, batch: &Batch) {
        for s in &batch.samples {
            self.replay.push(*s);
        }
    }

    /// Logs a scalar to the run's TensorBoard log at the current iteration.
    pub fn log_scalar(&mut self, tag: &str, value: f64) {
        let step = self.meta.iteration as u64;
        self.log.scalar(tag, value, step);
    }
}

/// The streams of a run's seed, `env::rng::derive(run.seed, index)`, one index per purpose, so
/// that no two parts of a run draw from the same stream.
pub(crate) mod run_stream {
    /// Iteration `k`'s seed is `derive(derive(run.seed, ITERATIONS), k)`.
    pub const ITERATIONS: u64 = 0;
    /// The seed of the evaluation games against the baseline bots.
    pub const EVAL_GAMES: u64 = 1;
    /// Self-play's games on starting or resuming at iteration `k`: `derive(derive(run.seed,
    /// SELFPLAY_START), k)`.
    pub const SELFPLAY_START: u64 = 2;
    /// Distributed worker `w`'s seed: `derive(derive(run.seed, WORKERS), w)`.
    pub const WORKERS: u64 = 3;

    /// The `k`-th seed of purpose `purpose` of a run seeded with `run_seed`:
    /// `derive(derive(run_seed, purpose), k)`.
    pub fn nth(run_seed: u64, purpose: u64, k: u64) -> u64 {
        use crate::env::rng::derive;
        derive(derive(run_seed, purpose), k)
    }
}

/// The streams of an iteration's seed, one index per purpose.
mod iteration_stream {
    /// Self-play's games and searches.
    pub const SELFPLAY: u64 = 0;
    /// Labelled database positions.
    pub const LABELS: u64 = 1;
    /// Positions drawn from the label file.
    pub const LABEL_FILE: u64 = 2;
    /// The gradient steps' batches.
    pub const LEARN: u64 = 3;
}

/// Plays `selfplay.positions_per_iteration` new positions into `replay` as a config asks:
/// self-play with `ev`'s network (and labelled database positions with `exact_share`), or exact
/// labels alone; then `label_file_share` more from the labels file, if any. The statistics and the
/// network evaluations made.
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
        (Some(l), true) => l.generate(n, replay, derive(seed, iteration_stream::LABELS), stop),
        _ => {
            let seed = derive(seed, iteration_stream::SELFPLAY);
            selfplay.generate(n, &cfg.selfplay, &cfg.search, &mut ev, replay, seed, stop)
        }
    };
    if let Some(l) = labeller {
        if !exact_only {
            let extra = (cfg.selfplay.exact_share * n as f32).round() as usize;
            let more = l.generate(extra, replay, derive(seed, iteration_stream::LABELS), stop);
            st.positions += more.positions;
            st.exact_positions += more.exact_positions;
        }
        // The labels file is a source beside self-play and beside the database's labels alike.
        let wanted = (cfg.selfplay.label_file_share * n as f32).round() as usize;
        let from_file =
            l.generate_file(wanted, replay, derive(seed, iteration_stream::LABEL_FILE)) as u64;
        st.positions += from_file;
        st.exact_positions += from_file;
    }
    (st, ev.evaluated)
}
