//! Trained models on disk, as players read them: a checkpoint folder's weights (`model-N.bpk`) and
//! the part of its sidecar (`meta.json`) that says how to play with them (rules, network shape,
//! search settings). Training writes the whole sidecar ([`crate::train::checkpoint`]).
//!
//! [`find_for`] finds the committed network of exactly one set of rules: the folder named
//! [`Rules::canonical_name`] (`checkpoints/kalah64`, `checkpoints/norwegian`, ...) or any other
//! whose sidecar names those rules. A network never plays rules it was not trained for.

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
    /// The weights being trained, where they are not `model`: in a run with `optim.ema_decay`,
    /// whose `model` is their moving average. Read only by `--resume`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub training: Option<String>,
}

impl Files {
    /// The files of a run's checkpoint after iteration `it`: `model-N.bpk`, `optim-N.bpk` and
    /// `state-N.bin`, `N` the iteration in six digits, and with `averaged` (a moving average as the
    /// model) the trained weights `train-N.bpk`.
    pub fn of_run(it: u32, averaged: bool) -> Files {
        Files {
            model: format!("model-{it:06}.bpk"),
            optim: Some(format!("optim-{it:06}.bpk")),
            state: Some(format!("state-{it:06}.bin")),
            training: averaged.then(|| format!("train-{it:06}.bpk")),
        }
    }

    /// The same weights released: no optimizer or run state.
    pub fn released(&self) -> Files {
        Files {
            model: self.model.clone(),
            optim: None,
            state: None,
            training: None,
        }
    }

