//! Checkpoints: `model.bpk` (burnpack weights), `optim.bpk` (AdamW state) and `meta.json` (config,
//! rules, network shape, progress and evaluations) in `checkpoints/<run>/`. Each file is written
//! under a temporary name and renamed; `meta.json` goes last, so a checkpoint is complete once its
//! sidecar names it.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use burn::optim::ModuleOptimizer;
use burn::prelude::*;
use serde::{Deserialize, Serialize};

use super::TrainConfig;
use super::eval::SeatResult;
use crate::nn::{Net, NetConfig};
use crate::rules::{Rules, RulesSpec};

/// Format tag of `meta.json`.
pub const FORMAT: &str = "kalaha-checkpoint-1";

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
}

fn tmp(path: &Path) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(".tmp");
    PathBuf::from(s)
}

/// Writes a checkpoint into `dir` atomically file by file, the sidecar last.
pub fn save(dir: &Path, net: &Net, optim: &ModuleOptimizer, meta: &Meta) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let model = dir.join("model.bpk");
    let opt = dir.join("optim.bpk");
    let side = dir.join("meta.json");
    net.clone()
        .save_file(tmp(&model))
        .map_err(|e| anyhow::anyhow!("saving {}: {e:?}", model.display()))?;
    optim
        .save(tmp(&opt))
        .map_err(|e| anyhow::anyhow!("saving {}: {e:?}", opt.display()))?;
    std::fs::write(tmp(&side), serde_json::to_string_pretty(meta)?)?;
    for p in [&model, &opt, &side] {
        std::fs::rename(tmp(p), p).with_context(|| format!("cannot write {}", p.display()))?;
    }
    Ok(())
}

/// The checkpoint folder a path names: the folder itself, or the folder of its `meta.json` or
/// `model.bpk`.
pub fn folder(path: &Path) -> PathBuf {
    if path.is_dir() {
        path.to_path_buf()
    } else {
        path.parent().unwrap_or(Path::new(".")).to_path_buf()
    }
}

/// Reads and checks a checkpoint's sidecar.
pub fn load_meta(dir: &Path) -> anyhow::Result<Meta> {
    let side = dir.join("meta.json");
    let text = std::fs::read_to_string(&side)
        .with_context(|| format!("no checkpoint at {}", dir.display()))?;
    let meta: Meta = serde_json::from_str(&text)
        .with_context(|| format!("corrupt checkpoint sidecar {}", side.display()))?;
    if meta.format != FORMAT {
        bail!(
            "{}: unknown checkpoint format '{}' (expected {FORMAT})",
            side.display(),
            meta.format
        );
    }
    meta.rules
        .build()
        .with_context(|| format!("{}: bad rules", side.display()))?;
    Ok(meta)
}

/// Loads a checkpoint's network onto `device`, checking its shape against the sidecar.
pub fn load_net(dir: &Path, device: &Device) -> anyhow::Result<(Net, Meta)> {
    let meta = load_meta(dir)?;
    let rules = meta.rules.build()?;
    let net = Net::new(&meta.network, rules.pits(), device);
    let model = dir.join("model.bpk");
    let net = net.try_load_file(&model).map_err(|e| {
        anyhow::anyhow!(
            "{}: corrupt or not made for this network shape: {e:?}",
            model.display()
        )
    })?;
    Ok((net, meta))
}

/// Loads the optimizer state of a checkpoint.
pub fn load_optim(dir: &Path, optim: ModuleOptimizer) -> anyhow::Result<ModuleOptimizer> {
    let p = dir.join("optim.bpk");
    optim
        .load(&p)
        .map_err(|e| anyhow::anyhow!("{}: corrupt optimizer state: {e:?}", p.display()))
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
