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

/// A scratch folder `name` holding `checkpoints/runs/smoke`, one iteration of the smoke config; the
/// folder and the config's path.
fn one_iteration_run(name: &str) -> (PathBuf, String) {
    let dir = scratch(name);
    let cfg = config();
    ok(&kalaha(
        &dir,
        &["train", "--config", &cfg, "--set", "run.iterations=1"],
    ));
    (dir, cfg)
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

    let ck = dir.join("checkpoints/runs/smoke");
    for f in [
        "model-000003.bpk",
        "optim-000003.bpk",
        "state-000003.bin",
        "meta.json",
    ] {
        assert!(ck.join(f).is_file(), "missing {f}");
    }
    // Only the latest checkpoint's files are kept.
    assert!(!ck.join("model-000002.bpk").exists());
    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(ck.join("meta.json")).unwrap()).unwrap();
    assert_eq!(meta["iteration"], 3);
    assert!(!meta["evaluations"].as_array().unwrap().is_empty());

    let files = event_files(&dir.join("checkpoints/runs/smoke"));
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

    // A resume may change the run's length and evaluation, not how it learns.
    let out = kalaha(
        &dir,
        &[
            "train",
            "--config",
            &cfg,
            "--resume",
            "--set",
            "run.iterations=5",
            "--set",
            "search.simulations=8",
            "--set",
            "optim.lr=0.01",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("differs from the checkpoint's in optim.lr, search.simulations ("),
        "{err}"
    );

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
    std::fs::write(ck.join("model-000004.bpk"), b"not a model").unwrap();
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

/// What a checkpoint's network says of a few positions, bit for bit (weight files differ in the
/// parameter ids burn draws at random, not in the weights).
fn outputs(ck: &Path) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
    net_outputs(kalaha::nn::model::load(ck).unwrap().net)
}

/// [`outputs`] of a run checkpoint's trained weights (its `training` file), where it keeps them.
fn trained_outputs(ck: &Path) -> Option<(Vec<f32>, Vec<f32>, Vec<f32>)> {
    let meta = kalaha::train::checkpoint::load_meta(ck).unwrap();
    let file = meta.files.training?;
    let device = burn::prelude::Device::flex();
    let net =
        kalaha::nn::model::load_weights(ck, &file, &meta.network, &meta.rules, &device).unwrap();
    Some(net_outputs(net))
}

fn net_outputs(net: kalaha::nn::Net) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
    use kalaha::rules::{Move, Position, Rules};
    use kalaha::search::Evaluator;
    let mut ev = kalaha::nn::NetEvaluator::new(net, burn::prelude::Device::flex());
    let mut p = Position::start(&Rules::kalah64());
    let mut positions = vec![p];
    for a in [2usize, 0, 3, 4, 1, 5, 0, 2, 3, 1] {
        let mv = Move::from_action(a, 6);
        if p.legal_moves().contains(mv) {
            p.play(mv).unwrap();
            positions.push(p);
        }
    }
    let (mut l, mut v, mut g) = (Vec::new(), Vec::new(), Vec::new());
    ev.evaluate(&positions, &mut l, &mut v, &mut g);
    (l, v, g)
}

/// A run stopped after two iterations and resumed ends where the uninterrupted run ends: the same
/// network outputs, bit for bit, on the CPU backend, and the same replay buffer and games.
#[test]
fn a_stopped_and_resumed_run_follows_the_uninterrupted_one() {
    let dir = stopped_and_resumed("resume", &[]);
    std::fs::remove_dir_all(&dir).ok();
}

