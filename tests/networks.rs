//! The network of each rule set: `policy:auto` and `kalaha play --level hard` take the checkpoint
//! trained for exactly the rules played, and say so plainly when there is none.
#![cfg(feature = "train")]

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use kalaha::bots::{BotContext, BotSpec, play_game};
use kalaha::env::rng::stream;
use kalaha::nn::model::{ROOTS_VAR, checkpoint_roots, find_for, find_in};
use kalaha::rules::{Position, Preset, Rules};

use common::checkpoints::{fake, temp_root};

/// Takes the weights out of `root/folder` (made by [`fake`]): a sidecar without its network.
/// Returns the removed weights file's name.
fn without_weights(root: &Path, folder: &str) -> String {
    let dir = root.join(folder);
    let text = std::fs::read_to_string(dir.join("meta.json")).unwrap();
    let meta: serde_json::Value = serde_json::from_str(&text).unwrap();
    let file = meta["files"]["model"].as_str().unwrap().to_string();
    std::fs::remove_file(dir.join(&file)).unwrap();
    file
}

fn norwegian() -> Rules {
    Preset::Norwegian.rules()
}

#[test]
fn policy_auto_plays_the_network_of_exactly_the_rules_and_no_other() {
    let root = temp_root("auto");
    fake(&root, "kalah64", &Rules::kalah64());
    let spec: BotSpec = "policy:auto:4".parse().unwrap();
    assert_eq!(spec.to_string(), "policy:auto:4");
    // A Kalah(6,4) network never plays Norwegian rules, though the board is the same.
    let e = BotContext::with_checkpoint_roots(vec![root.clone()])
        .prepare(&spec, &norwegian())
        .unwrap_err();
    assert_eq!(
        format!("{e:#}"),
        format!(
            "bot 'policy:auto:4': no network was trained for {} (norwegian): no checkpoint for \
             exactly these rules in {}",
            norwegian().describe(),
            root.display()
        )
    );
    fake(&root, "some-norwegian-run", &norwegian());
    let mut ctx = BotContext::with_checkpoint_roots(vec![root.clone()]);
    for rules in [norwegian(), Rules::kalah64()] {
        let player = ctx.prepare(&spec, &rules).unwrap();
        assert_eq!(player.network().unwrap().card.rules, rules.spec());
        let mut rng = stream(1, 0);
        let game = play_game(Position::start(&rules), &player, &player, &mut rng);
        assert!(game.position().is_over());
    }
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn policy_auto_errors_for_rules_with_no_network() {
    // Nobody trains Kalah(3,2) with the pie rule; the default roots are searched.
    let rules = Rules::new(3, 2).unwrap().with_pie(true);
    let e = BotContext::new()
        .prepare(&"policy:auto".parse().unwrap(), &rules)
        .unwrap_err();
    let e = format!("{e:#}");
    assert!(
        e.starts_with(&format!(
            "bot 'policy:auto': no network was trained for {} (kalah32-pie): no checkpoint for \
             exactly these rules in ",
            rules.describe()
        )),
        "{e}"
    );
    assert!(e.contains("checkpoints"), "{e}");
}

/// `kalaha ARGS` with `$KALAHA_CHECKPOINTS` set to `root` (or unset), `input` piped in.
fn kalaha(args: &[&str], root: Option<&Path>, input: &str) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_kalaha"));
    cmd.args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    match root {
        Some(r) => cmd.env(ROOTS_VAR, r),
        None => cmd.env_remove(ROOTS_VAR),
    };
    let mut child = cmd.spawn().expect("run kalaha");
    // The game may end before all input is read; a closed pipe is fine.
    let _ = child.stdin.take().unwrap().write_all(input.as_bytes());
    child.wait_with_output().expect("kalaha finishes")
}

fn texts(out: &Output) -> (String, String) {
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(0), "stderr: {stderr}");
    (String::from_utf8_lossy(&out.stdout).to_string(), stderr)
}

