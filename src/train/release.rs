//! `kalaha release`: a finished run's network copied into `checkpoints/<name>/` as a released
//! network, its sidecar carrying a release card ([`crate::lineage::ReleaseCard`]): an immutable id,
//! the recipe and stages that made it, the commits of the binaries, the parent release, the
//! training time and the judged figures.
//!
//! The run is a recipe's folder (`checkpoints/runs/kalah64`, whose `recipe.json` names its
//! stages: the network is the last stage's), or one run's folder. A network is marked
//! rebuildable only where everything needed to run its recipe again is on record: a recipe file
//! whose text did not change between sittings, binaries of clean commits, and a start that is
//! nothing or a release; otherwise the card says why not (`history`).

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use burn::prelude::*;
use serde::Serialize;

use super::checkpoint::{self, Meta};
use super::recipe::{self, RecipeFile};
use crate::files;
use crate::lineage::{self, Judged, ParentRef, RecipeRecord, ReleaseCard, StageRecord};
use crate::nn::model;

/// What [`release`] did.
#[derive(Clone, Debug, Serialize)]
pub struct Released {
    /// The run's folder released from (a recipe's, or one run's).
    pub run: PathBuf,
    /// The released network's folder.
    pub network: PathBuf,
    /// Its weights file (the run's latest).
    pub model: String,
    /// The iteration of those weights (in the last stage).
    pub iteration: u32,
    /// The rules it plays, described.
    pub rules: String,
    /// Whether a network of that name was replaced (`--force`).
    pub replaced: bool,
    /// Its release card.
    pub release: ReleaseCard,
}

/// A stage of a finished run: its folder and sidecar.
type StageRun = (PathBuf, Meta);

/// A parent release (its id and weights hash) and its lineage seconds.
type ParentSeconds = (ParentRef, f64);

/// The stages of the run in `dir`: their folders and sidecars, in order, and the recipe record if
/// there is one.
fn stages(dir: &Path) -> anyhow::Result<(Vec<StageRun>, Option<RecipeFile>)> {
    let record = recipe::read_record(dir)?;
    let dirs: Vec<PathBuf> = match &record {
        Some(r) if r.staged => r.stages.iter().map(|s| dir.join(s)).collect(),
        _ => vec![dir.to_path_buf()],
    };
    let mut out = Vec::new();
    for d in dirs {
        let meta = checkpoint::load_meta(&d)
            .with_context(|| format!("{} cannot be released", dir.display()))?;
        if meta.iteration < meta.config.run.iterations {
            bail!(
                "{} stopped at iteration {} of {}: finish it first (kalaha train --config ... --resume)",
                d.display(),
                meta.iteration,
                meta.config.run.iterations
            );
        }
        out.push((d, meta));
    }
    Ok((out, record))
}

/// Whether a `--set` override can change the network a recipe makes: every key but those that
/// place the run's files, how often it saves, its device and its evaluations.
fn changes_the_network(set: &str) -> bool {
    let key = super::config::override_key(set);
    !(matches!(
        key,
        "run.name"
            | "run.checkpoint_dir"
            | "run.experiment_dir"
            | "run.judge_dir"
            | "run.checkpoint_every"
            | "run.device"
    ) || key.starts_with("eval."))
}

/// The parent release of a run whose first stage has `meta`'s config, and why the start is not
/// a release where it is not.
fn parent_of(meta: &Meta) -> anyhow::Result<(Option<ParentSeconds>, Option<String>)> {
    let roots = model::checkpoint_roots();
    if let Some(id) = &meta.config.run.parent {
        let (_, card) = lineage::resolve_parent(id, &roots)
            .context("the run's parent (run.parent) cannot be checked")?;
        let p = ParentRef {
            id: card.id.clone(),
            weights_sha256: card.weights_sha256.clone(),
        };
        return Ok((Some((p, card.lineage_seconds)), None));
    }
    let Some(init) = &meta.config.run.init else {
        return Ok((None, None));
    };
    let released = model::folder(init)
        .ok()
        .and_then(|d| lineage::read(&d).ok())
        .filter(|r| lineage::verify(r, &roots).0.is_verified());
    match released.and_then(|r| r.card) {
        Some(card) => Ok((
            Some((
                ParentRef {
                    id: card.id.clone(),
                    weights_sha256: card.weights_sha256.clone(),
                },
                card.lineage_seconds,
            )),
            None,
        )),
        None => Ok((
            None,
            Some(format!(
                "started from {} (run.init), which is not a verified release",
                init.display()
            )),
        )),
    }
}