    /// Whether these are a released network's files: weights alone, no optimizer or run state
    /// (how `checkpoints/kalah64` and its siblings are committed).
    pub fn is_released(&self) -> bool {
        self.optim.is_none() && self.state.is_none()
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
    /// The endgame database its self-play searched with (`selfplay.endgame_db_seeds`, 0: none),
    /// where the sidecar records it.
    pub endgame_db_seeds: Option<u32>,
    /// Its release id where the sidecar has a release card, set by [`load`] once checked against
    /// the weights ([`crate::lineage::id_note`]: the id, or the id and why it is not trusted);
    /// `None` from [`load_card`], which reads no weights.
    pub release: Option<String>,
}

/// The sidecar fields read here; the others belong to training.
#[derive(Deserialize)]
struct CardFile {
    format: String,
    rules: RulesSpec,
    network: NetConfig,
    config: CardConfig,
    /// Required: sidecars made before checkpoint files were versioned (which did not name them)
    /// are of networks whose input is no longer read.
    files: Files,
}

#[derive(Deserialize)]
struct CardConfig {
    search: SearchConfig,
    #[serde(default)]
    selfplay: Option<CardSelfplay>,
}

#[derive(Deserialize)]
struct CardSelfplay {
    #[serde(default)]
    endgame_db_seeds: Option<u32>,
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
/// weights file. A path that does not exist is refused with its own name.
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
    let total = check_format(&f.format, &f.rules, &side)?.total_seeds();
    if !f.network.margin_bins_fit(total) {
        bail!(
            "{}: network.margin_bins is {}, not 0 or all seeds + 1 = {}",
            side.display(),
            f.network.margin_bins,
            NetConfig::margin_bins_for(total)
        );
    }
    Ok(ModelCard {
        rules: f.rules,
        network: f.network,
        search: f.config.search,
        model_file: f.files.model,
        endgame_db_seeds: f.config.selfplay.and_then(|p| p.endgame_db_seeds),
        release: None,
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
    let mut card = load_card(&dir)?;
    card.release = crate::lineage::id_note(&dir);
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

/// The environment variable that names folders of checkpoints to search first (a path list, as
/// `PATH` is written).
pub const ROOTS_VAR: &str = "KALAHA_CHECKPOINTS";

/// Folders of `checkpoints/` that hold no released networks, whatever they contain: the judge
/// sets and the runs' output (`checkpoints/README.md`).
pub const NOT_NETWORKS: &[&str] = &["judge", "labels", "runs"];

/// The released networks in `root` (a `checkpoints/` folder), sorted by name: every folder but
/// [`NOT_NETWORKS`] whose sidecar names weights alone, no optimizer or run state (what
/// `kalaha release` writes). The rule `python/build.rs` embeds the package's networks by; a
/// sidecar that cannot be read is passed over.
pub fn released_networks(root: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(root) else {
        return Vec::new();
    };
    let mut dirs: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| !NOT_NETWORKS.iter().any(|n| e.file_name() == *n))
        .map(|e| e.path())
        .filter(|d| d.join("meta.json").is_file() && released_files(d).unwrap_or(false))
        .collect();
    dirs.sort();
    dirs
}

/// Whether the sidecar in `dir` names weights alone.
fn released_files(dir: &Path) -> anyhow::Result<bool> {
    #[derive(Deserialize)]
    struct Side {
        files: Files,
    }
    let text = std::fs::read_to_string(dir.join("meta.json"))?;
    Ok(serde_json::from_str::<Side>(&text)?.files.is_released())
}

/// Where [`find_for`] looks, in order: each folder of `$KALAHA_CHECKPOINTS`, `./checkpoints`, and
/// the `checkpoints` folder of the source tree this was built from. A folder named twice (the
/// last two, when run from the repository) is kept once.
pub fn checkpoint_roots() -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = std::env::var_os(ROOTS_VAR)
        .map(|v| std::env::split_paths(&v).collect())
        .unwrap_or_default();
    roots.push(PathBuf::from("checkpoints"));
    roots.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("checkpoints"));
    let mut seen = Vec::new();
    roots.retain(|r| {
        if r.as_os_str().is_empty() {
            return false;
        }
        let key = r.canonicalize().unwrap_or_else(|_| r.clone());
        let new = !seen.contains(&key);
        seen.push(key);
        new
    });
    roots
}

/// The network found for a set of rules.
#[derive(Clone, Debug)]
pub struct Found {
    /// Its checkpoint folder (a search root joined with the folder's name).
    pub dir: PathBuf,
    /// Its card; its rules are exactly those asked for.
    pub card: ModelCard,
}

/// Why no network plays a set of rules: none in the folders searched is for exactly them.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "no network was trained for {rules} ({name}): no checkpoint for exactly these rules in {searched}{notes}",
    searched = list(roots),
    notes = notes.iter().map(|n| format!("; {n}")).collect::<String>()
)]
pub struct NotFound {
    /// The rules, described.
    pub rules: String,
    /// Their canonical name.
    pub name: String,
    /// The folders searched.
    pub roots: Vec<PathBuf>,
    /// Why a folder of the rules' canonical name that exists cannot serve (unreadable, other
    /// rules, no weights).
    pub notes: Vec<String>,
}

fn list(paths: &[PathBuf]) -> String {
    let v: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    v.join(", ")
}

/// The card of the network in `dir` if it is one for exactly `rules` with its weights present;
/// else why not.
fn card_for(dir: &Path, rules: &RulesSpec) -> Result<ModelCard, String> {
    let card = load_card(dir).map_err(|e| format!("{e:#}"))?;
    if card.rules != *rules {
        let other = card.rules.build().map(|r| r.describe()).unwrap_or_default();
        return Err(format!("{} holds a network for {other}", dir.display()));
    }
    if !dir.join(&card.model_file).is_file() {
        return Err(format!(
            "{}: its weights {} are missing",
            dir.display(),
            card.model_file
        ));
    }
    Ok(card)
}

/// The committed network for exactly `rules`, searched in [`checkpoint_roots`] (see
/// [`find_in`]).
pub fn find_for(rules: &Rules) -> Result<Found, NotFound> {
    find_in(rules, &checkpoint_roots())
}

