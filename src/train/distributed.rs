//! A training iteration split in two, so that self-play can run in other processes or on other
//! machines (the Python package's `kalaha.distributed` runs them as Ray actors): a [`Worker`]
//! plays self-play games with the weights it was last sent and returns a [`Batch`] of samples;
//! the [`Trainer`] takes batches in ([`Trainer::absorb`]) and, once an iteration's positions are
//! in, learns and checkpoints as `kalaha train` does ([`Trainer::finish_iteration`]).
//!
//! Weights travel as burnpack bytes ([`Trainer::weights`]) tagged with a version, the learner's
//! iteration count when they were taken; every batch carries the version it was played with, so
//! the learner can tell how far a worker lags behind it and refuse samples that lag too far.
//! Batches travel in the run-state format ([`super::state`]): checksummed, decoded under the
//! run's rules.

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use anyhow::Context;
use burn::module::Module;
use burn::tensor::Bytes;

#[cfg(any(doc, test))]
use super::Trainer;
use super::replay::{Replay, Sample};
use super::selfplay::{SelfPlay, SelfPlayStats};
use super::state::{Reader, Writer};
use super::{TrainConfig, data_sources, device, labelled, play};
use crate::nn::{Net, NetEvaluator};
use crate::rules::Rules;

/// Samples a worker made with one version of the weights, as they travel to the learner.
#[derive(Clone, Debug)]
pub struct Batch {
    /// The worker that made them.
    pub worker: u32,
    /// The version of the weights they were played with.
    pub version: u64,
    /// What the self-play that made them counted.
    pub stats: SelfPlayStats,
    /// Network evaluations made.
    pub evaluated: u64,
    /// Seconds the worker took.
    pub seconds: f64,
    /// The samples, oldest first.
    pub samples: Vec<Sample>,
}

impl Batch {
    /// The batch in the run-state format (magic, version, checksum).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.u32(self.worker);
        w.u64(self.version);
        let s = &self.stats;
        for x in [s.positions, s.exact_positions, s.games, s.game_moves] {
            w.u64(x);
        }
        for x in s.results {
            w.u64(x);
        }
        w.u64(s.exploratory);
        w.u64(self.evaluated);
        w.u64(self.seconds.to_bits());
        Replay::write_samples(&mut w, &self.samples);
        w.finish()
    }

    /// Reads a batch [`Batch::to_bytes`] wrote, its positions under `rules`; refuses damaged or
    /// truncated bytes.
    pub fn from_bytes(bytes: &[u8], rules: &Rules) -> anyhow::Result<Batch> {
        let mut r = Reader::new(bytes, rules).context("a self-play batch")?;
        let worker = r.u32()?;
        let version = r.u64()?;
        let mut stats = SelfPlayStats {
            positions: r.u64()?,
            exact_positions: r.u64()?,
            games: r.u64()?,
            game_moves: r.u64()?,
            ..SelfPlayStats::default()
        };
        for x in &mut stats.results {
            *x = r.u64()?;
        }
        stats.exploratory = r.u64()?;
        let evaluated = r.u64()?;
        let seconds = f64::from_bits(r.u64()?);
        let samples = Replay::read_samples(&mut r)?;
        r.end()?;
        Ok(Batch {
            worker,
            version,
            stats,
            evaluated,
            seconds,
            samples,
        })
    }
}

/// Self-play for a learner elsewhere: the config's games, search and endgame database, with the
/// weights last sent.
pub struct Worker {
    cfg: TrainConfig,
    id: u32,
    rules: Rules,
    device: burn::prelude::Device,
    net: Net,
    /// The version of `net`'s weights, once some were sent.
    version: Option<u64>,
    selfplay: SelfPlay,
    labeller: Option<labelled::Labeller>,
    /// Seed of this worker's random streams, and the batches made so far.
    seed: u64,
    batches: u64,
}

