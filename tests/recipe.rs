//! Recipes and releases end to end: a config of two `[[stage]]`s stopped in its second stage and
//! resumed ends where the whole recipe ends; its release carries the recipe, the stages, their
//! commits and the weights hash; a recipe naming that release by id as its parent starts from it
//! and records it; and a release whose weights change is reported, not trusted.
#![cfg(feature = "train")]

mod common;

use std::path::Path;
use std::process::{Command, Output};
use std::sync::atomic::{AtomicBool, Ordering};

use kalaha::train::Recipe;
use kalaha::train::recipe::{self, Event, Outcome};

fn kalaha(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kalaha"))
        .current_dir(dir)
        .env("KALAHA_CHECKPOINTS", dir)
        .args(args)
        .output()
        .expect("kalaha runs")
}

fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn smoke() -> String {
    std::fs::read_to_string(format!("{}/configs/smoke.toml", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

/// The smoke config as a recipe: two iterations of the 2x32 network, then three of it widened
/// to 2x48 at a lower learning rate.
fn two_stages() -> String {
    format!(
        "{}\n[[stage]]\nname = \"narrow\"\niterations = 2\n\n[[stage]]\nname = \"wide\"\niterations = 3\nset = {{ network.hidden = 48, optim.lr = 0.0005 }}\n",
        smoke()
    )
}

/// Overrides placing recipe `name` under `dir`, without evaluations.
fn placed(dir: &Path, name: &str) -> Vec<String> {
    vec![
        format!("run.name={name}"),
        format!("run.checkpoint_dir={}", dir.join("runs").display()),
        format!("run.experiment_dir={}", dir.join("runs").display()),
        "eval.every=0".to_string(),
        "eval.solver_positions=0".to_string(),
    ]
}

/// [`placed`] and an override that changes what is learned.
fn placed_and_changed(dir: &Path, name: &str) -> Vec<String> {
    let mut v = placed(dir, name);
    v.push("optim.weight_decay=0.0002".to_string());
    v
}

/// What a checkpoint's network says of the start position and a few after it, bit for bit.
fn outputs(ck: &Path) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
    use kalaha::rules::{Position, Rules};
    use kalaha::search::Evaluator;
    let net = kalaha::nn::model::load(ck).unwrap().net;
    let mut ev = kalaha::nn::NetEvaluator::new(net, burn::prelude::Device::flex());
    let mut p = Position::start(&Rules::kalah64());
    let mut positions = vec![p];
    for _ in 0..6 {
        let mv = p.legal_moves().iter().next().unwrap();
        p.play(mv).unwrap();
        positions.push(p);
    }
    let (mut l, mut v, mut g) = (Vec::new(), Vec::new(), Vec::new());
    ev.evaluate(&positions, &mut l, &mut v, &mut g);
    (l, v, g)
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn a_recipe_stopped_in_its_second_stage_resumes_exactly_and_releases_its_lineage() {
    let dir = common::checkpoints::temp_root("recipe-stages");
    let config = dir.join("recipe.toml");
    std::fs::write(&config, two_stages()).unwrap();
    let stop = AtomicBool::new(false);

    let whole = Recipe::load(&config, &placed_and_changed(&dir, "whole")).unwrap();
    assert_eq!(
        recipe::train(&whole, false, &stop, &mut |_| {}).unwrap(),
        Outcome::Finished
    );

    // Stopped after the first iteration of the second stage, as Ctrl-C stops it.
    let halves = Recipe::load(&config, &placed_and_changed(&dir, "halves")).unwrap();
    let mut stage = 0;
    let outcome = recipe::train(&halves, false, &stop, &mut |e| match e {
        Event::Stage(i, ..) => stage = i,
        Event::Progress(p) if stage == 1 && p.iteration == 1 => stop.store(true, Ordering::Relaxed),
        _ => {}
    })
    .unwrap();
    assert_eq!(outcome, Outcome::Stopped);
    assert_eq!(
        recipe::stage_state(&halves.stages[0]),
        recipe::StageState::Done
    );
    assert_eq!(
        recipe::stage_state(&halves.stages[1]),
        recipe::StageState::Partial(1)
    );
    stop.store(false, Ordering::Relaxed);
    // An unfinished recipe is not released.
    let out = kalaha(&dir, &["release", "runs/halves", "early", "--into", "."]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("stopped at iteration 1 of 3"), "{err}");
    assert!(!dir.join("early").exists());
    // Without --resume the checkpoint there is refused, not overwritten.
    let err = recipe::train(&halves, false, &stop, &mut |_| {}).unwrap_err();
    assert!(format!("{err:#}").contains("--resume"), "{err:#}");
    let mut skipped = Vec::new();
    let outcome = recipe::train(&halves, true, &stop, &mut |e| {
        if let Event::Skipped(i, ..) = e {
            skipped.push(i)
        }
    })
    .unwrap();
    assert_eq!(outcome, Outcome::Finished);
    assert_eq!(skipped, [0]);
    let (w, h) = (dir.join("runs/whole/wide"), dir.join("runs/halves/wide"));
    assert!(
        outputs(&w) == outputs(&h),
        "the resumed recipe's network differs"
    );
    // The second stage started from the first, widened.
    let meta = json(&h.join("meta.json"));
    assert_eq!(meta["network"]["hidden"], 48);
    assert_eq!(
        meta["config"]["run"]["init"],
        dir.join("runs/halves/narrow").display().to_string()
    );
    assert_eq!(
        json(&dir.join("runs/halves/recipe.json"))["sittings"]
            .as_array()
            .unwrap()
            .len(),
        3
    );

    // Released: the card names the recipe, its stages and the weights' hash.
    let out = ok(&kalaha(
        &dir,
        &["release", "runs/halves", "rel", "--into", ".", "--json"],
    ));
    let r: serde_json::Value = serde_json::from_str(&out).unwrap();
    let card = &r["release"];
    let side = json(&dir.join("rel/meta.json"));
    assert_eq!(&side["release"], card);
    let weights = dir
        .join("rel")
        .join(side["files"]["model"].as_str().unwrap());
    let sha = kalaha::lineage::sha256_file(&weights).unwrap();
    assert_eq!(card["weights_sha256"], sha);
    let id = card["id"].as_str().unwrap();
    assert!(id.starts_with("rel-") && id.ends_with(&sha[..8]), "{id}");
    let stages = card["recipe"]["stages"].as_array().unwrap();
    let names: Vec<&str> = stages.iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["narrow", "wide"]);
    assert_eq!(stages[1]["iterations"], 3);
    assert!(!stages[0]["commits"].as_array().unwrap().is_empty());
    let seconds: f64 = stages.iter().map(|s| s["seconds"].as_f64().unwrap()).sum();
    assert!((card["training_seconds"].as_f64().unwrap() - seconds).abs() < 1e-9);
    assert_eq!(card["recipe"]["config"], config.display().to_string());
    // The run overrode keys on the command line: not rebuildable from the file alone, and it says so.
    assert_eq!(card["rebuildable"], false);
    assert!(
        card["history"]
            .to_string()
            .contains("--set optim.weight_decay=0.0002"),
        "{}",
        card["history"]
    );
    // A recipe that names the release by id starts from its weights and records it as parent.
    let child = format!(
        "{}\n[[stage]]\nname = \"tune\"\niterations = 1\nset = {{ network.hidden = 48, run.parent = \"{id}\" }}\n",
        smoke()
    );
    std::fs::write(dir.join("child.toml"), child).unwrap();
    let mut args = vec!["train", "--config", "child.toml"];
    let sets = placed(&dir, "child");
    for s in &sets {
        args.extend(["--set", s.as_str()]);
    }
    ok(&kalaha(&dir, &args));
    let out = ok(&kalaha(
        &dir,
        &["release", "runs/child", "kid", "--into", ".", "--json"],
    ));
    let kid: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(kid["release"]["parent"]["id"], id);
    // Overrides that only place the run (its name, folders, evaluations) leave it rebuildable.
    let history = kid["release"]["history"].to_string();
    assert!(!history.contains("--set"), "{history}");
    assert_eq!(kid["release"]["parent"]["weights_sha256"], sha);
    let lineage = kid["release"]["lineage_seconds"].as_f64().unwrap();
    assert!(lineage >= card["training_seconds"].as_f64().unwrap());
    let listed = ok(&kalaha(&dir, &["networks", "--json"]));
    let line = |listed: &str, name: &str| {
        let folder = format!("\"folder\":\"{}\"", dir.join(name).display());
        listed
            .lines()
            .find(|l| l.contains(&folder))
            .unwrap()
            .to_string()
    };
    let kid_line = line(&listed, "kid");
    assert!(kid_line.contains("\"status\":\"verified\""), "{kid_line}");
    assert!(kid_line.contains("\"parent\":\"present\""), "{kid_line}");

    // A parent id that no release has is refused, naming the key and the ids there are.
    let bad = dir.join("bad.toml");
    std::fs::write(
        &bad,
        format!("{}\n[[stage]]\nname = \"t\"\niterations = 1\nset = {{ network.hidden = 48, run.parent = \"rel-20990101-00000000\" }}\n", smoke()),
    )
    .unwrap();
    let out = kalaha(
        &dir,
        &["train", "--config", "bad.toml", "--set", "run.name=bad"],
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("run.parent") && err.contains(id), "{err}");

    // Weights that change under a card are reported: the release and its child are not trusted.
    let mut bytes = std::fs::read(&weights).unwrap();
    let n = bytes.len();
    bytes[n - 1] ^= 1;
    std::fs::write(&weights, bytes).unwrap();
    let listed = ok(&kalaha(&dir, &["networks", "--json"]));
    let rel_line = line(&listed, "rel");
    assert!(rel_line.contains("\"status\":\"mismatch\""), "{rel_line}");
    let kid_line = line(&listed, "kid");
    assert!(kid_line.contains("\"status\":\"mismatch\""), "{kid_line}");
    let text = ok(&kalaha(&dir, &["networks"]));
    assert!(text.contains("NOT TRUSTED"), "{text}");
    std::fs::remove_dir_all(&dir).ok();
}

/// The shipped networks carry release cards that check out, and the Kalah(6,4) recipe is the
/// config `kalaha train` runs for the README's main job.
#[test]
fn the_shipped_networks_have_ids_that_check_out() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let listed = ok(&kalaha(root, &["networks", "--json"]));
    let mut names = Vec::new();
    for line in listed.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(v["trust"]["status"], "verified", "{line}");
        let card = &v["release"];
        assert!(card["id"].is_string(), "{line}");
        if card["rebuildable"] == false {
            assert!(!card["history"].as_array().unwrap().is_empty(), "{line}");
        }
        names.push(card["name"].as_str().unwrap().to_string());
    }
    for n in [
        "kalah64",
        "swedish",
        "danish",
        "norwegian",
        "children",
        "kalah64-pie",
    ] {
        assert!(names.iter().any(|x| x == n), "{n} missing from {names:?}");
    }
}