/// The network for exactly `rules` (pits, seeds, capture, leftover, end and pie) in `roots`, each
/// root in turn: its folder of the rules' canonical name ([`Rules::canonical_name`]) if that
/// holds one, else the first folder by name whose sidecar names exactly these rules and whose
/// weights are there. Folders that cannot be read are passed over; the error says why the
/// canonical folder, where it exists, could not serve. Reads sidecars only, not weights.
pub fn find_in(rules: &Rules, roots: &[PathBuf]) -> Result<Found, NotFound> {
    let spec = rules.spec();
    let name = rules.canonical_name();
    let mut notes = Vec::new();
    for root in roots {
        let canonical = root.join(&name);
        if canonical.is_dir() {
            match card_for(&canonical, &spec) {
                Ok(card) => {
                    return Ok(Found {
                        dir: canonical,
                        card,
                    });
                }
                Err(why) => notes.push(why),
            }
        }
        let Ok(entries) = std::fs::read_dir(root) else {
            continue;
        };
        // The canonical folder was tried above; the others in order of their names.
        let mut folders: Vec<std::ffi::OsString> = entries
            .filter_map(|e| e.ok())
            .filter(|e| e.path().is_dir())
            .map(|e| e.file_name())
            .filter(|n| *n != *name.as_str() && !NOT_NETWORKS.iter().any(|s| n == *s))
            .collect();
        folders.sort();
        for folder in folders {
            let dir = root.join(folder);
            if let Ok(card) = card_for(&dir, &spec) {
                return Ok(Found { dir, card });
            }
        }
    }
    Err(NotFound {
        rules: rules.describe(),
        name,
        roots: roots.to_vec(),
        notes,
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

    /// Every released network under `checkpoints/` (found as `python/build.rs` finds those it
    /// embeds) loads: its sidecar names its input and files (neither has a default any more) and
    /// its weights fit, and it evaluates its rules' start position.
    #[test]
    fn every_committed_network_loads() {
        use crate::nn::NetEvaluator;
        use crate::search::Evaluator;

        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("checkpoints");
        let mut loaded = Vec::new();
        for dir in released_networks(&root) {
            let m = load(&dir).unwrap_or_else(|e| panic!("{}: {e:#}", dir.display()));
            assert_eq!(m.net.input(), m.card.network.input, "{}", dir.display());
            let rules = m.card.rules.build().unwrap();
            let mut ev = NetEvaluator::new(m.net, Device::flex());
            let (mut logits, mut values, mut margins) = (Vec::new(), Vec::new(), Vec::new());
            let start = [crate::rules::Position::start(&rules)];
            ev.evaluate(&start, &mut logits, &mut values, &mut margins);
            assert_eq!(logits.len(), rules.pits() + 1, "{}", dir.display());
            assert!(logits.iter().chain(&values).all(|x| x.is_finite()));
            loaded.push(dir.file_name().unwrap().to_str().unwrap().to_string());
        }
        for name in [
            "children",
            "danish",
            "kalah64",
            "kalah64-pie",
            "norwegian",
            "swedish",
        ] {
            assert!(loaded.iter().any(|l| l == name), "{name} in {loaded:?}");
        }
    }

    /// Released networks are the folders whose sidecar names weights alone; a run's folder (with
    /// optimizer and run state), `judge/`, `runs/` and folders without a sidecar are not.
    #[test]
    fn released_networks_are_told_from_runs_and_judge_data() {
        let root = std::env::temp_dir().join(format!("kalaha-released-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let side = |files: &Files| serde_json::json!({ "files": files }).to_string();
        let write = |dir: &str, text: &str| {
            std::fs::create_dir_all(root.join(dir)).unwrap();
            std::fs::write(root.join(dir).join("meta.json"), text).unwrap();
        };
        let run = Files::of_run(7, false);
        write("b-net", &side(&run.released()));
        write("a-net", &side(&run.released()));
        write("a-run", &side(&run));
        write("judge", &side(&run.released()));
        write("runs", &side(&run.released()));
        write("broken", "{");
        std::fs::create_dir_all(root.join("empty")).unwrap();
        let found = released_networks(&root);
        let _ = std::fs::remove_dir_all(&root);
        assert_eq!(found, [root.join("a-net"), root.join("b-net")]);
        assert_eq!(run.model, "model-000007.bpk");
    }
}