impl Worker {
    /// Worker `id` of a run of `cfg`: its own self-play games (seeded from the run's seed and the
    /// id), the endgame database loaded or built as the config asks.
    pub fn new(cfg: TrainConfig, id: u32) -> anyhow::Result<Worker> {
        cfg.validate()?;
        let rules = cfg.rules()?;
        let device = device(&cfg.run.device)?;
        let (db, labeller) = data_sources(&cfg, &rules)?;
        let oracle = db.filter(|_| cfg.selfplay.labels != super::config::Labels::Exact);
        let seed = super::run_stream::nth(cfg.run.seed, super::run_stream::WORKERS, id as u64);
        let selfplay = SelfPlay::new(
            &rules,
            cfg.selfplay.games,
            super::selfplay::OpeningMoves::of(&cfg.selfplay),
            seed,
            oracle,
            cfg.selfplay.targets,
        )?;
        let net = Net::new(&cfg.network, rules.pits(), &device);
        Ok(Worker {
            cfg,
            id,
            rules,
            device,
            net,
            version: None,
            selfplay,
            labeller,
            seed,
            batches: 0,
        })
    }

    /// The version of the weights the worker plays with (none before the first were sent).
    pub fn version(&self) -> Option<u64> {
        self.version
    }

    /// Plays with `weights` (from [`Trainer::weights`]) from now on; refuses weights of another
    /// network shape.
    pub fn set_weights(&mut self, weights: &[u8], version: u64) -> anyhow::Result<()> {
        self.net = load_weights(&self.cfg, &self.rules, &self.device, weights)?;
        self.version = Some(version);
        Ok(())
    }

    /// Plays until an iteration's worth of positions (`positions`, or the config's
    /// `selfplay.positions_per_iteration` when `None`) is recorded, or `stop` is set; refuses to
    /// play before weights were sent.
    pub fn generate(
        &mut self,
        positions: Option<usize>,
        stop: &AtomicBool,
    ) -> anyhow::Result<Batch> {
        let version = self
            .version
            .context("a self-play worker was asked to play before it was sent weights")?;
        let t = Instant::now();
        self.batches += 1;
        let seed = crate::env::rng::derive(self.seed, self.batches);
        let mut cfg = self.cfg.clone();
        if let Some(n) = positions {
            cfg.selfplay.positions_per_iteration = n;
        }
        // Big enough that nothing is dropped: the whole batch goes to the learner.
        let mut out = Replay::new(usize::MAX);
        let ev = NetEvaluator::new(self.net.clone(), self.device.clone());
        let (stats, evaluated) = play(
            &cfg,
            &mut self.selfplay,
            self.labeller.as_ref(),
            ev,
            &mut out,
            seed,
            stop,
        );
        Ok(Batch {
            worker: self.id,
            version,
            stats,
            evaluated,
            seconds: t.elapsed().as_secs_f64(),
            samples: out.iter().copied().collect(),
        })
    }
}

