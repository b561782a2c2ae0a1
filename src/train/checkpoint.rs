//! Checkpoints: in `<run.checkpoint_dir>/<run>/` (`checkpoints/runs/<run>/`), the weights (`model-N.bpk`, burnpack), the AdamW state
//! (`optim-N.bpk`), the run state (`state-N.bin`: the replay buffer and the self-play games in
//! flight, [`super::state`]) and the sidecar `meta.json` (config, rules, network shape, progress,
//! evaluations, and the names of the other three files). `N` is the iteration.
//!
//! Each file is written under a temporary name and renamed; the sidecar goes last and is the
//! commit point: a checkpoint is the files its sidecar names, so a crash at any moment leaves the
//! previous checkpoint whole (its files are removed only after the new sidecar is in place).
//!
//! [`super::release`] copies a run's latest weights and sidecar into `checkpoints/<name>/` as a
//! released network (`checkpoints/README.md`).

use std::path::Path;

use anyhow::{Context, bail};
use burn::optim::ModuleOptimizer;
use burn::prelude::*;
use serde::{Deserialize, Serialize};

use super::TrainConfig;
use super::eval::SeatResult;
use crate::files;
use crate::nn::model;
use crate::nn::{Net, NetConfig};
use crate::rules::{Rules, RulesSpec};

pub use crate::nn::model::{FORMAT, Files};

/// One evaluation of the network during training.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Evaluation {
    /// Iteration after which it ran.
    pub iteration: u32,
    /// Wall-clock seconds of training so far.
    pub seconds: f64,
    /// Results by opponent and seat.
    pub games: Vec<SeatResult>,
    /// The network alone against the exact solver, if judged.
    #[serde(default)]
    pub solver: Option<crate::eval::judge::JudgeScore>,
    /// The network alone on the held-out sets, if the run has them.
    #[serde(default)]
    pub heldout: Vec<crate::eval::heldout::HeldoutScore>,
    /// In a run with a moving average (whose scores above are the average's): the trained
    /// weights' own scores on the same sets, a paired ablation of the average.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trained: Option<TrainedScores>,
}

/// The trained weights' scores where a run evaluates their moving average.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrainedScores {
    /// On the judge set, if judged.
    #[serde(default)]
    pub solver: Option<crate::eval::judge::JudgeScore>,
    /// On the held-out sets.
    #[serde(default)]
    pub heldout: Vec<crate::eval::heldout::HeldoutScore>,
}

/// The sidecar `meta.json`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Meta {
    /// Always [`FORMAT`].
    pub format: String,
    /// The rules the network plays.
    pub rules: RulesSpec,
    /// The network's shape.
    pub network: NetConfig,
    /// The run's configuration.
    pub config: TrainConfig,
    /// Iterations completed.
    pub iteration: u32,
    /// Gradient steps taken.
    pub step: u64,
    /// Self-play positions generated.
    pub positions: u64,
    /// Self-play games finished.
    pub games: u64,
    /// Training wall-clock seconds, summed over sessions.
    pub seconds: f64,
    /// Every evaluation so far, latest last.
    pub evaluations: Vec<Evaluation>,
    /// The checkpoint's files: the weights, and in a run's checkpoint (not a released network's)
    /// the optimizer and run state.
    pub files: Files,
    /// The commits of the binaries that trained it, one a sitting, without repeats
    /// ([`crate::lineage::COMMIT`]; sidecars made before it was kept have none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub commits: Vec<String>,
    /// A released network's identity and lineage (`kalaha release` writes it; a run's
    /// checkpoints have none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub release: Option<crate::lineage::ReleaseCard>,
}

impl Meta {
    /// Notes that this binary trains on: its commit is added unless it was the last one.
    pub fn stamp_commit(&mut self) {
        if self.commits.last().map(String::as_str) != Some(crate::lineage::COMMIT) {
            self.commits.push(crate::lineage::COMMIT.to_string());
        }
    }
}

/// Writes a checkpoint into `dir`: weights (`net`, and `training` where the trained weights are
/// not `net`: a run's moving average), optimizer and run state under names of this iteration,
/// then the sidecar that names them, then removes the files of older checkpoints.
pub fn save(
    dir: &Path,
    net: &Net,
    training: Option<&Net>,
    optim: &ModuleOptimizer,
    state: &[u8],
    meta: &mut Meta,
) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let names = Files::of_run(meta.iteration, training.is_some());
    let (model, opt, run) = (
        names.model.clone(),
        names.optim.clone().unwrap_or_default(),
        names.state.clone().unwrap_or_default(),
    );
    let other = |e| std::io::Error::other(format!("{e:?}"));
    let saving = |name: &str| format!("saving {}", dir.join(name).display());
    files::write_via_temp(&dir.join(&model), |p| {
        net.clone().save_file(p).map_err(other)
    })
    .with_context(|| saving(&model))?;
    if let (Some(net), Some(name)) = (training, &names.training) {
        files::write_via_temp(&dir.join(name), |p| net.clone().save_file(p).map_err(other))
            .with_context(|| saving(name))?;
    }
    files::write_via_temp(&dir.join(&opt), |p| optim.save(p).map_err(other))
        .with_context(|| saving(&opt))?;
    files::write_bytes(&dir.join(&run), state).with_context(|| saving(&run))?;
    meta.files = names;
    let side = dir.join("meta.json");
    files::write_bytes(&side, serde_json::to_string_pretty(meta)?.as_bytes())
        .with_context(|| format!("cannot write {}", side.display()))?;
    remove_unnamed(dir, &meta.files);
    Ok(())
}

