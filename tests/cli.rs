//! The `kalaha` command line as a script sees it: JSON keys, exit codes and one-line errors.

use std::process::{Command, Output};

fn kalaha(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kalaha"))
        .args(args)
        .output()
        .expect("run kalaha")
}

/// Runs a command that must succeed; its standard output.
fn stdout(args: &[&str]) -> String {
    let out = kalaha(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

fn json(args: &[&str]) -> serde_json::Value {
    serde_json::from_str(&stdout(args)).expect("one JSON object")
}

/// `kalaha analyse --json` of `bot` on `pos`, without the solver (for the network tests).
#[cfg(feature = "train")]
fn bot_view(bot: &str, pos: &str) -> serde_json::Value {
    json(&[
        "analyse",
        "--bot",
        bot,
        "--position",
        pos,
        "--time-limit",
        "0",
        "--json",
    ])
}

/// Runs a command that must fail: exit code 2 and one line on stderr naming the problem.
fn refused(args: &[&str], needle: &str) {
    let out = kalaha(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(
        err.contains(needle),
        "{args:?}: expected '{needle}' in: {err}"
    );
    assert!(!err.contains("panicked"), "{args:?}: {err}");
}

#[test]
fn show_json_has_the_contract_keys() {
    let v = json(&["show", "--moves", "3", "--json"]);
    assert_eq!(v["position"], "4,4,0,5,5,5,1/4,4,4,4,4,4,0 s");
    assert_eq!(v["to_move"], "s");
    assert_eq!(v["over"], false);
    assert_eq!(v["legal"], serde_json::json!([1, 2, 4, 5, 6]));
    assert_eq!(v["swap_allowed"], false);
    assert_eq!(
        v["legal_moves"],
        serde_json::json!(["1", "2", "4", "5", "6"])
    );
    assert_eq!(v["score"], serde_json::json!([1, 0]));
    assert_eq!(v["result"], serde_json::Value::Null);
}

#[test]
fn show_json_of_a_finished_game_applies_the_leftover_rule() {
    let pos = "0,0,0,0,0,0,20/1,1,1,1,1,1,16 n";
    let v = json(&["show", "--position", pos, "--json"]);
    assert_eq!(v["over"], true);
    assert_eq!(v["score"], serde_json::json!([20, 22]));
    assert_eq!(v["result"], "north");
    assert_eq!(v["legal"], serde_json::json!([]));
    let v = json(&["show", "--position", pos, "--leftover", "emptier", "--json"]);
    assert_eq!(v["result"], "south");
}

#[test]
fn show_pie_and_presets() {
    let v = json(&["show", "--pie", "--moves", "1", "--json"]);
    assert_eq!(v["swap_allowed"], true);
    assert_eq!(v["to_move"], "n");
    let moves = v["legal_moves"].as_array().unwrap();
    assert_eq!(moves.len(), 7, "six pits and the swap: {moves:?}");
    assert!(moves.contains(&serde_json::json!("swap")));
    let v = json(&["show", "--pie", "--moves", "1,swap", "--json"]);
    assert_eq!(v["swap_allowed"], false);
    assert_eq!(v["to_move"], "n");
    let v = json(&["show", "--rules", "danish", "--json"]);
    assert_eq!(v["position"], "6,6,6,6,6,6,0/6,6,6,6,6,6,0 s");
    let v = json(&["show", "--pits", "4", "--seeds", "3", "--json"]);
    assert_eq!(v["position"], "3,3,3,3,0/3,3,3,3,0 s");
}

#[test]
fn show_draws_the_board_for_a_person() {
    let out = kalaha(&["show", "--moves", "3"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("last move: south played 3 (extra turn)"),
        "{text}"
    );
    assert!(
        text.contains("south to move; legal moves: 1 2 4 5 6"),
        "{text}"
    );
    assert!(
        text.contains("position: 4,4,0,5,5,5,1/4,4,4,4,4,4,0 s"),
        "{text}"
    );
}

#[test]
fn bad_input_is_refused_with_exit_code_2() {
    refused(
        &["show", "--moves", "3,3"],
        "move 2 (3) is illegal: pit 3 is empty",
    );
    refused(&["show", "--moves", "7"], "pit 7 is out of range");
    refused(&["show", "--moves", "swap"], "swap is not allowed");
    refused(&["show", "--moves", "x"], "is not a pit number");
    refused(
        &["show", "--position", "4,4,4,4,4,0/4,4,4,4,4,0 s"],
        "5 pits per side but the rules say 6",
    );
    refused(
        &["show", "--position", "4,4,4,4,4,4,0/4,4,4,4,4,4,0 q"],
        "side to move must be 's' or 'n'",
    );
    refused(
        &["show", "--position", "4,-4,4,4,4,4,0/4,4,4,4,4,4,0 s"],
        "seed count -4 is negative",
    );
    refused(
        &[
            "show",
            "--position",
            "0,0,0,0,0,0,20/1,1,1,1,1,1,16 n",
            "--moves",
            "1",
        ],
        "the game is over",
    );
    refused(&["show", "--seeds", "30"], "the board holds 1 to 255");
    refused(&["show", "--pits", "0"], "pits per side must be 1 to 15");
    refused(
        &["show", "--capture", "sometimes"],
        "unknown capture rule 'sometimes'",
    );
    refused(
        &["show", "--rules", "martian"],
        "unknown rules preset 'martian'",
    );
    refused(
        &["match", "--south", "alphazero", "--north", "random"],
        "unknown bot 'alphazero'",
    );
    refused(
        &["match", "--south", "minimax:x", "--north", "random"],
        "not a whole number",
    );
    refused(
        &[
            "match", "--south", "random", "--north", "random", "--games", "0",
        ],
        "--games",
    );
    #[cfg(feature = "train")]
    refused(
        &[
            "match",
            "--south",
            "policy:/nonexistent",
            "--north",
            "random",
        ],
        "no checkpoint at /nonexistent",
    );
}

#[test]
fn solve_says_why_it_has_no_endgame_database() {
    let out = kalaha(&[
        "solve",
        "--position",
        "0,5,3,1,0,2,15/1,0,2,4,0,3,12 s",
        "--memory",
        "1",
    ]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(
            "note: --memory 1 MiB leaves room for 9 seeds only (the default 4608 MiB gives 18)"
        ),
        "{text}"
    );
}

#[test]
fn match_reports_the_contract_keys_and_is_deterministic_across_thread_counts() {
    let args = [
        "match", "--south", "greedy", "--north", "mcts:30", "--games", "12", "--seed", "7",
        "--json",
    ];
    let run = |threads: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_kalaha"))
            .args(args)
            .env("RAYON_NUM_THREADS", threads)
            .output()
            .unwrap();
        assert!(out.status.success());
        let mut v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        v.as_object_mut().unwrap().remove("seconds");
        v
    };
    let one = run("1");
    assert_eq!(one, run("2"));
    assert_eq!(one, run("3"));
    let total = ["south_wins", "north_wins", "draws"]
        .iter()
        .map(|k| one[k].as_u64().unwrap())
        .sum::<u64>();
    assert_eq!(total, one["games"].as_u64().unwrap());
    assert_eq!(total, 12);
    assert!(one["mean_margin"].is_number());
}

#[test]
fn bench_rules_prints_steps_per_sec() {
    let v = json(&[
        "bench",
        "rules",
        "--runs",
        "1",
        "--seconds",
        "0.05",
        "--json",
    ]);
    // What is counted, not how fast: the rate is the one run's, and a random Kalah(6,4) game is
    // some tens of moves (a rate of games counted as steps, or steps as games, fails here).
    let steps = v["steps_per_sec"].as_f64().unwrap();
    assert_eq!(v["runs"][0].as_f64(), Some(steps), "{v}");
    let per_game = steps / v["games_per_sec"].as_f64().unwrap();
    assert!(
        (15.0..=120.0).contains(&per_game),
        "{per_game} moves a game: {v}"
    );
}

#[test]
fn bench_endgame_counts_every_board_and_refuses_a_database_that_does_not_fit() {
    // Kalah(3,n) boards with at most 8 seeds: C(8 + 6, 6) = 3003.
    let v = json(&[
        "bench",
        "endgame",
        "--pits",
        "3",
        "--db-seeds",
        "8",
        "--runs",
        "2",
        "--json",
    ]);
    assert_eq!(v["entries"].as_u64(), Some(3003));
    assert_eq!(v["db_seeds"].as_u64(), Some(8));
    let runs: Vec<f64> = v["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_f64().unwrap())
        .collect();
    assert_eq!(runs.len(), 2);
    // The rate is every board over the median run's seconds (the two runs' mean).
    let seconds = v["seconds"].as_f64().unwrap();
    assert!(
        (seconds - (runs[0] + runs[1]) / 2.0).abs() <= 1e-9 * seconds.max(1.0),
        "{v}"
    );
    let boards = v["boards_per_sec"].as_f64().unwrap() * seconds;
    assert!(
        (boards - 3003.0).abs() < 0.01,
        "{boards} boards counted: {v}"
    );
    refused(
        &["bench", "endgame", "--db-seeds", "40"],
        "a database of 40 seeds for 6 pits a side needs 196819 MiB",
    );
    refused(
        &["bench", "endgame", "--runs", "0"],
        "--runs must be at least 1",
    );
}

#[cfg(feature = "train")]
#[test]
fn bench_train_reports_the_trainers_rates_and_bench_compare_the_devices_agreement() {
    let cfg = concat!(env!("CARGO_MANIFEST_DIR"), "/configs/smoke.toml");
    let v = json(&[
        "bench",
        "train",
        "--config",
        cfg,
        "--iterations",
        "1",
        "--warmup",
        "0",
        "--json",
    ]);
    assert_eq!(v["runs"].as_array().map(|r| r.len()), Some(1));
    // What is counted: each rate is over its own part of the iteration, so over the whole
    // iteration's seconds it gives at least the iteration's positions and samples; every
    // position took at least one evaluation.
    let f = |k: &str| v[k].as_f64().unwrap_or_else(|| panic!("{k}: {v}"));
    let secs = f("seconds_per_iteration");
    assert!(
        f("positions_per_sec") * secs >= 0.99 * f("positions_per_iteration"),
        "{v}"
    );
    assert!(
        f("samples_per_sec") * secs >= 0.99 * f("batch_size") * f("steps_per_iteration"),
        "{v}"
    );
    assert!(f("evals_per_sec") >= f("positions_per_sec"), "{v}");
    assert_eq!(v["device"], "cpu");
    let train = ["bench", "train", "--config", cfg];
    refused(
        &[&train[..], &["--iterations", "0"]].concat(),
        "at least one timed iteration",
    );
    refused(
        &[&train[..], &["--device", "tpu"]].concat(),
        "unknown device 'tpu' (expected cpu, wgpu or cuda)",
    );
    #[cfg(not(feature = "wgpu"))]
    refused(
        &[&train[..], &["--device", "wgpu"]].concat(),
        "needs kalaha built with the `wgpu` feature",
    );
    let c = json(&[
        "bench", "compare", "--device", "cpu", "--hidden", "16", "--layers", "1", "--batch", "32",
        "--steps", "2", "--json",
    ]);
    assert_eq!(c["within_tolerance"], true);
    assert_eq!(c["losses"][0].as_array().map(|l| l.len()), Some(2));
    // The CPU against itself agrees whatever the check does; a device that computes 1% off
    // must be caught (exit 2, the differences printed).
    let out = kalaha(&[
        "bench",
        "compare",
        "--device",
        "cpu",
        "--hidden",
        "16",
        "--layers",
        "1",
        "--batch",
        "32",
        "--steps",
        "2",
        "--perturb",
        "0.01",
        "--json",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(2),
        "a perturbed device passed: {err}"
    );
    assert!(err.contains("differ beyond the tolerances"), "{err}");
    let p: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(p["within_tolerance"], false, "{p}");
    assert!(
        p["weight_difference"].as_f64().unwrap() > p["tolerances"][1].as_f64().unwrap(),
        "{p}"
    );
    refused(
        &["bench", "compare", "--device", "cpu", "--perturb", "5"],
        "perturbation",
    );
}

#[test]
fn solve_keeps_its_table_in_a_file_and_refuses_a_damaged_one() {
    let dir = std::env::temp_dir().join(format!("kalaha-cli-table-{}", std::process::id()));
    let file = dir.join("k43.ktt");
    let f = file.to_str().unwrap();
    let args = [
        "solve",
        "--pits",
        "4",
        "--seeds",
        "3",
        "--db-seeds",
        "0",
        "--memory",
        "4",
        "--table",
        f,
        "--json",
    ];
    let first = json(&args);
    assert_eq!(first["table_loaded"], 0);
    let saved = first["table_saved"].as_u64().unwrap();
    assert!(saved > 0);
    let second = json(&args);
    assert_eq!(second["table_loaded"].as_u64(), Some(saved));
    assert_eq!(second["moves"], first["moves"]);
    assert!(second["nodes"].as_u64().unwrap() * 10 < first["nodes"].as_u64().unwrap());
    let other = [
        "solve",
        "--pits",
        "4",
        "--seeds",
        "2",
        "--db-seeds",
        "0",
        "--memory",
        "4",
        "--table",
        f,
    ];
    refused(&other, "holds a table for Kalah(4,3)");
    let mut bytes = std::fs::read(&file).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&file, &bytes).unwrap();
    refused(&args, "damaged");
    // A file of the first format (buckets of four, a power of two of them) is named as such.
    bytes[8] = 1;
    std::fs::write(&file, &bytes).unwrap();
    refused(&args, "format version 1");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn analyse_shows_minimax_scores_beside_the_solver_values() {
    let v = json(&[
        "analyse",
        "--position",
        "0,5,3,1,0,2,15/1,0,2,4,0,3,12 s",
        "--bot",
        "minimax:3",
        "--time-limit",
        "20",
        "--json",
    ]);
    for key in [
        "position", "rules", "to_move", "bot", "choice", "network", "moves", "solver",
    ] {
        assert!(v.get(key).is_some(), "key {key}");
    }
    assert_eq!(v["bot"], "minimax:3");
    assert!(v["network"].is_null());
    assert_eq!(v["solver"]["complete"], true);
    let moves = v["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 4, "pits 2, 3, 4 and 6 hold seeds");
    let best = moves.iter().filter_map(|m| m["minimax"].as_i64()).max();
    for m in moves {
        assert!(m["prior"].is_null() && m["visits"].is_null());
        assert_eq!(m["lower"], m["upper"], "proven: {m}");
    }
    let chosen = moves.iter().find(|m| m["move"] == v["choice"]).unwrap();
    assert_eq!(
        chosen["minimax"].as_i64(),
        best,
        "minimax plays a best score"
    );
    let top = moves.iter().filter_map(|m| m["lower"].as_i64()).max();
    assert_eq!(v["solver"]["lower"].as_i64(), top);

    refused(
        &["analyse", "--bot", "alphazero"],
        "unknown bot 'alphazero'",
    );
    refused(
        &["analyse", "--bot", "random", "--time-limit=-1"],
        "--time-limit",
    );
    refused(
        &[
            "analyse",
            "--bot",
            "random",
            "--position",
            "0,0,0,0,0,0,24/0,0,0,0,0,0,24 s",
        ],
        "the game is over",
    );
}

#[cfg(feature = "train")]
#[test]
fn c_scale_decides_how_far_the_searched_values_outweigh_the_prior() {
    // A position of the perfect-play lines where the shipped network's prior puts 85% on pit 3
    // while its 64 simulations value pit 1 higher (both are worth -6 exactly). With the Q
    // transform all but off the prior decides; leaning on the searched values, the best-valued
    // move of the last round (the most visited) is played.
    let pos = "1,2,4,12,0,0,5/0,3,0,0,1,1,19 s";
    let analyse = |bot: &str| bot_view(bot, pos);
    let prior = analyse("policy:checkpoints/kalah64:64:c_scale=0.001");
    let searched = analyse("policy:checkpoints/kalah64:64:c_scale=100");
    let top = |v: &serde_json::Value, key: &str, among: &dyn Fn(&serde_json::Value) -> bool| {
        let moves = v["moves"].as_array().unwrap();
        let best = moves
            .iter()
            .filter(|m| among(m))
            .max_by(|a, b| {
                a[key]
                    .as_f64()
                    .unwrap()
                    .total_cmp(&b[key].as_f64().unwrap())
            })
            .unwrap();
        best["move"].clone()
    };
    assert_eq!(prior["choice"], top(&prior, "prior", &|_| true), "{prior}");
    let most = (searched["moves"].as_array().unwrap().iter())
        .filter_map(|m| m["visits"].as_u64())
        .max()
        .unwrap();
    let last_round = |m: &serde_json::Value| m["visits"].as_u64() == Some(most);
    assert_eq!(
        searched["choice"],
        top(&searched, "q", &last_round),
        "{searched}"
    );
    assert_ne!(prior["choice"], searched["choice"], "{prior}\n{searched}");
    assert_eq!(prior["bot"], "policy:checkpoints/kalah64:64:c_scale=0.001");
    assert_eq!(prior["network"]["c_scale"].as_f64(), Some(0.001));
    let plain = analyse("policy:checkpoints/kalah64:64");
    assert_eq!(plain["network"]["c_scale"], 2.0, "the checkpoint's own");
}

#[cfg(feature = "train")]
#[test]
fn analyse_says_when_a_proving_search_solved_the_position() {
    // 11 seeds on the board: every move lands in the endgame database, so a proving search
    // proves the position and its utility is the exact margin over all 48 seeds (the checkpoint's
    // margin weight is 1); a plain search says nothing of the kind.
    let pos = "1,0,2,0,1,3,20/0,1,0,2,1,0,17 s";
    let analyse = |bot: &str| bot_view(bot, pos);
    let v = analyse("policy:checkpoints/kalah64:32:prove=on");
    let n = &v["network"];
    assert_eq!(n["proved"], true, "{n}");
    let exact = n["database"].as_f64().expect("the database covers it");
    assert!(
        (n["searched"].as_f64().unwrap() * 48.0 - exact).abs() < 1e-3,
        "{n}"
    );
    for m in v["moves"].as_array().unwrap() {
        let q = m["q"].as_f64().expect("every move visited");
        assert!((q * 48.0 - (q * 48.0).round()).abs() < 1e-3, "{m}");
    }
    let plain = analyse("policy:checkpoints/kalah64:32");
    assert_eq!(plain["network"]["proved"], false);
}

#[test]
fn analyse_says_when_the_solver_proved_nothing_in_time() {
    // The start of Kalah(6,4) in 10 ms: no move's result is proven, and the table says so in
    // place of bounds that span a loss and a win.
    let text = stdout(&["analyse", "--bot", "greedy", "--time-limit", "0.01"]);
    assert!(
        text.contains("solver: nothing proven about the result in time"),
        "{text}"
    );
    let rows: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("move"))
        .skip(1)
        .take(6)
        .collect();
    assert_eq!(rows.len(), 6, "{text}");
    for row in rows {
        let cell = row.split_whitespace().last().unwrap();
        assert!(
            !cell.contains(".."),
            "a move's cell shows bounds that prove nothing: {row}"
        );
    }
}

#[cfg(feature = "train")]
#[test]
fn analyse_shows_the_networks_prior_value_and_search() {
    let v = json(&[
        "analyse",
        "--bot",
        "policy:checkpoints/kalah64:16",
        "--time-limit",
        "0",
        "--json",
    ]);
    let n = &v["network"];
    let value = n["value"].as_f64().unwrap();
    assert!((-1.0..=1.0).contains(&value), "{n}");
    assert!(n["margin"].as_f64().unwrap().abs() <= 48.0);
    assert_eq!(n["simulations"], 16);
    assert!(n["searched"].is_number());
    assert!(v["solver"].is_null());
    let moves = v["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 6);
    let prior: f64 = moves.iter().map(|m| m["prior"].as_f64().unwrap()).sum();
    assert!((prior - 1.0).abs() < 1e-4, "priors sum to {prior}");
    let visits: u64 = moves.iter().map(|m| m["visits"].as_u64().unwrap()).sum();
    assert!(visits > 0 && visits <= 16, "{visits} visits");
    for m in moves {
        assert_eq!(m["q"].is_null(), m["visits"] == 0, "{m}");
    }
    // Without search: the policy's best move, no visits.
    let v = json(&[
        "analyse",
        "--bot",
        "policy:checkpoints/kalah64",
        "--time-limit",
        "0",
        "--json",
    ]);
    assert!(v["network"]["simulations"].is_null());
    let moves = v["moves"].as_array().unwrap();
    let top = moves
        .iter()
        .max_by(|a, b| {
            a["prior"]
                .as_f64()
                .unwrap()
                .total_cmp(&b["prior"].as_f64().unwrap())
        })
        .unwrap();
    assert_eq!(top["move"], v["choice"]);
    assert!(moves.iter().all(|m| m["visits"].is_null()));
    // A text table too.
    let out = kalaha(&[
        "analyse",
        "--bot",
        "policy:checkpoints/kalah64:8",
        "--time-limit",
        "0",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("network: value") && text.contains("prior"),
        "{text}"
    );
}

/// `kalaha judge` scores the committed network on the committed judge set (solved once, cached in
/// `checkpoints/judge/`), with the breakdown the training runs log.
#[cfg(feature = "train")]
#[test]
fn judge_scores_a_network_on_the_committed_judge_set() {
    let dir = env!("CARGO_MANIFEST_DIR");
    let misses = std::env::temp_dir().join(format!("kalaha-misses-{}.json", std::process::id()));
    let v = json(&[
        "judge",
        "--network",
        &format!("{dir}/checkpoints/kalah64"),
        "--cache",
        &format!("{dir}/checkpoints/judge"),
        "--misses",
        misses.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(v["positions"], 1200);
    // The misses file lists exactly the positions scored as not optimal, each with a worse move.
    let listed: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&misses).unwrap()).unwrap();
    let _ = std::fs::remove_file(&misses);
    let listed = listed.as_array().unwrap();
    let scored = 1200.0 * (1.0 - v["optimal_rate"].as_f64().unwrap());
    assert_eq!(listed.len(), scored.round() as usize);
    for m in listed {
        let value = m["value"].as_i64().unwrap();
        let chosen = m["chosen"][1].as_i64().unwrap();
        assert!(chosen < value, "{m}");
        let best = m["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x[1].as_i64().unwrap());
        assert_eq!(best.max(), Some(value), "{m}");
    }
    let by_source: u64 = v["sources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s[1]["positions"].as_u64().unwrap())
        .sum();
    assert_eq!(by_source, 1200);
    let inside = v["inside_db"]["positions"].as_u64().unwrap();
    let outside = v["outside_db"]["positions"].as_u64().unwrap();
    assert_eq!(inside + outside, 1200);
    let rate = v["optimal_rate"].as_f64().unwrap();
    // The committed network is far better than chance (about 1 in 4 moves) and not perfect.
    assert!((0.5..1.0).contains(&rate), "{rate}");
    assert!(v["std_err"].as_f64().unwrap() > 0.0);
    assert_eq!(v["phases"].as_array().unwrap().len(), 3);
    refused(
        &["judge", "--network", "/nonexistent"],
        "no checkpoint at /nonexistent",
    );
    // Against itself: no position tells them apart. Against another rule set's network: refused.
    let kalah64 = format!("{dir}/checkpoints/kalah64");
    let cache = format!("{dir}/checkpoints/judge");
    let v = json(&[
        "judge",
        "--network",
        &kalah64,
        "--against",
        &kalah64,
        "--cache",
        &cache,
        "--json",
    ]);
    assert_eq!(v["seed"], 2026);
    assert_eq!(v["against"]["only_network"], 0);
    assert_eq!(v["against"]["only_against"], 0);
    assert_eq!(v["against"]["p_value"], 1.0);
    assert_eq!(v["against"]["optimal_rate"], v["optimal_rate"]);
    // Searching: the same set, scored by the moves the search picks.
    let searched = json(&[
        "judge",
        "--network",
        &kalah64,
        "--simulations",
        "8",
        "--cache",
        &cache,
        "--json",
    ]);
    // Another seed: a fresh sample of the same sources, solved once into its own file.
    let fresh_cache =
        std::env::temp_dir().join(format!("kalaha-judge-seed-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&fresh_cache);
    let fresh = json(&[
        "judge",
        "--network",
        &kalah64,
        "--seed",
        "8",
        "--positions",
        "3",
        "--cache",
        fresh_cache.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(fresh["seed"], 8);
    assert_eq!(fresh["positions"], 3);
    let first = |file: std::path::PathBuf| {
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
        v["positions"][0]["position"].clone()
    };
    let drawn = first(fresh_cache.join("judge2-6x4-standard-owner-immediate-piefalse-3-8.json"));
    let _ = std::fs::remove_dir_all(&fresh_cache);
    assert_ne!(
        drawn,
        first(
            std::path::Path::new(&cache)
                .join("judge2-6x4-standard-owner-immediate-piefalse-1200-2026.json")
        )
    );
    assert_eq!(searched["simulations"], 8);
    assert_eq!(searched["prove"], false);
    assert_eq!(searched["positions"], 1200);
    assert!(searched["optimal_rate"].as_f64().unwrap() > 0.5);
    let proving = json(&[
        "judge",
        "--network",
        &kalah64,
        "--simulations",
        "8",
        "--prove",
        "--cache",
        &cache,
        "--json",
    ]);
    assert_eq!(
        (&proving["prove"], &proving["positions"]),
        (&true.into(), &1200.into())
    );
    refused(
        &["judge", "--network", &kalah64, "--prove"],
        "--simulations",
    );
    // One search setting of the judge's 8-simulation search, the rest the checkpoint's.
    let setting = |flag: &'static str, value: &'static str| {
        let args = ["--simulations", "8", flag, value, "--cache", &cache];
        [
            &["judge", "--network", kalah64.as_str()][..],
            &args,
            &["--json"],
        ]
        .concat()
    };
    // The search's utility: weight 1 is the checkpoint's own, weight 0 (the value head alone)
    // searches to other moves on the same set.
    let weighted = |w| setting("--margin-weight", w);
    let (one, zero) = (json(&weighted("1")), json(&weighted("0")));
    assert_eq!(
        (&one["margin_weight"], &zero["margin_weight"]),
        (&1.0.into(), &0.0.into())
    );
    assert_eq!(one["optimal_rate"], searched["optimal_rate"]);
    assert_eq!(one["mean_loss"], searched["mean_loss"]);
    assert_ne!(zero["mean_loss"], searched["mean_loss"]);
    refused(
        &["judge", "--network", &kalah64, "--margin-weight", "0.9"],
        "--simulations",
    );
    refused(
        &weighted("1.5"),
        "--margin-weight must be a number from 0 to 1",
    );
    // The search's Q scale: the checkpoint's own (2) gives the plain search's picks, and a scale
    // that leaves the prior in charge gives others.
    let scaled = |x| setting("--c-scale", x);
    let (own, prior) = (json(&scaled("2")), json(&scaled("0.001")));
    assert_eq!(
        (&own["c_scale"], &prior["c_scale"]),
        (&2.0.into(), &0.001.into())
    );
    assert_eq!(own["mean_loss"], searched["mean_loss"]);
    assert_ne!(prior["mean_loss"], searched["mean_loss"]);
    refused(&scaled("0"), "--c-scale must be a number from 0.001 to 100");
    refused(
        &["judge", "--network", &kalah64, "--c-scale", "3"],
        "--simulations",
    );
    refused(
        &[
            "judge",
            "--network",
            &kalah64,
            "--against",
            &format!("{dir}/checkpoints/danish"),
            "--cache",
            &cache,
        ],
        "cannot be judged on one set",
    );
}

/// `kalaha release`: a run's latest weights and its sidecar (naming the weights alone) copied into
/// a folder of released networks, where they play; a name already there only with `--force`
/// (which removes the old weights); a folder that holds no networks, a name that is no plain folder
/// name and a missing run refused.
#[cfg(feature = "train")]
#[test]
fn release_copies_a_runs_latest_network_and_sidecar() {
    let dir = env!("CARGO_MANIFEST_DIR");
    let tmp = std::env::temp_dir().join(format!("kalaha-release-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    // Two "runs": the committed network's weights in a run's checkpoint form (optimizer and run
    // state named and present), at iterations 450 and 460.
    let committed = std::path::Path::new(dir).join("checkpoints/kalah64");
    let run = |name: &str, it: u32| {
        let d = tmp.join("runs").join(name);
        std::fs::create_dir_all(&d).unwrap();
        let mut meta: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(committed.join("meta.json")).unwrap())
                .unwrap();
        let from = committed.join(meta["files"]["model"].as_str().unwrap());
        let files = [
            format!("model-{it:06}.bpk"),
            format!("optim-{it:06}.bpk"),
            format!("state-{it:06}.bin"),
        ];
        std::fs::copy(from, d.join(&files[0])).unwrap();
        std::fs::write(d.join(&files[1]), b"optimizer").unwrap();
        std::fs::write(d.join(&files[2]), b"run state").unwrap();
        meta["iteration"] = it.into();
        meta["files"] = serde_json::json!({
            "model": files[0], "optim": files[1], "state": files[2]
        });
        std::fs::write(d.join("meta.json"), meta.to_string()).unwrap();
        d.to_str().unwrap().to_string()
    };
    let (first, second) = (run("first", 450), run("second", 460));
    let into = tmp.join("ck");
    let into_s = into.to_str().unwrap();
    let v = json(&["release", &first, "net", "--into", into_s, "--json"]);
    let net = into.join("net");
    assert_eq!(v["network"], net.to_str().unwrap());
    assert_eq!(v["run"], first.as_str());
    assert_eq!(v["model"], "model-000450.bpk");
    assert_eq!(v["iteration"], 450);
    assert_eq!(v["replaced"], false);
    let listing = |d: &std::path::Path| {
        let mut v: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    assert_eq!(listing(&net), ["meta.json", "model-000450.bpk"]);
    let side: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(net.join("meta.json")).unwrap()).unwrap();
    assert_eq!(
        side["files"],
        serde_json::json!({ "model": "model-000450.bpk", "optim": null, "state": null })
    );
    assert_eq!(side["iteration"], 450);
    // It plays.
    let bot = format!("policy:{}", net.display());
    let m = json(&[
        "match", "--south", &bot, "--north", "random", "--games", "1", "--json",
    ]);
    assert_eq!(m["games"], 1);

    // A name already there: refused, then replaced with --force (the old weights go).
    refused(
        &["release", &second, "net", "--into", into_s],
        "exists: pass --force",
    );
    let text = stdout(&["release", &second, "net", "--into", into_s, "--force"]);
    assert!(
        text.starts_with(&format!("replaced {} as net-", net.display()))
            && text.contains("(Kalah(6,4)")
            && text.contains("iteration 460")
            && text.contains("model-000460.bpk and meta.json"),
        "{text}"
    );
    assert_eq!(listing(&net), ["meta.json", "model-000460.bpk"]);

    refused(
        &["release", &first, "judge", "--into", into_s],
        "holds no networks",
    );
    refused(
        &["release", &first, "runs", "--into", into_s],
        "holds no networks",
    );
    refused(
        &["release", &first, "a/b", "--into", into_s],
        "not a plain folder name",
    );
    refused(
        &["release", "/nonexistent/run", "other", "--into", into_s],
        "no checkpoint at /nonexistent/run",
    );
    assert!(!into.join("other").exists());
    let _ = std::fs::remove_dir_all(&tmp);
}
