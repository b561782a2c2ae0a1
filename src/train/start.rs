//! Starting a run: a fresh network (or `run.init`'s weights) or a checkpoint to resume, the judge
//! and held-out sets loaded or built on threads of their own, and the run's data sources (the
//! endgame database and the labeller of exact positions).

use anyhow::{Context, bail};
use burn::optim::{AdamWConfig, ModuleOptimizer};
use burn::prelude::*;

use super::eval::Scoring;
use super::learner::Learner;
use super::replay::Replay;
use super::selfplay::SelfPlay;
use super::tb::TbLog;
use super::{Meta, TrainConfig, Trainer, checkpoint, config, device, judge, label_file, labelled};
use crate::nn::{Net, NetConfig};
use crate::rules::Rules;

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
        // The judge set is solved while the endgame database is built.
        let mut scoring = Scoring::start(&cfg, &rules)?;
        let (db, labeller) = data_sources(&cfg, &rules)?;
        // Self-play consults the database unless the run learns from labels alone.
        let oracle = db
            .clone()
            .filter(|_| cfg.selfplay.labels != config::Labels::Exact);
        scoring.start_heldout(&cfg, db);
        let weights = (start.net, start.average, start.optim);
        let learner = Learner::new(weights, train_device, &cfg, rules.pits());
        let mut trainer = Trainer {
            scoring,
            labeller,
            selfplay: SelfPlay::new(
                &rules,
                cfg.selfplay.games,
                super::selfplay::OpeningMoves::of(&cfg.selfplay),
                super::run_stream::nth(
                    cfg.run.seed,
                    super::run_stream::SELFPLAY_START,
                    start.meta.iteration as u64,
                ),
                oracle,
                cfg.selfplay.targets,
            )?,
            replay: Replay::new(cfg.replay.capacity),
            learner,
            cfg,
            rules,
            device,
            meta: start.meta,
            checkpoint_dir,
            log,
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
}

/// What a run starts from: a fresh network, or a checkpoint's network, optimizer, sidecar and run
/// state.
struct Start {
    net: Net,
    /// The moving average of the trained weights where the checkpoint keeps one.
    average: Option<Net>,
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
        // With a moving average, the model file is the average and the trained weights are apart.
        let (net, average) = match &meta.files.training {
            Some(name) => {
                let trained = crate::nn::model::load_weights(
                    dir,
                    name,
                    &meta.network,
                    &meta.rules,
                    train_device,
                )?;
                (trained, Some(net))
            }
            None => (net, None),
        };
        meta.config = cfg.clone();
        meta.stamp_commit();
        return Ok(Start {
            net,
            average,
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
    let net = match cfg.init_source()? {
        Some(path) => init_net(&path, cfg, rules, train_device)?,
        None => Net::new(&cfg.network, rules.pits(), train_device),
    };
    Ok(Start {
        net,
        average: None,
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
            files: checkpoint::Files::of_run(0, cfg.optim.ema_decay > 0.0),
            commits: vec![crate::lineage::COMMIT.to_string()],
            release: None,
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
    // A move head may be added (a fresh one) or left behind, and a plain network made wider
    // (`Net::widen`); the rest of the shape must match.
    let without_moves = NetConfig {
        moves: card.network.moves,
        ..cfg.network
    };
    let widened = NetConfig {
        hidden: card.network.hidden,
        ..without_moves
    };
    if card.network != without_moves && card.network != widened {
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
    if card.network.hidden != cfg.network.hidden {
        return net
            .widen(&card.network, &cfg.network, rules.pits(), train_device)
            .context("run.init");
    }
    Ok(if cfg.network.moves {
        net.with_moves(&cfg.network, rules.pits(), train_device)
    } else {
        net.without_moves()
    })
}

/// The endgame database of a run, if it has one, and the labeller of exact positions (with
/// `selfplay.labels = "exact"` or `exact_share`), as the config asks.
pub(super) fn data_sources(
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
    let solver = match cfg.label_time_limit() {
        Some(limit) if exact => {
            let s = crate::solver::Solver::new(rules, &crate::solver::SolverConfig::default())?;
            Some((s, limit))
        }
        _ => None,
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
