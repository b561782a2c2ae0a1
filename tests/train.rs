//! `kalaha train --config configs/smoke.toml` end to end: it leaves a checkpoint that loads (as a
//! bot in `kalaha match`), a TensorBoard event file whose scalars read back, and `--resume` and
//! bad checkpoints behave.
#![cfg(feature = "train")]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use kalaha::train::tb::{event_files, read_scalars};

fn kalaha(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kalaha"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("kalaha runs")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kalaha-train-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn config() -> String {
    format!("{}/configs/smoke.toml", env!("CARGO_MANIFEST_DIR"))
}

fn ok(out: &Output) {
    assert!(
        out.status.success(),
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn smoke_run_leaves_a_loadable_checkpoint_and_a_readable_log() {
    let dir = scratch("smoke");
    let cfg = config();
    ok(&kalaha(&dir, &["train", "--config", &cfg]));

    let ck = dir.join("checkpoints/smoke");
    for f in ["model.bpk", "optim.bpk", "meta.json"] {
        assert!(ck.join(f).is_file(), "missing {f}");
    }
    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(ck.join("meta.json")).unwrap()).unwrap();
    assert_eq!(meta["iteration"], 3);
    assert!(!meta["evaluations"].as_array().unwrap().is_empty());

    let files = event_files(&dir.join("experiments/smoke"));
    assert_eq!(files.len(), 1);
    let scalars = read_scalars(&files[0]).unwrap();
    for tag in [
        "loss/policy",
        "loss/value",
        "policy/entropy",
        "selfplay/game_length",
        "throughput/positions_per_sec",
        "throughput/evals_per_sec",
        "throughput/samples_per_sec",
        "eval/random/win_rate",
    ] {
        assert!(
            scalars.iter().any(|s| s.0 == tag),
            "no scalar {tag} in {:?}",
            files[0]
        );
    }

    // The checkpoint plays as a bot, alone and with search.
    let bot = format!("policy:{}", ck.display());
    let bot_search = format!("policy:{}:4:margin=0.5", ck.display());
    let out = kalaha(
        &dir,
        &[
            "match",
            "--south",
            &bot,
            "--north",
            &bot_search,
            "--games",
            "2",
            "--json",
        ],
    );
    ok(&out);
    let m: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(m["games"], 2);
    assert_eq!(m["north"], bot_search.as_str());

    // A margin weight needs a simulation count and must lie in 0..=1.
    for bad in [
        format!("policy:{}:margin=0.5", ck.display()),
        format!("policy:{}:4:margin=2", ck.display()),
    ] {
        let out = kalaha(&dir, &["match", "--south", &bad, "--north", "random"]);
        assert_eq!(out.status.code(), Some(2), "{bad}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("margin"));
    }

    // Other rules are refused with a clear error.
    let out = kalaha(
        &dir,
        &["match", "--south", &bot, "--north", "random", "--pits", "4"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("trained for"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // Resume continues to a longer run; a fresh start over an existing run is refused.
    let out = kalaha(&dir, &["train", "--config", &cfg]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--resume"));
    ok(&kalaha(
        &dir,
        &[
            "train",
            "--config",
            &cfg,
            "--resume",
            "--set",
            "run.iterations=4",
        ],
    ));
    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(ck.join("meta.json")).unwrap()).unwrap();
    assert_eq!(meta["iteration"], 4);

    // Another network shape and a corrupt model file are clear errors.
    let out = kalaha(
        &dir,
        &[
            "train",
            "--config",
            &cfg,
            "--resume",
            "--set",
            "network.hidden=8",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("network shape"));
    std::fs::write(ck.join("model.bpk"), b"not a model").unwrap();
    let out = kalaha(
        &dir,
        &[
            "match", "--south", &bot, "--north", "random", "--games", "1",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("corrupt"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::remove_dir_all(&dir).ok();
}