#[test]
fn play_hard_under_norwegian_rules_plays_the_norwegian_network_to_the_end() {
    let root = temp_root("play");
    fake(&root, "kalah64", &Rules::kalah64());
    fake(&root, "norwegian", &norwegian());
    // Pit numbers over and over: the empty ones are refused, so the game is played to its end.
    let input = "1\n2\n3\n4\n5\n6\n".repeat(60) + "n\n";
    let out = kalaha(
        &["play", "--rules", "norwegian", "--line", "--seed", "1"],
        Some(&root),
        &input,
    );
    let (stdout, stderr) = texts(&out);
    let dir = root.join("norwegian").display().to_string();
    assert_eq!(
        stderr,
        format!("kalaha: level hard is the network {dir} (norwegian) with 64 simulations\n")
    );
    assert!(stdout.starts_with(&norwegian().describe()), "{stdout}");
    assert!(
        stdout.contains(&format!("You play south against policy:{dir}:64.")),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("North (policy:{dir}:64) played")),
        "{stdout}"
    );
    assert!(stdout.contains("Game over: "), "{stdout}");
    assert!(stdout.trim_end().ends_with("Goodbye."), "{stdout}");
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn play_hard_without_a_network_for_the_rules_says_so_and_plays_mcts() {
    let root = temp_root("none");
    fake(&root, "kalah64", &Rules::kalah64());
    let out = kalaha(
        &[
            "play", "--pits", "3", "--seeds", "2", "--line", "--seed", "1",
        ],
        Some(&root),
        "q\n",
    );
    let (stdout, stderr) = texts(&out);
    let rules = Rules::new(3, 2).unwrap();
    assert!(
        stderr.starts_with(&format!(
            "kalaha: no network was trained for {} (kalah32): no checkpoint for exactly these \
             rules in {}, checkpoints",
            rules.describe(),
            root.display()
        )),
        "{stderr}"
    );
    assert!(
        stderr.ends_with("; level hard plays mcts:2000 instead\n"),
        "{stderr}"
    );
    assert!(
        stdout.contains("You play south against mcts:2000."),
        "{stdout}"
    );
    std::fs::remove_dir_all(&root).unwrap();
}

/// `stderr` without the line of a first build of an endgame database (where the cache does not
/// have it yet).
fn without_db_build(stderr: &str) -> String {
    stderr
        .lines()
        .filter(|l| !l.starts_with("kalaha: building the endgame database"))
        .map(|l| format!("{l}\n"))
        .collect()
}

#[test]
fn play_hard_under_international_rules_keeps_the_committed_network() {
    let out = kalaha(&["play", "--line", "--seed", "1"], None, "q\n");
    let (stdout, stderr) = texts(&out);
    assert_eq!(
        without_db_build(&stderr),
        format!(
            "kalaha: level hard is the network checkpoints/kalah64 (kalah64, release {}) with 64 simulations\n",
            kalaha::lineage::id_note(std::path::Path::new("checkpoints/kalah64")).unwrap()
        )
    );
    assert!(
        stdout.contains("You play south against policy:checkpoints/kalah64:64."),
        "{stdout}"
    );
}

#[test]
fn match_refuses_policy_auto_for_rules_with_no_network() {
    let out = kalaha(
        &[
            "match",
            "--pits",
            "3",
            "--seeds",
            "2",
            "--south",
            "policy:auto",
            "--north",
            "random",
        ],
        None,
        "",
    );
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("kalaha: bot 'policy:auto': no network was trained for Kalah(3,2)"),
        "{stderr}"
    );
}

fn preset(name: &str) -> Rules {
    name.parse::<Preset>().unwrap().rules()
}

fn found(rules: &Rules, roots: &[PathBuf]) -> PathBuf {
    find_in(rules, roots).unwrap_or_else(|e| panic!("{e}")).dir
}

