//! `kalaha train`: a config's stages (a recipe, or one run) trained in order with a progress bar;
//! Ctrl-C saves a checkpoint and exits, `--resume` goes on at the stage and iteration it reached.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};

use super::emit;
use crate::train::Recipe;
use crate::train::recipe::{self, Event, Outcome};

#[derive(Debug, Args)]
pub struct TrainArgs {
    /// The run's TOML config (see configs/): one run, or a recipe of `[[stage]]`s.
    #[arg(long, value_name = "FILE")]
    config: PathBuf,
    /// Override a config key, e.g. `--set search.simulations=32` (repeatable; every stage).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    sets: Vec<String>,
    /// Continue from the last checkpoint (a recipe: its finished stages are passed over).
    #[arg(long)]
    resume: bool,
    /// Train only this stage of a recipe (in its own folder, from its usual start).
    #[arg(long, value_name = "NAME")]
    stage: Option<String>,
}

pub fn run(a: TrainArgs) -> anyhow::Result<()> {
    let mut recipe = Recipe::load(&a.config, &a.sets)?;
    if let Some(name) = &a.stage {
        recipe = recipe.only(name)?;
    }
    let stop = Arc::new(AtomicBool::new(false));
    {
        let stop = stop.clone();
        // A second handler cannot be installed (e.g. in tests); the run then just lacks Ctrl-C saving.
        let _ = ctrlc::set_handler(move || stop.store(true, Ordering::Relaxed));
    }
    let style = ProgressStyle::with_template(
        "{prefix}{bar:30} {pos}/{len} it, {elapsed} elapsed, eta {eta} | {msg}",
    )
    .expect("valid template");
    let mut bar: Option<ProgressBar> = None;
    let mut lines = Vec::new();
    let staged = recipe.staged;
    let outcome = recipe::train(&recipe, a.resume, &stop, &mut |e| match e {
        Event::Skipped(i, n, s) => {
            eprintln!("kalaha: stage {}/{n} {} is finished", i + 1, s.name)
        }
        Event::Stage(i, n, s, t) => {
            let cfg = &s.config;
            let stage = if staged {
                format!("stage {}/{n} {} of ", i + 1, s.name)
            } else {
                String::new()
            };
            eprintln!(
                "kalaha: training {stage}{} ({}), checkpoints in {}, logs in {}",
                recipe
                    .root
                    .file_name()
                    .unwrap_or_default()
                    .to_string_lossy(),
                cfg.rules().map(|r| r.describe()).unwrap_or_default(),
                t.checkpoint_dir().display(),
                t.log_dir().display()
            );
            let b = ProgressBar::new(u64::from(cfg.run.iterations)).with_style(style.clone());
            if staged {
                b.set_prefix(format!("{} ", s.name));
            }
            b.set_position(u64::from(t.meta().iteration));
            bar = Some(b);
        }
        Event::Progress(p) => {
            if let Some(b) = &bar {
                b.set_position(u64::from(p.iteration));
                b.set_message(p.message.clone());
                if b.is_hidden() {
                    eprintln!("iteration {}/{}: {}", p.iteration, p.iterations, p.message);
                }
            }
        }
        Event::StageEnd(m) => {
            if let Some(b) = bar.take() {
                b.finish_and_clear();
            }
            lines.push(format!(
                "{} iterations, {} positions, {} games, {} gradient steps in {:.0} s",
                m.iteration, m.positions, m.games, m.step, m.seconds
            ));
        }
    })?;
    let last = recipe.last();
    let mut out = String::new();
    for l in &lines {
        out.push_str(l);
        out.push('\n');
    }
    match outcome {
        Outcome::Stopped => out.push_str(&format!(
            "stopped by Ctrl-C; go on with: kalaha train --config {} --resume\n",
            a.config.display()
        )),
        Outcome::Finished => out.push_str(&format!(
            "finished; the network is {} (release it: kalaha release {} NAME)\n",
            last.dir().display(),
            recipe.root.display()
        )),
    }
    emit(&out)
}
