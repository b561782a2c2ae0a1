//! `kalaha train`: a self-play training run from a TOML config, with a progress bar; Ctrl-C saves
//! a checkpoint and exits.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};

use super::emit;
use crate::train::{TrainConfig, Trainer};

#[derive(Debug, Args)]
pub struct TrainArgs {
    /// The run's TOML config (see configs/).
    #[arg(long, value_name = "FILE")]
    config: PathBuf,
    /// Override a config key, e.g. `--set search.simulations=32` (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    sets: Vec<String>,
    /// Continue the run from its last checkpoint.
    #[arg(long)]
    resume: bool,
}

pub fn run(a: TrainArgs) -> anyhow::Result<()> {
    let cfg = TrainConfig::load(&a.config, &a.sets)?;
    let mut trainer = Trainer::new(cfg.clone(), a.resume)?;
    let stop = Arc::new(AtomicBool::new(false));
    {
        let stop = stop.clone();
        // A second handler cannot be installed (e.g. in tests); the run then just lacks Ctrl-C saving.
        let _ = ctrlc::set_handler(move || stop.store(true, Ordering::Relaxed));
    }
    let start = trainer.meta().iteration;
    let bar = ProgressBar::new(cfg.run.iterations as u64).with_style(
        ProgressStyle::with_template(
            "{bar:30} {pos}/{len} it, {elapsed} elapsed, eta {eta} | {msg}",
        )
        .expect("valid template"),
    );
    bar.set_position(start as u64);
    eprintln!(
        "kalaha: training {} ({}), checkpoints in {}, logs in {}",
        cfg.run.name,
        cfg.rules()?.describe(),
        trainer.checkpoint_dir().display(),
        trainer.log_dir().display()
    );
    trainer.run(&stop, &mut |p| {
        bar.set_position(p.iteration as u64);
        bar.set_message(p.message.clone());
        if bar.is_hidden() {
            eprintln!("iteration {}/{}: {}", p.iteration, p.iterations, p.message);
        }
    })?;
    bar.finish_and_clear();
    let m = trainer.meta();
    let stopped = if stop.load(Ordering::Relaxed) {
        " (stopped by Ctrl-C)"
    } else {
        ""
    };
    emit(&format!(
        "{} iterations{stopped}, {} positions, {} games, {} gradient steps in {:.0} s; checkpoint {}\n",
        m.iteration,
        m.positions,
        m.games,
        m.step,
        m.seconds,
        trainer.checkpoint_dir().display()
    ))
}