#[test]
fn the_lookup_prefers_the_canonical_folder_then_the_first_with_exactly_the_rules() {
    let root = temp_root("find-exact");
    let roots = [root.clone()];
    let norwegian = preset("norwegian");
    fake(&root, "kalah64", &Rules::kalah64());
    fake(&root, "b-norwegian", &norwegian);
    fake(&root, "a-norwegian-no-weights", &norwegian);
    without_weights(&root, "a-norwegian-no-weights");
    fake(&root, "c-norwegian", &norwegian);
    // A folder called `judge` is never a network, whatever it holds.
    fake(&root, "judge", &preset("children"));
    assert_eq!(found(&Rules::kalah64(), &roots), root.join("kalah64"));
    assert_eq!(found(&norwegian, &roots), root.join("b-norwegian"));
    fake(&root, "norwegian", &norwegian);
    let f = find_in(&norwegian, &roots).unwrap();
    assert_eq!(f.dir, root.join("norwegian"));
    assert_eq!(f.card.rules, norwegian.spec());
    // Nothing for other rules, however close: the pie rule, another end, another size.
    for rules in [
        Rules::kalah64().with_pie(true),
        norwegian.with_leftover(kalaha::rules::Leftover::Emptier),
        preset("children"),
        Rules::new(6, 5).unwrap(),
    ] {
        let e = find_in(&rules, &roots).unwrap_err();
        assert_eq!(e.name, rules.canonical_name());
        assert!(e.notes.is_empty(), "{e}");
        assert_eq!(
            e.to_string(),
            format!(
                "no network was trained for {} ({}): no checkpoint for exactly these rules in {}",
                rules.describe(),
                rules.canonical_name(),
                root.display()
            )
        );
    }
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn roots_are_searched_in_order() {
    let (first, second) = (temp_root("find-first"), temp_root("find-second"));
    fake(&first, "zz-any-name", &Rules::kalah64());
    fake(&second, "kalah64", &Rules::kalah64());
    let roots = [first.join("missing"), first.clone(), second.clone()];
    assert_eq!(found(&Rules::kalah64(), &roots), first.join("zz-any-name"));
    let e = find_in(&Rules::new(3, 3).unwrap(), &roots).unwrap_err();
    assert_eq!(e.roots, roots);
    assert!(e.to_string().contains(&format!(
        "in {}, {}, {}",
        roots[0].display(),
        roots[1].display(),
        roots[2].display()
    )));
    std::fs::remove_dir_all(&first).unwrap();
    std::fs::remove_dir_all(&second).unwrap();
}

#[test]
fn a_canonical_folder_that_cannot_serve_is_named_in_the_error() {
    let root = temp_root("find-canonical");
    let roots = [root.clone()];
    std::fs::create_dir_all(root.join("norwegian")).unwrap();
    std::fs::write(root.join("norwegian/meta.json"), "{ not json").unwrap();
    fake(&root, "children", &Rules::kalah64());
    fake(&root, "swedish", &preset("swedish"));
    let weights = without_weights(&root, "swedish");
    // Unreadable folders elsewhere are passed over in silence.
    std::fs::create_dir_all(root.join("broken")).unwrap();
    std::fs::write(root.join("broken/meta.json"), "{").unwrap();
    let e = find_in(&preset("norwegian"), &roots)
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("no network was trained for"), "{e}");
    assert!(
        e.contains(&format!(
            "; corrupt checkpoint sidecar {}",
            root.join("norwegian/meta.json").display()
        )),
        "{e}"
    );
    let e = find_in(&preset("children"), &roots)
        .unwrap_err()
        .to_string();
    assert!(
        e.ends_with(&format!(
            "; {} holds a network for {}",
            root.join("children").display(),
            Rules::kalah64().describe()
        )),
        "{e}"
    );
    let e = find_in(&preset("swedish"), &roots).unwrap_err().to_string();
    assert!(
        e.contains(&format!("its weights {weights} are missing")),
        "{e}"
    );
    // The Kalah(6,4) network in the folder called `children` still serves Kalah(6,4).
    assert_eq!(found(&Rules::kalah64(), &roots), root.join("children"));
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn from_the_source_tree_the_committed_network_is_found_in_checkpoints() {
    if std::env::var_os(ROOTS_VAR).is_some() {
        return;
    }
    // Tests run in the source tree, so `./checkpoints` and the source tree's are one folder.
    assert_eq!(checkpoint_roots(), [PathBuf::from("checkpoints")]);
    let f = find_for(&Rules::kalah64()).unwrap();
    assert_eq!(f.dir, Path::new("checkpoints/kalah64"));
}