/// The same with a moving average of the weights: the checkpoint's model is the average, the
/// trained weights are kept beside it and a resumed run continues both exactly; a release takes
/// the average alone.
#[test]
fn a_run_with_a_moving_average_resumes_exactly_and_releases_the_average() {
    let dir = stopped_and_resumed("resume-ema", &["optim.ema_decay=0.9"]);
    let ck = dir.join("checkpoints/whole");
    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(ck.join("meta.json")).unwrap()).unwrap();
    assert_eq!(meta["files"]["training"], "train-000004.bpk");
    let read = |p: &Path| std::fs::read(p).unwrap();
    assert!(
        trained_outputs(&ck).unwrap() != outputs(&ck),
        "the average is not the trained weights"
    );
    // Older checkpoints' trained weights are gone with their other files.
    assert!(!ck.join("train-000002.bpk").exists());
    let evaluation = &meta["evaluations"].as_array().unwrap()[0];
    assert!(evaluation["trained"]["heldout"].is_array(), "{evaluation}");
    ok(&kalaha(
        &dir,
        &["release", ck.to_str().unwrap(), "averaged", "--into", "."],
    ));
    let released: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("averaged/meta.json")).unwrap())
            .unwrap();
    assert!(released["files"].get("training").is_none());
    assert!(!dir.join("averaged/train-000004.bpk").exists());
    assert_eq!(
        read(&dir.join("averaged/model-000004.bpk")),
        read(&ck.join("model-000004.bpk"))
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// The same with every batch position's stores split afresh (`optim.store_resplit`): the splits
/// come from the run's seed, so a resumed run draws them again exactly; and they change what is
/// learned (the same run without them ends with another network).
#[test]
fn a_run_that_resplits_its_stores_resumes_exactly_and_learns_otherwise() {
    use kalaha::train::{TrainConfig, Trainer};
    use std::sync::atomic::AtomicBool;

    let dir = stopped_and_resumed("resume-resplit", &["optim.store_resplit=1.0"]);
    let cfg =
        TrainConfig::load(Path::new(&config()), &four_iterations(&dir, "plain", &[])).unwrap();
    Trainer::new(cfg, false)
        .unwrap()
        .run(&AtomicBool::new(false), &mut |_| {})
        .unwrap();
    let ck = |name: &str| dir.join(format!("checkpoints/{name}"));
    assert!(
        outputs(&ck("whole")) != outputs(&ck("plain")),
        "re-splitting the stores changed nothing"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// A network of margin bins trains, resumes exactly, records its bins and plays; bins that are
/// not one a final margin are refused, naming the key.
#[test]
fn a_run_with_margin_bins_resumes_exactly_and_plays() {
    let dir = stopped_and_resumed("resume-bins", &["network.margin_bins=49"]);
    let ck = dir.join("checkpoints/halves");
    let card = kalaha::nn::model::load_card(&ck).unwrap();
    assert_eq!(card.network.margin_bins, 49);
    let (_, values, margins) = outputs(&ck);
    assert!(values.iter().chain(&margins).all(|x| x.abs() <= 1.0));
    let spec = format!("policy:{}:8", ck.display());
    ok(&kalaha(
        &dir,
        &[
            "match", "--south", &spec, "--north", "greedy", "--games", "2",
        ],
    ));
    let out = kalaha(
        &dir,
        &[
            "train",
            "--config",
            &config(),
            "--set",
            "network.margin_bins=48",
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("network.margin_bins") && err.contains("49"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// The overrides of a 4-iteration run `name` of the smoke config under `dir`, no evaluation,
/// then `extra`.
fn four_iterations(dir: &Path, name: &str, extra: &[&str]) -> Vec<String> {
    let mut v = vec![
        format!("run.name={name}"),
        format!("run.checkpoint_dir={}", dir.join("checkpoints").display()),
        format!("run.experiment_dir={}", dir.join("experiments").display()),
        "run.iterations=4".to_string(),
        "eval.every=0".to_string(),
    ];
    v.extend(extra.iter().map(|s| s.to_string()));
    v
}

/// Runs the smoke config 4 iterations whole and in two halves (stopped after 2, resumed) with the
/// overrides `extra`, checks that both end alike, and returns their scratch folder.
fn stopped_and_resumed(name: &str, extra: &[&str]) -> PathBuf {
    use kalaha::train::{TrainConfig, Trainer};
    use std::sync::atomic::{AtomicBool, Ordering};

    let dir = scratch(name);
    let cfg = |name: &str| {
        TrainConfig::load(Path::new(&config()), &four_iterations(&dir, name, extra)).unwrap()
    };
    let stop = AtomicBool::new(false);
    Trainer::new(cfg("whole"), false)
        .unwrap()
        .run(&stop, &mut |_| {})
        .unwrap();

    let mut t = Trainer::new(cfg("halves"), false).unwrap();
    t.run(&stop, &mut |p| {
        if p.iteration == 2 {
            stop.store(true, Ordering::Relaxed);
        }
    })
    .unwrap();
    assert_eq!(t.meta().iteration, 2);
    drop(t);
    stop.store(false, Ordering::Relaxed);
    let mut t = Trainer::new(cfg("halves"), true).unwrap();
    t.run(&stop, &mut |_| {}).unwrap();
    assert_eq!(t.meta().iteration, 4);

    let ck = |name: &str| dir.join(format!("checkpoints/{name}"));
    assert!(
        outputs(&ck("whole")) == outputs(&ck("halves")),
        "the resumed run's network differs"
    );
    let state = |name: &str| {
        std::fs::read(dir.join(format!("checkpoints/{name}/state-000004.bin"))).unwrap()
    };
    assert!(
        state("whole") == state("halves"),
        "the resumed run's replay or games differ"
    );
    assert!(
        trained_outputs(&ck("whole")) == trained_outputs(&ck("halves")),
        "the resumed run's trained weights differ"
    );
    dir
}

#[test]
fn a_run_can_start_from_another_networks_weights_under_other_rules() {
    let (dir, cfg) = one_iteration_run("init");
    // Norwegian rules, the smoke network as the start; no gradient step in its one iteration
    // (the replay never reaches min_size), so the saved weights are the ones it started from.
    let start = [
        "train",
        "--config",
        &cfg,
        "--set",
        "run.name=\"norwegian-ft\"",
        "--set",
        "run.iterations=1",
        "--set",
        "run.init=\"checkpoints/runs/smoke\"",
        "--set",
        "rules.end=\"on-turn\"",
        "--set",
        "replay.min_size=4096",
    ];
    ok(&kalaha(&dir, &start));
    let read = |p: &str| std::fs::read(dir.join(p)).unwrap();
    assert_eq!(
        read("checkpoints/runs/norwegian-ft/model-000001.bpk"),
        read("checkpoints/runs/smoke/model-000001.bpk"),
        "the run starts from the init network's weights"
    );
    let meta: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("checkpoints/runs/norwegian-ft/meta.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(meta["rules"]["end"], "on-turn");

    // A move head may be added to a network trained without one (a fresh head, trained with the
    // set loss), and left behind again.
    let mut with_moves: Vec<&str> = start.to_vec();
    with_moves[4] = "run.name=\"moves\"";
    with_moves.extend([
        "--set",
        "network.moves=true",
        "--set",
        "optim.moves_weight=1",
        "--set",
        "optim.policy_loss=\"set\"",
    ]);
    ok(&kalaha(&dir, &with_moves));
    let size = |p: &str| std::fs::metadata(dir.join(p)).unwrap().len();
    assert!(
        size("checkpoints/runs/moves/model-000001.bpk")
            > size("checkpoints/runs/smoke/model-000001.bpk"),
        "the weights hold a move head"
    );
    let mut back: Vec<&str> = start.to_vec();
    back[4] = "run.name=\"no-moves\"";
    back[10] = "run.init=\"checkpoints/runs/moves\"";
    ok(&kalaha(&dir, &back));
    assert_eq!(
        read("checkpoints/runs/no-moves/model-000001.bpk"),
        read("checkpoints/runs/smoke/model-000001.bpk"),
        "without its move head the network is the one it started from"
    );
    // A move loss without a move head is refused naming both keys.
    let mut bad: Vec<&str> = start.to_vec();
    bad[4] = "run.name=\"bad-moves\"";
    bad.extend(["--set", "optim.moves_weight=1"]);
    let out = kalaha(&dir, &bad);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("optim.moves_weight") && err.contains("network.moves"),
        "{err}"
    );

    // A wider network starts from the same outputs (its new units weigh nothing yet).
    let mut wide: Vec<&str> = start.to_vec();
    wide[4] = "run.name=\"wide\"";
    wide.extend(["--set", "network.hidden=64"]);
    ok(&kalaha(&dir, &wide));
    let (narrow, wider) = (
        outputs(&dir.join("checkpoints/runs/smoke")),
        outputs(&dir.join("checkpoints/runs/wide")),
    );
    let close = |a: &[f32], b: &[f32]| {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-5)
    };
    assert!(
        close(&narrow.0, &wider.0) && close(&narrow.1, &wider.1) && close(&narrow.2, &wider.2),
        "the widened network computes what the narrow one did"
    );
    assert!(
        size("checkpoints/runs/wide/model-000001.bpk")
            > 2 * size("checkpoints/runs/smoke/model-000001.bpk"),
        "the weights are wider"
    );

    // Another shape (narrower, deeper), or another board size, is refused naming the key.
    for bad in ["network.hidden=16", "network.layers=3", "rules.pits=5"] {
        let mut args: Vec<&str> = start.to_vec();
        args[4] = "run.name=\"bad\"";
        args.extend(["--set", bad]);
        let out = kalaha(&dir, &args);
        assert!(!out.status.success(), "{bad}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("run.init"), "{bad}: {err}");
    }
    let out = kalaha(
        &dir,
        &[
            "train",
            "--config",
            &cfg,
            "--set",
            "run.name=\"none\"",
            "--set",
            "run.init=\"checkpoints/missing\"",
        ],
    );
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("run.init"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_released_network_is_never_trained_over() {
    let (dir, cfg) = one_iteration_run("released");
    // Release it as the committed networks are: the sidecar names no optimizer or run state.
    let side = dir.join("checkpoints/runs/smoke/meta.json");
    let mut meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&side).unwrap()).unwrap();
    meta["files"]["optim"] = serde_json::Value::Null;
    meta["files"]["state"] = serde_json::Value::Null;
    std::fs::write(&side, meta.to_string()).unwrap();
    let before = std::fs::read(dir.join("checkpoints/runs/smoke/model-000001.bpk")).unwrap();
    let out = kalaha(&dir, &["train", "--config", &cfg]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("released network") && err.contains("run.name"),
        "{err}"
    );
    let after = std::fs::read(dir.join("checkpoints/runs/smoke/model-000001.bpk")).unwrap();
    assert_eq!(before, after);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Run output and judge data live apart: a fresh run writes its checkpoint under
/// `checkpoints/runs/` (the shipped configs' `run.checkpoint_dir`) and reads and caches its judge
/// set in `run.judge_dir` (default `checkpoints/judge`), never beside its checkpoints.
#[test]
fn a_run_writes_under_checkpoints_runs_and_caches_its_judge_set_in_the_judge_dir() {
    let dir = scratch("where");
    let cfg = config();
    // A small board, so that the judge set solves in moments.
    let small = [
        "--set",
        "run.iterations=1",
        "--set",
        "rules.pits=4",
        "--set",
        "rules.seeds=3",
        "--set",
        "eval.solver_positions=6",
    ];
    let mut args = vec!["train", "--config", cfg.as_str()];
    args.extend(small);
    ok(&kalaha(&dir, &args));
    assert!(dir.join("checkpoints/runs/smoke/meta.json").is_file());
    let sets = |d: &Path| -> Vec<String> {
        std::fs::read_dir(d)
            .map(|r| {
                r.flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .filter(|n| n.starts_with("judge2-4x3-"))
                    .collect()
            })
            .unwrap_or_default()
    };
    assert_eq!(sets(&dir.join("checkpoints/judge")).len(), 1);
    assert!(!dir.join("checkpoints/runs/judge").exists());

    // Another judge folder, by its key; a resume may change it.
    let mut args = vec![
        "train",
        "--config",
        cfg.as_str(),
        "--set",
        "run.name=\"other\"",
    ];
    args.extend(small);
    args.extend(["--set", "run.judge_dir=\"sets\""]);
    ok(&kalaha(&dir, &args));
    assert_eq!(sets(&dir.join("sets")).len(), 1);
    args.extend([
        "--resume",
        "--set",
        "run.iterations=2",
        "--set",
        "run.judge_dir=\"sets2\"",
    ]);
    // (The later `run.iterations` and `run.judge_dir` win.)
    ok(&kalaha(&dir, &args));
    assert_eq!(sets(&dir.join("sets2")).len(), 1);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A labels file is a training source in a run of exact labels alone (`selfplay.labels =
/// "exact"`), as it is beside self-play: its share of positions enters every iteration.
#[test]
fn a_labels_file_feeds_a_run_of_exact_labels_alone() {
    let dir = scratch("label-file-exact");
    let labels = std::fs::read_to_string(format!(
        "{}/checkpoints/labels/labels-6x4-seed1.jsonl",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let head: String = labels.lines().take(40).map(|l| format!("{l}\n")).collect();
    std::fs::write(dir.join("labels.jsonl"), head).unwrap();
    let cfg = config();
    let run = |share: &str| {
        let name = format!("exact-{}", share.replace('.', "-"));
        ok(&kalaha(
            &dir,
            &[
                "train",
                "--config",
                &cfg,
                "--set",
                "run.iterations=1",
                "--set",
                &format!("run.name=\"{name}\""),
                "--set",
                "selfplay.labels=\"exact\"",
                "--set",
                "selfplay.label_file=\"labels.jsonl\"",
                "--set",
                &format!("selfplay.label_file_share={share}"),
                "--set",
                "selfplay.label_file_holdout=0",
            ],
        ));
        let meta = std::fs::read_to_string(dir.join(format!("checkpoints/runs/{name}/meta.json")))
            .unwrap();
        let meta: serde_json::Value = serde_json::from_str(&meta).unwrap();
        meta["positions"].as_u64().unwrap()
    };
    // 1,024 positions an iteration from the database, and half as many again from the file.
    assert_eq!(run("0.5"), 1024 + 512);
    assert_eq!(run("1.0"), 1024 + 1024);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A short CPU run on exact labels (the endgame database's positions, targets that do not move
/// as the network learns) keeps every loss finite and lowers them: the value and policy losses
/// of its last iterations are below those of its first.
#[test]
fn a_short_cpu_run_keeps_its_losses_finite_and_lowers_them() {
    let dir = scratch("losses");
    let cfg = config();
    ok(&kalaha(
        &dir,
        &[
            "train",
            "--config",
            &cfg,
            "--set",
            "run.iterations=6",
            "--set",
            "run.name=\"losses\"",
            "--set",
            "selfplay.labels=\"exact\"",
            // Enough steps to see it learn: 192 in all, about a second.
            "--set",
            "optim.steps_per_iteration=32",
            "--set",
            "optim.lr=0.01",
            "--set",
            "optim.lr_min=0.001",
        ],
    ));
    let files = event_files(&dir.join("checkpoints/runs/losses"));
    assert_eq!(files.len(), 1);
    let scalars = read_scalars(&files[0]).unwrap();
    for tag in ["loss/policy", "loss/value"] {
        let mut series: Vec<(i64, f32)> = scalars
            .iter()
            .filter(|s| s.0 == tag)
            .map(|s| (s.1, s.2))
            .collect();
        series.sort_by_key(|s| s.0);
        let values: Vec<f32> = series.iter().map(|s| s.1).collect();
        eprintln!("{tag}: {values:?}");
        assert_eq!(values.len(), 6, "{tag}: one a step: {series:?}");
        assert!(values.iter().all(|v| v.is_finite()), "{tag}: {values:?}");
        let first = values[0];
        let last = (values[4] + values[5]) / 2.0;
        assert!(
            last < 0.95 * first,
            "{tag} did not fall: {first} at the start, {last} at the end: {values:?}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
