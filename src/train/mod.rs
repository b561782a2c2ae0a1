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
//! The [`Trainer`] and its iteration loop are here; starting or resuming a run is in `start`, the
//! gradient steps and the learning-rate schedule in `learn`, the TensorBoard logs and the
//! progress line in `log`, the burn device in `device`.

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

mod device;
mod ema;
mod learn;
mod log;
mod start;

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use burn::optim::ModuleOptimizer;
use burn::prelude::*;

use crate::env::rng::derive;
use crate::eval::{heldout, judge};
use crate::nn::{Net, NetEvaluator};
use crate::rules::Rules;
pub use checkpoint::{Evaluation, Meta};
pub use config::TrainConfig;
pub use device::device;
pub use recipe::Recipe;
use selfplay::{Replay, SelfPlay, SelfPlayStats};
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
    /// The weights being trained.
    model: Net,
    /// Their moving average (`optim.ema_decay`): the network saved, evaluated and released.
    ema: Option<ema::Ema>,
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
        let (net, training) = match &self.ema {
            Some(e) => (e.net(), Some(&self.model)),
            None => (&self.model, None),
        };
        checkpoint::save(
            &self.checkpoint_dir,
            net,
            training,
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
        let (losses, steps) = self.learn(derive(seed, iteration_stream::LEARN), stop);
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

    /// The network a checkpoint holds as its model: the moving average of the trained weights
    /// if the run keeps one, else the trained weights; off the autodiff device.
    pub fn network(&self) -> Net {
        match &self.ema {
            Some(e) => e.net().clone(),
            None => self.model.valid(),
        }
    }

    /// Plays the evaluation games with the checkpoint's network ([`Trainer::network`]); with a
    /// moving average, the trained weights are scored on the judge and held-out sets as well.
    pub fn evaluate(&mut self) -> anyhow::Result<Evaluation> {
        let mut ev = NetEvaluator::new(self.network(), self.device.clone());
        let games = eval::play_vs_bots(
            &self.rules,
            &self.opponents,
            self.cfg.eval.games,
            &mut ev,
            derive(self.cfg.run.seed, run_stream::EVAL_GAMES),
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
        let (solver, heldout) = self.score_sets(&mut ev);
        let trained = self.ema.is_some().then(|| {
            let mut ev = NetEvaluator::new(self.model.valid(), self.device.clone());
            let (solver, heldout) = self.score_sets(&mut ev);
            checkpoint::TrainedScores { solver, heldout }
        });
        Ok(Evaluation {
            iteration: self.meta.iteration,
            seconds: self.meta.seconds,
            games,
            solver,
            heldout,
            trained,
        })
    }

    /// `ev`'s network on the judge set (once it is built) and the held-out sets.
    fn score_sets(
        &self,
        ev: &mut NetEvaluator,
    ) -> (Option<judge::JudgeScore>, Vec<heldout::HeldoutScore>) {
        let solver = self.judge.as_ref().map(|j| j.score(ev));
        let heldout = heldout::score_all(&self.heldout, ev, self.rules.pits() + 1);
        (solver, heldout)
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
