//! Checkpoints: in `checkpoints/<run>/`, the weights (`model-N.bpk`, burnpack), the AdamW state
//! (`optim-N.bpk`), the run state (`state-N.bin`: the replay buffer and the self-play games in
//! flight, [`super::state`]) and the sidecar `meta.json` (config, rules, network shape, progress,
//! evaluations, and the names of the other three files). `N` is the iteration.
//!
//! Each file is written under a temporary name and renamed; the sidecar goes last and is the
//! commit point: a checkpoint is the files its sidecar names, so a crash at any moment leaves the
//! previous checkpoint whole (its files are removed only after the new sidecar is in place).

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
    pub solver: Option<super::judge::JudgeScore>,
    /// The network alone on the held-out sets, if the run has them.
    #[serde(default)]
    pub heldout: Vec<super::heldout::HeldoutScore>,
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
    /// The checkpoint's other files (absent in checkpoints made before they were versioned:
    /// `model.bpk` and `optim.bpk`, no run state).
    #[serde(default)]
    pub files: Files,
}

/// Writes a checkpoint into `dir`: weights, optimizer and run state under names of this
/// iteration, then the sidecar that names them, then removes the files of older checkpoints.
pub fn save(
    dir: &Path,
    net: &Net,
    optim: &ModuleOptimizer,
    state: &[u8],
    meta: &mut Meta,
) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let it = meta.iteration;
    let (model, opt, run) = (
        format!("model-{it:06}.bpk"),
        format!("optim-{it:06}.bpk"),
        format!("state-{it:06}.bin"),
    );
    let other = |e| std::io::Error::other(format!("{e:?}"));
    let saving = |name: &str| format!("saving {}", dir.join(name).display());
    files::write_via_temp(&dir.join(&model), |p| {
        net.clone().save_file(p).map_err(other)
    })
    .with_context(|| saving(&model))?;
    files::write_via_temp(&dir.join(&opt), |p| optim.save(p).map_err(other))
        .with_context(|| saving(&opt))?;
    files::write_bytes(&dir.join(&run), state).with_context(|| saving(&run))?;
    meta.files = Files {
        model,
        optim: Some(opt),
        state: Some(run),
    };
    let side = dir.join("meta.json");
    files::write_bytes(&side, serde_json::to_string_pretty(meta)?.as_bytes())
        .with_context(|| format!("cannot write {}", side.display()))?;
    remove_unnamed(dir, &meta.files);
    Ok(())
}

/// Removes the weight, optimizer and state files in `dir` that `keep` does not name.
fn remove_unnamed(dir: &Path, keep: &Files) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let named = [
        Some(keep.model.as_str()),
        keep.optim.as_deref(),
        keep.state.as_deref(),
    ];
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(name) = name.to_str() else { continue };
        let ours = ["model", "optim", "state"]
            .iter()
            .any(|p| name.starts_with(&format!("{p}-")) || name == format!("{p}.bpk"))
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
    let p = dir.join(meta.files.optim.as_deref().unwrap_or("optim.bpk"));
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
    "run.experiment_dir",
    "run.device",
    "run.init",
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
