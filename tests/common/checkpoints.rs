//! Checkpoints made for tests: the committed Kalah(6,4) network (its weights fit any six-pit
//! rules) under a sidecar that says other rules, in a scratch folder.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use kalaha::rules::Rules;

/// The endgame database a [`fake`] checkpoint records as its self-play's: small, so that a bot
/// of it builds its database in milliseconds.
pub const FAKE_DB_SEEDS: u32 = 8;

/// A fresh, empty folder of checkpoints under the system's temporary one.
pub fn temp_root(name: &str) -> PathBuf {
    let root = std::env::temp_dir().join(format!("kalaha-networks-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    root
}

/// `root/folder` as a checkpoint for `rules`: the committed Kalah(6,4) network with its
/// sidecar's rules replaced and [`FAKE_DB_SEEDS`] as its self-play's endgame database.
pub fn fake(root: &Path, folder: &str, rules: &Rules) -> PathBuf {
    fake_with(root, folder, rules, |meta| {
        meta["config"]["selfplay"]["endgame_db_seeds"] = FAKE_DB_SEEDS.into();
    })
}

/// [`fake`] with the sidecar edited by `edit` (after its rules are replaced) instead.
pub fn fake_with(
    root: &Path,
    folder: &str,
    rules: &Rules,
    edit: impl FnOnce(&mut serde_json::Value),
) -> PathBuf {
    let dir = root.join(folder);
    std::fs::create_dir_all(&dir).unwrap();
    let text = std::fs::read_to_string("checkpoints/kalah64/meta.json").unwrap();
    let mut meta: serde_json::Value = serde_json::from_str(&text).unwrap();
    meta["rules"] = serde_json::to_value(rules.spec()).unwrap();
    // A made-up network is no release: its sidecar carries no release card.
    meta.as_object_mut().unwrap().remove("release");
    edit(&mut meta);
    std::fs::write(dir.join("meta.json"), meta.to_string()).unwrap();
    let file = meta["files"]["model"].as_str().unwrap();
    std::fs::copy(Path::new("checkpoints/kalah64").join(file), dir.join(file)).unwrap();
    dir
}

/// `root/folder` as a checkpoint for `rules` (any number of pits) in the form training writes:
/// a small network fresh from its seeded initialisation (16 wide, one hidden layer), with the
/// committed network's sidecar, its rules, network shape and weights file replaced, and `db` as
/// its self-play's endgame database.
#[cfg(feature = "train")]
pub fn untrained(root: &Path, folder: &str, rules: &Rules, db: u32, seed: u64) -> PathBuf {
    use burn::module::Module;
    use kalaha::nn::{Net, NetConfig};

    let dir = root.join(folder);
    std::fs::create_dir_all(&dir).unwrap();
    let shape = serde_json::json!({
        "hidden": 16, "layers": 1, "activation": "relu", "input": "onehot", "block": "plain"
    });
    let cfg: NetConfig = serde_json::from_value(shape.clone()).unwrap();
    let device = burn::prelude::Device::flex();
    device.seed(seed);
    Net::new(&cfg, rules.pits(), &device)
        .save_file(dir.join("model.bpk"))
        .unwrap();
    let text = std::fs::read_to_string("checkpoints/kalah64/meta.json").unwrap();
    let mut meta: serde_json::Value = serde_json::from_str(&text).unwrap();
    meta["rules"] = serde_json::to_value(rules.spec()).unwrap();
    meta["network"] = shape.clone();
    meta["config"]["network"] = shape;
    meta["config"]["selfplay"]["endgame_db_seeds"] = db.into();
    meta["files"] = serde_json::json!({ "model": "model.bpk" });
    std::fs::write(dir.join("meta.json"), meta.to_string()).unwrap();
    dir
}

/// The committed Kalah(6,4) network as a bot spec, `options` after its path (`"8:db=off"`: 8
/// simulations, no endgame database).
pub fn committed_kalah64(options: &str) -> String {
    format!(
        "policy:{}/checkpoints/kalah64:{options}",
        env!("CARGO_MANIFEST_DIR")
    )
}