/// Removes the weight, optimizer and state files in `dir` that `keep` does not name.
pub(crate) fn remove_unnamed(dir: &Path, keep: &Files) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let named = [
        Some(keep.model.as_str()),
        keep.optim.as_deref(),
        keep.state.as_deref(),
        keep.training.as_deref(),
    ];
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(name) = name.to_str() else { continue };
        let ours = ["model-", "optim-", "state-", "train-"]
            .iter()
            .any(|p| name.starts_with(p))
            && (name.ends_with(".bpk") || name.ends_with(".bin"));
        if ours && !named.contains(&Some(name)) {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// Reads and checks a checkpoint's sidecar.
pub fn load_meta(dir: &Path) -> anyhow::Result<Meta> {
    let side = dir.join("meta.json");
    let text = std::fs::read_to_string(&side)
        .with_context(|| format!("no checkpoint at {}", dir.display()))?;
    let meta: Meta = serde_json::from_str(&text)
        .with_context(|| format!("corrupt checkpoint sidecar {}", side.display()))?;
    model::check_format(&meta.format, &meta.rules, &side)?;
    Ok(meta)
}

/// Loads a checkpoint's network onto `device`, checking its shape against the sidecar.
pub fn load_net(dir: &Path, device: &Device) -> anyhow::Result<(Net, Meta)> {
    let meta = load_meta(dir)?;
    let net = model::load_weights(dir, &meta.files.model, &meta.network, &meta.rules, device)?;
    Ok((net, meta))
}

/// Loads the optimizer state of a checkpoint.
pub fn load_optim(
    dir: &Path,
    meta: &Meta,
    optim: ModuleOptimizer,
) -> anyhow::Result<ModuleOptimizer> {
    let Some(name) = &meta.files.optim else {
        bail!(
            "{}: no optimizer state (a released network, not a run to continue)",
            dir.display()
        );
    };
    let p = dir.join(name);
    optim
        .load(&p)
        .map_err(|e| anyhow::anyhow!("{}: missing or corrupt optimizer state: {e:?}", p.display()))
}

/// Reads the run state of a checkpoint, if it has one.
pub fn load_state(dir: &Path, meta: &Meta) -> anyhow::Result<Option<Vec<u8>>> {
    let Some(name) = &meta.files.state else {
        return Ok(None);
    };
    let p = dir.join(name);
    std::fs::read(&p)
        .map(Some)
        .with_context(|| format!("cannot read the run state {}", p.display()))
}

/// Refuses a checkpoint made for other rules or another network shape.
pub fn check_compatible(
    meta: &Meta,
    rules: &Rules,
    network: &NetConfig,
    dir: &Path,
) -> anyhow::Result<()> {
    if meta.rules != rules.spec() {
        bail!(
            "checkpoint {} was made for other rules ({}), not {}",
            dir.display(),
            meta.rules.build().map(|r| r.describe()).unwrap_or_default(),
            rules.describe()
        );
    }
    if meta.network != *network {
        bail!(
            "checkpoint {} has another network shape ({:?}), not {:?}",
            dir.display(),
            meta.network,
            network
        );
    }
    Ok(())
}

/// Config keys a resumed run may change: its length, where and how often it saves, the device,
/// and the evaluation settings.
const MAY_CHANGE: &[&str] = &[
    "run.iterations",
    "run.checkpoint_every",
    "run.checkpoint_dir",
    "run.judge_dir",
    "run.experiment_dir",
    "run.device",
    "run.init",
    "run.parent",
    "eval.",
];

/// The dotted keys whose values differ between two configs, other than those that may change.
pub fn changed_keys(old: &TrainConfig, new: &TrainConfig) -> Vec<String> {
    fn flatten(prefix: &str, v: &serde_json::Value, out: &mut Vec<(String, String)>) {
        match v {
            serde_json::Value::Object(m) => {
                for (k, x) in m {
                    let key = if prefix.is_empty() {
                        k.clone()
                    } else {
                        format!("{prefix}.{k}")
                    };
                    flatten(&key, x, out);
                }
            }
            other => out.push((prefix.to_string(), other.to_string())),
        }
    }
    let (mut a, mut b) = (Vec::new(), Vec::new());
    flatten("", &serde_json::to_value(old).unwrap_or_default(), &mut a);
    flatten("", &serde_json::to_value(new).unwrap_or_default(), &mut b);
    let mut keys: Vec<String> = a
        .iter()
        .map(|x| &x.0)
        .chain(b.iter().map(|x| &x.0))
        .filter(|k| !MAY_CHANGE.iter().any(|m| k.starts_with(m)))
        .filter(|k| {
            a.iter().find(|x| &x.0 == *k).map(|x| &x.1)
                != b.iter().find(|x| &x.0 == *k).map(|x| &x.1)
        })
        .cloned()
        .collect();
    keys.sort();
    keys.dedup();
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A resume may move every folder; a sidecar written before `run.judge_dir` existed reads
    /// as its default.
    #[test]
    fn a_resume_may_move_the_folders() {
        let smoke = include_str!("../../configs/smoke.toml");
        let a = TrainConfig::parse(smoke, &[]).unwrap();
        let moved = [
            "run.checkpoint_dir=\"x\"".to_string(),
            "run.judge_dir=\"y\"".to_string(),
            "run.experiment_dir=\"z\"".to_string(),
        ];
        let b = TrainConfig::parse(smoke, &moved).unwrap();
        assert!(changed_keys(&a, &b).is_empty());
        let mut old = serde_json::to_value(&a).unwrap();
        old["run"].as_object_mut().unwrap().remove("judge_dir");
        assert_eq!(serde_json::from_value::<TrainConfig>(old).unwrap(), a);
    }
}
