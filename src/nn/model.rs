//! Trained models on disk, as players read them: a checkpoint folder's weights (`model.bpk`) and
//! the part of its sidecar (`meta.json`) that says how to play with them (rules, network shape,
//! search settings). Training writes the whole sidecar ([`crate::train::checkpoint`]).

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use burn::prelude::*;
use serde::{Deserialize, Serialize};

use super::{Net, NetConfig};
use crate::rules::{Rules, RulesSpec};
use crate::search::SearchConfig;

/// Format tag of `meta.json`.
pub const FORMAT: &str = "kalaha-checkpoint-1";

/// The files of a checkpoint that its sidecar names.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Files {
    /// The weights.
    pub model: String,
    /// The optimizer state, if kept.
    #[serde(default)]
    pub optim: Option<String>,
    /// The run state (replay buffer, games in flight), if kept.
    #[serde(default)]
    pub state: Option<String>,
}

impl Default for Files {
    /// The names of checkpoints made before they were versioned.
    fn default() -> Files {
        Files {
            model: "model.bpk".into(),
            optim: Some("optim.bpk".into()),
            state: None,
        }
    }
}

/// What a player needs of a checkpoint's sidecar.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelCard {
    /// The rules the network plays.
    pub rules: RulesSpec,
    /// The network's shape and input.
    pub network: NetConfig,
    /// The search settings of its self-play (utility and Q transform).
    pub search: SearchConfig,
    /// The weights file, in the checkpoint's folder.
    pub model_file: String,
}

/// The sidecar fields read here; the others belong to training.
#[derive(Deserialize)]
struct CardFile {
    format: String,
    rules: RulesSpec,
    network: NetConfig,
    config: CardConfig,
    #[serde(default)]
    files: Files,
}

#[derive(Deserialize)]
struct CardConfig {
    search: SearchConfig,
}

/// A checkpoint's weights and card, ready to evaluate on `device`.
#[derive(Clone, Debug)]
pub struct Model {
    /// The network (a validation copy: no autodiff).
    pub net: Net,
    /// What the sidecar says of it.
    pub card: ModelCard,
}

/// The checkpoint folder a path names: the folder itself, or the folder of its `meta.json` or
/// `model.bpk`. A path that does not exist is refused with its own name.
pub fn folder(path: &Path) -> anyhow::Result<PathBuf> {
    if path.is_dir() {
        Ok(path.to_path_buf())
    } else if path.is_file() {
        Ok(path.parent().unwrap_or(Path::new(".")).to_path_buf())
    } else {
        bail!("no checkpoint at {}", path.display())
    }
}

/// Checks a sidecar's format tag and rules; `side` names the file in errors.
pub fn check_format(format: &str, rules: &RulesSpec, side: &Path) -> anyhow::Result<Rules> {
    if format != FORMAT {
        bail!(
            "{}: unknown checkpoint format '{format}' (expected {FORMAT})",
            side.display()
        );
    }
    rules
        .build()
        .with_context(|| format!("{}: bad rules", side.display()))
}

/// Reads and checks the card of the checkpoint in `dir`.
pub fn load_card(dir: &Path) -> anyhow::Result<ModelCard> {
    let side = dir.join("meta.json");
    let text = std::fs::read_to_string(&side)
        .with_context(|| format!("no checkpoint at {}", dir.display()))?;
    let f: CardFile = serde_json::from_str(&text)
        .with_context(|| format!("corrupt checkpoint sidecar {}", side.display()))?;
    check_format(&f.format, &f.rules, &side)?;
    Ok(ModelCard {
        rules: f.rules,
        network: f.network,
        search: f.config.search,
        model_file: f.files.model,
    })
}

/// Loads the weights `file` of the checkpoint in `dir` for a network of shape `network` and rules
/// `rules`, onto `device`.
pub fn load_weights(
    dir: &Path,
    file: &str,
    network: &NetConfig,
    rules: &RulesSpec,
    device: &Device,
) -> anyhow::Result<Net> {
    let rules = rules.build()?;
    let model = dir.join(file);
    Net::new(network, rules.pits(), device)
        .try_load_file(&model)
        .map_err(|e| {
            anyhow::anyhow!(
                "{}: missing, corrupt or not made for this network shape: {e:?}",
                model.display()
            )
        })
}

/// Loads the checkpoint a path names (see [`folder`]) for play on the CPU.
pub fn load(path: &Path) -> anyhow::Result<Model> {
    let dir = folder(path)?;
    let card = load_card(&dir)?;
    let net = load_weights(
        &dir,
        &card.model_file,
        &card.network,
        &card.rules,
        &Device::flex(),
    )?;
    Ok(Model {
        net: net.valid(),
        card,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_path_is_named() {
        let e = load(Path::new("/nonexistent/run")).unwrap_err().to_string();
        assert_eq!(e, "no checkpoint at /nonexistent/run");
    }

    #[test]
    fn the_committed_network_loads_with_its_card() {
        let m = load(Path::new("checkpoints/kalah64")).unwrap();
        assert_eq!(m.card.rules, Rules::kalah64().spec());
        assert_eq!(m.net.input(), m.card.network.input);
    }
}