/// A network of `cfg`'s shape with `weights` (burnpack bytes) loaded on `device`.
fn load_weights(
    cfg: &TrainConfig,
    rules: &Rules,
    device: &burn::prelude::Device,
    weights: &[u8],
) -> anyhow::Result<Net> {
    let record = burn::store::ModuleRecord::from_bytes(Bytes::from_bytes_vec(weights.to_vec()))
        .map_err(|e| anyhow::anyhow!("unreadable network weights: {e:?}"))?;
    Net::new(&cfg.network, rules.pits(), device)
        .try_load_record(record)
        .map_err(|e| anyhow::anyhow!("the weights do not fit the config's network: {e:?}"))
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicBool;

    use super::*;

    fn smoke(name: &str, dir: &std::path::Path) -> TrainConfig {
        let text = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/smoke.toml"),
        )
        .unwrap();
        let sets = [
            format!("run.name={name}"),
            format!("run.checkpoint_dir={}", dir.join("ck").display()),
            format!("run.experiment_dir={}", dir.join("ex").display()),
            "selfplay.endgame_db_seeds=0".to_string(),
        ];
        TrainConfig::parse(&text, &sets).unwrap()
    }

    fn tmp(tag: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("kalaha-dist-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn a_batch_survives_its_bytes_and_damage_is_refused() {
        let dir = tmp("bytes");
        let cfg = smoke("bytes", &dir);
        let trainer = Trainer::new(cfg.clone(), false).unwrap();
        let mut w = Worker::new(cfg, 3).unwrap();
        let stop = AtomicBool::new(false);
        assert!(w.generate(Some(8), &stop).is_err(), "no weights sent yet");
        w.set_weights(&trainer.weights().unwrap(), 7).unwrap();
        let b = w.generate(Some(2000), &stop).unwrap();
        assert_eq!((b.worker, b.version), (3, 7));
        assert!(b.stats.positions >= 2000 && b.stats.games > 0 && !b.samples.is_empty());
        let bytes = b.to_bytes();
        let back = Batch::from_bytes(&bytes, trainer.rules()).unwrap();
        assert_eq!(back.samples.len(), b.samples.len());
        assert_eq!(back.stats.games, b.stats.games);
        for (x, y) in back.samples.iter().zip(&b.samples) {
            assert_eq!(x.pos, y.pos);
            assert_eq!(x.policy, y.policy);
            assert_eq!(x.value, y.value);
        }
        let mut bad = bytes.clone();
        bad[40] ^= 1;
        assert!(Batch::from_bytes(&bad, trainer.rules()).is_err());
        assert!(Batch::from_bytes(&bytes[..bytes.len() - 3], trainer.rules()).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_worker_plays_the_learner_s_network_and_refuses_another_shape() {
        let dir = tmp("weights");
        let cfg = smoke("weights", &dir);
        let trainer = Trainer::new(cfg.clone(), false).unwrap();
        let weights = trainer.weights().unwrap();
        let net = load_weights(&cfg, trainer.rules(), &trainer.device, &weights).unwrap();
        let pos = [crate::rules::Position::start(trainer.rules())];
        let x = trainer
            .learner
            .trained()
            .input()
            .batch(&pos, &trainer.device);
        let a = trainer
            .learner
            .trained()
            .forward(x.clone())
            .logits
            .into_data();
        let b = net.forward(x).logits.into_data();
        assert_eq!(
            a, b,
            "the worker's network computes what the learner's does"
        );
        let mut other = cfg.clone();
        other.network.hidden *= 2;
        let mut w = Worker::new(other, 0).unwrap();
        assert!(w.set_weights(&weights, 1).is_err());
        assert!(w.set_weights(b"not weights", 1).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn iterations_fed_by_a_worker_checkpoint_like_a_local_run() {
        let dir = tmp("iters");
        let cfg = smoke("iters", &dir);
        let mut trainer = Trainer::new(cfg.clone(), false).unwrap();
        let mut w = Worker::new(cfg.clone(), 0).unwrap();
        let stop = AtomicBool::new(false);
        while trainer.meta().iteration < cfg.run.iterations {
            w.set_weights(&trainer.weights().unwrap(), trainer.version())
                .unwrap();
            let b = w.generate(None, &stop).unwrap();
            let b = Batch::from_bytes(&b.to_bytes(), trainer.rules()).unwrap();
            trainer.absorb(&b);
            let p = trainer
                .finish_iteration(&b.stats, b.evaluated, b.seconds, &stop)
                .unwrap();
            assert_eq!(p.iteration as u64, b.version + 1);
        }
        trainer.finish().unwrap();
        let m = trainer.meta();
        assert_eq!(m.iteration, cfg.run.iterations);
        assert!(m.step > 0, "the learner took gradient steps");
        let (_, meta) =
            super::super::checkpoint::load_net(trainer.checkpoint_dir(), &trainer.device).unwrap();
        assert_eq!(meta.iteration, cfg.run.iterations);
        // The checkpoint resumes as one of `kalaha train`'s.
        let mut more = cfg.clone();
        more.run.iterations += 1;
        let mut resumed = Trainer::new(more, true).unwrap();
        resumed.run(&stop, &mut |_| {}).unwrap();
        assert_eq!(resumed.meta().iteration, cfg.run.iterations + 1);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