/// The release card of the run in `dir` whose stages are `stages`, for network `name` with
/// weights hash `sha`.
fn card(
    name: &str,
    sha: &str,
    stages: &[StageRun],
    record: Option<&RecipeFile>,
) -> anyhow::Result<ReleaseCard> {
    let (first, last) = (&stages[0].1, &stages[stages.len() - 1].1);
    let (parent, start_note) = parent_of(first)?;
    let mut why_not = Vec::new();
    why_not.extend(start_note);
    let recipe = match record {
        Some(r) => {
            let hashes: Vec<&str> = r
                .sittings
                .iter()
                .map(|s| s.config_sha256.as_str())
                .collect();
            if hashes.windows(2).any(|w| w[0] != w[1]) {
                why_not.push(format!("{} changed between sittings", r.config));
            }
            let learning: Vec<&String> = r
                .sittings
                .iter()
                .flat_map(|s| &s.sets)
                .filter(|set| changes_the_network(set))
                .collect();
            if !learning.is_empty() {
                why_not.push(format!(
                    "a sitting overrode keys on the command line (--set {})",
                    learning
                        .iter()
                        .map(|s| s.as_str())
                        .collect::<Vec<_>>()
                        .join(", --set ")
                ));
            }
            let last_sitting = r.sittings.last();
            Some(RecipeRecord {
                config: r.config.clone(),
                config_sha256: last_sitting
                    .map(|s| s.config_sha256.clone())
                    .unwrap_or_default(),
                sets: last_sitting.map(|s| s.sets.clone()).unwrap_or_default(),
                stages: stages
                    .iter()
                    .map(|(_, m)| StageRecord {
                        name: m.config.run.name.clone(),
                        iterations: m.iteration,
                        seconds: m.seconds,
                        commits: m.commits.clone(),
                    })
                    .collect(),
            })
        }
        None => {
            why_not.push("the run has no recipe record (recipe.json)".into());
            None
        }
    };
    let commits: Vec<&String> = stages.iter().flat_map(|(_, m)| &m.commits).collect();
    if commits.is_empty() {
        why_not.push("no commit of the binaries is on record".into());
    }
    for c in &commits {
        if c.ends_with("+dirty") || c.as_str() == "unknown" {
            why_not.push(format!("a binary was built from {c}, not a clean commit"));
            break;
        }
    }
    let training_seconds: f64 = stages.iter().map(|(_, m)| m.seconds).sum();
    let date = lineage::today();
    let judged = last.evaluations.last().map(|e| Judged {
        iteration: e.iteration,
        judge_optimal: e.solver.as_ref().map(|s| s.optimal_rate),
        judge_stderr: e.solver.as_ref().map(|s| s.std_err),
        judge_positions: e.solver.as_ref().map(|s| s.positions),
        heldout: e
            .heldout
            .iter()
            .map(|h| (h.set.clone(), h.optimal_rate))
            .collect(),
    });
    Ok(ReleaseCard {
        id: lineage::release_id(name, &date, sha),
        name: name.to_string(),
        date,
        weights_sha256: sha.to_string(),
        rebuildable: why_not.is_empty(),
        recipe,
        lineage_seconds: training_seconds + parent.as_ref().map_or(0.0, |p| p.1),
        parent: parent.map(|p| p.0),
        training_seconds,
        commit: commits
            .last()
            .map(|c| c.to_string())
            .unwrap_or_else(|| "unknown".into()),
        judged,
        history: why_not
            .into_iter()
            .map(|w| format!("not rebuildable: {w}"))
            .collect(),
    })
}

/// Releases the run `run` (a recipe's folder, one run's folder, or a sidecar) as the network
/// `name` in `root` (`checkpoints`): the last stage's weights, and its sidecar naming them alone
/// with a release card. Each file is written under a temporary name and renamed, the sidecar
/// last. Refuses an unfinished stage, a checkpoint that does not load, a name that is not a plain
/// folder name or is one of [`model::NOT_NETWORKS`], and a name already there unless `force`.
pub fn release(run: &Path, root: &Path, name: &str, force: bool) -> anyhow::Result<Released> {
    if !lineage::is_plain_name(name) {
        bail!("the network name '{name}' is not a plain folder name (letters, digits, - and _)");
    }
    if model::NOT_NETWORKS.contains(&name) {
        bail!(
            "{} holds no networks (checkpoints/README.md): choose another name",
            root.join(name).display()
        );
    }
    let run_dir = model::folder(run)?;
    let (stages, record) = stages(&run_dir)?;
    let dir = stages[stages.len() - 1].0.clone();
    let (_, meta) = checkpoint::load_net(&dir, &Device::flex())
        .with_context(|| format!("{} cannot be released", dir.display()))?;
    let target = root.join(name);
    let replaced = target.exists();
    if replaced {
        let same = |a: &Path| a.canonicalize().ok();
        if same(&target) == same(&dir) {
            bail!("{} is the checkpoint itself", target.display());
        }
        if !force {
            bail!(
                "{} exists: pass --force to replace it, or choose another name",
                target.display()
            );
        }
        if !target.is_dir() {
            bail!("{} is not a folder", target.display());
        }
    }
    let model = meta.files.model.clone();
    let from = dir.join(&model);
    let sha =
        lineage::sha256_file(&from).with_context(|| format!("cannot read {}", from.display()))?;
    let card = card(name, &sha, &stages, record.as_ref())?;
    std::fs::create_dir_all(&target)
        .with_context(|| format!("cannot create {}", target.display()))?;
    files::write_via_temp(&target.join(&model), |tmp| {
        std::fs::copy(&from, tmp).map(|_| ())
    })
    .with_context(|| format!("cannot copy {} into {}", from.display(), target.display()))?;
    let mut released = meta.clone();
    released.files = meta.files.released();
    released.release = Some(card.clone());
    let side = target.join("meta.json");
    files::write_bytes(&side, serde_json::to_string_pretty(&released)?.as_bytes())
        .with_context(|| format!("cannot write {}", side.display()))?;
    checkpoint::remove_unnamed(&target, &released.files);
    Ok(Released {
        run: run_dir,
        network: target,
        model,
        iteration: meta.iteration,
        rules: meta.rules.build()?.describe(),
        replaced,
        release: card,
    })
}
