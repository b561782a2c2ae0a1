//! `kalaha serve`'s JSON API against a server started in-process on a free port: whole games at
//! every level, undo/redo, hints, the review, records, the analysis board, and bad requests of
//! many kinds, each refused with a 4xx JSON error that leaves the game as it was.

use std::io::Write as _;
use std::net::SocketAddr;
use std::sync::OnceLock;
use std::time::Duration;

use kalaha::rules::Rules;
use kalaha::serve::client::request;
use kalaha::serve::error::codes;
use kalaha::serve::{Limits, Running, ServeConfig, spawn};
use serde_json::{Value, json};

/// One server for every test here (level hard loads the international network once).
fn server() -> SocketAddr {
    static SERVER: OnceLock<Running> = OnceLock::new();
    SERVER
        .get_or_init(|| {
            spawn(ServeConfig {
                port: 0,
                preload: vec![Rules::kalah64()],
                limits: Limits {
                    perfect_move: Duration::from_millis(500),
                    hint: Duration::from_secs(1),
                    review: Duration::from_millis(100),
                    analyse: Duration::from_secs(2),
                    // Every test here calls from 127.0.0.1 at once.
                    heavy_per_client: 1_000,
                    heavy_queue: 1_000,
                    ..Limits::default()
                },
                ..ServeConfig::default()
            })
            .expect("the server starts")
        })
        .addr
}

fn call(method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
    let text = body.map(|b| b.to_string());
    let r = request(server(), method, path, text.as_deref().map(str::as_bytes)).unwrap();
    (r.status, r.json())
}

fn ok(method: &str, path: &str, body: Option<Value>) -> Value {
    let (status, v) = call(method, path, body);
    assert_eq!(status, 200, "{method} {path}: {v}");
    v
}

fn new_game(body: Value) -> Value {
    ok("POST", "/api/games", Some(body))
}

/// Plays the person's first legal move (and the bot's replies) until the game ends.
fn play_out(mut g: Value) -> Value {
    let id = g["id"].as_str().unwrap().to_string();
    for _ in 0..400 {
        if g["position"]["over"].as_bool().unwrap() {
            return g;
        }
        if g["bot_to_move"].as_bool().unwrap() {
            g = ok("POST", &format!("/api/games/{id}/bot"), None);
            continue;
        }
        assert!(g["your_turn"].as_bool().unwrap(), "{g}");
        let legal = g["position"]["legal"].as_array().unwrap();
        // Vary the moves a little: the last legal pit on even plies.
        let n = g["history"].as_array().unwrap().len();
        let mv = if n.is_multiple_of(2) {
            legal.last()
        } else {
            legal.first()
        }
        .unwrap()
        .clone();
        g = ok(
            "POST",
            &format!("/api/games/{id}/move"),
            Some(json!({"move": mv})),
        );
    }
    panic!("the game did not end: {g}");
}

/// No file path of the server in a bot's name: a spec other commands take.
fn assert_no_path(spec: &str) {
    assert!(
        !spec.contains('/') && !spec.contains("checkpoints") && !spec.contains('\\'),
        "a path in the bot's name: {spec}"
    );
}

#[test]
fn a_whole_game_at_each_level_and_in_practice() {
    for level in ["easy", "medium", "hard", "strongest"] {
        let g = new_game(json!({"level": level, "seed": 1}));
        assert_eq!(g["level"], level);
        let bot = g["bot"].as_str().unwrap();
        assert!(bot.len() > 2);
        assert_no_path(bot);
        if level == "hard" && cfg!(feature = "train") {
            assert_eq!(bot, "policy:auto:64", "{g}");
            assert!(g["network"].as_str().unwrap().starts_with("kalah64"), "{g}");
        }
        let end = play_out(g);
        // Every bot move says what was proven about it at the strongest level (and only there).
        for h in end["history"].as_array().unwrap() {
            let proof = &h["proof"];
            if level == "strongest" && h["by"] == "bot" {
                assert!(
                    ["optimal", "keeps_result", "not_proven"]
                        .contains(&proof.as_str().unwrap_or_default()),
                    "{h}"
                );
            } else {
                assert!(proof.is_null(), "{level}: {h}");
            }
        }
        assert!(end["position"]["result"].is_object(), "{end}");
        assert!(
            end["result_text"]
                .as_str()
                .unwrap()
                .starts_with("Game over")
        );
    }
    // The bot starts when the person sits North; practice plays both sides.
    let g = new_game(json!({"level": "easy", "side": "north"}));
    assert!(g["bot_to_move"].as_bool().unwrap());
    play_out(g);
    let g = new_game(json!({"practice": true, "rules": {"preset": "children"}}));
    assert!(g["bot"].is_null());
    let end = play_out(g);
    assert!(
        end["history"]
            .as_array()
            .unwrap()
            .iter()
            .any(|h| h["side"] == "n")
    );
}

/// Level hard's games share one network thread: games played at once have their searches'
/// evaluations answered in common forward passes, and every game still ends.
#[test]
fn hard_games_at_once_share_forward_passes() {
    if !cfg!(feature = "train") {
        return;
    }
    let before = ok("GET", "/api/info", None)["network_evaluations"].clone();
    std::thread::scope(|s| {
        for seed in 0..8 {
            s.spawn(move || {
                let end = play_out(new_game(json!({"level": "hard", "seed": 100 + seed})));
                assert!(end["position"]["result"].is_object(), "{end}");
            });
        }
    });
    let after = ok("GET", "/api/info", None)["network_evaluations"].clone();
    let grew = |key: &str| after[key].as_u64().unwrap() - before[key].as_u64().unwrap();
    let (batches, positions) = (grew("batches"), grew("positions"));
    assert!(batches > 0, "{before} -> {after}");
    // Eight searches waiting on one thread: some forward passes carry several of them.
    assert!(positions > batches, "{before} -> {after}");
}

/// The strongest level (`perfect` before, still taken as its name): the solver of the server's
/// pool guards level hard's bot. Deep in a game of Kalah(6,4) its moves are proven best; its
/// levels answer names the spec (`guard:T:` and hard's spec, no path) and the network's release.
#[test]
fn the_strongest_level_guards_hard_and_says_what_it_proved() {
    let levels = ok(
        "POST",
        "/api/levels",
        Some(json!({"preset": "international"})),
    );
    let names: Vec<&str> = levels["levels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["level"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["easy", "medium", "hard", "strongest"], "{levels}");
    let hard = levels["levels"][2]["bot"].as_str().unwrap().to_string();
    let strongest = levels["levels"][3]["bot"].as_str().unwrap();
    // The test server gives the solver 0.5 s a move.
    assert_eq!(strongest, format!("guard:0.5:{hard}"), "{levels}");
    for l in levels["levels"].as_array().unwrap() {
        assert_no_path(l["bot"].as_str().unwrap());
    }
    if cfg!(feature = "train") {
        assert_eq!(hard, "policy:auto:64");
        assert_eq!(levels["levels"][3]["network"], levels["network"]);
        assert!(
            levels["network"].as_str().unwrap().starts_with("kalah64"),
            "{levels}"
        );
    } else {
        assert_eq!(hard, "mcts:2000");
    }
    // `perfect` is the same level by its older name; the game answers with the new one.
    let g = new_game(json!({"level": "perfect", "side": "north", "seed": 4}));
    assert_eq!(g["level"], "strongest");
    assert_eq!(g["bot"], strongest);
    let id = g["id"].as_str().unwrap().to_string();
    let g = if g["bot_to_move"].as_bool().unwrap() {
        ok("POST", &format!("/api/games/{id}/bot"), None)
    } else {
        g
    };
    let end = play_out(g);
    let proofs: Vec<&str> = end["history"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|h| h["by"] == "bot")
        .map(|h| h["proof"].as_str().unwrap())
        .collect();
    assert!(!proofs.is_empty(), "{end}");
    // The last bot moves are deep in the endgame: proven best within the half second.
    assert_eq!(proofs.last(), Some(&"optimal"), "{proofs:?}");
    // The plies of the reply carry the proof too; undo and redo keep it.
    let undone = ok("POST", &format!("/api/games/{id}/undo"), None);
    let redone = ok("POST", &format!("/api/games/{id}/redo"), None);
    assert_eq!(redone["history"], end["history"], "{undone}");
}

#[test]
fn each_move_says_what_it_did_and_where_its_seeds_went() {
    let g = new_game(json!({"level": "easy"}));
    let id = g["id"].as_str().unwrap();
    // Pit 3 of Kalah(6,4): four seeds, the last in South's store.
    let g = ok(
        "POST",
        &format!("/api/games/{id}/move"),
        Some(json!({"move": 3})),
    );
    let ply = &g["plies"][0];
    assert_eq!(ply["path"], json!(["s4", "s5", "s6", "S"]));
    assert_eq!(ply["extra_turn"], true);
    assert_eq!(ply["by"], "you");
    assert!(g["your_turn"].as_bool().unwrap());
}

#[test]
fn undo_and_redo_take_back_and_replay_a_turn() {
    let g = new_game(json!({"level": "medium"}));
    let id = g["id"].as_str().unwrap();
    let start = g["position"]["notation"].clone();
    let after = ok(
        "POST",
        &format!("/api/games/{id}/move"),
        Some(json!({"move": 1})),
    );
    assert!(
        after["history"].as_array().unwrap().len() >= 2,
        "the bot replied"
    );
    let back = ok("POST", &format!("/api/games/{id}/undo"), None);
    assert_eq!(back["position"]["notation"], start);
    assert_eq!(back["can_redo"], true);
    let again = ok("POST", &format!("/api/games/{id}/redo"), None);
    assert_eq!(again["position"]["notation"], after["position"]["notation"]);
    assert_eq!(again["moves"], after["moves"]);
}

#[test]
fn a_hint_gives_the_network_at_once_and_the_solver_within_its_limit() {
    if !cfg!(feature = "train") {
        return;
    }
    let g = new_game(json!({"level": "hard"}));
    let id = g["id"].as_str().unwrap();
    let quick = ok("GET", &format!("/api/games/{id}/hint?time=0"), None);
    assert!(quick["network"]["value"].is_number(), "{quick}");
    assert!(quick["solver"].is_null());
    let moves = quick["moves"].as_array().unwrap();
    let total: f64 = moves.iter().map(|m| m["prior"].as_f64().unwrap()).sum();
    assert!((total - 1.0).abs() < 1e-3);
    assert!(moves.iter().any(|m| m["visits"].as_u64().unwrap() > 0));
    // Nothing proven at time 0: the hint names the network's choice and says it is not proven.
    assert_eq!(quick["hint"]["move"], quick["choice"], "{quick}");
    assert_eq!(quick["hint"]["proof"], "not_proven", "{quick}");
    assert!(quick["hint"]["lower"].is_null(), "{quick}");
    let full = ok("GET", &format!("/api/games/{id}/hint"), None);
    assert!(full["solver"]["lower"].is_number(), "{full}");
    assert!(full["moves"][0]["lower"].is_number());
    for m in full["moves"].as_array().unwrap() {
        assert!(
            m["proof"].is_string() && m["changes_result"].is_boolean(),
            "{m}"
        );
    }
}

/// A hint deep in a game is proven: it names the best move, what it does, and the result it
/// keeps.
#[test]
fn a_hint_names_the_pit_what_it_does_and_what_is_proven() {
    // 0,5,3,1,0,2,15/1,0,2,4,0,3,12 s: South's best is pit 6, worth +6 (the analysis test).
    let a = ok(
        "POST",
        "/api/analyse",
        Some(json!({"position": "0,5,3,1,0,2,15/1,0,2,4,0,3,12 s", "time_limit": 2})),
    );
    let h = &a["hint"];
    assert_eq!(h["move"], 6, "{a}");
    assert_eq!(h["proof"], "optimal", "{a}");
    assert_eq!(
        (h["lower"].as_i64(), h["upper"].as_i64()),
        (Some(6), Some(6)),
        "{a}"
    );
    // Pit 6 holds 2 seeds: one to the kalaha, one to North's pit 1. No extra turn, no capture.
    assert_eq!(h["extra_turn"], false, "{a}");
    assert_eq!(h["captured"], 0, "{a}");
    // Every move says what its sowing leads to, for the analysis board to play it.
    let m6 = a["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["move"] == 6)
        .unwrap();
    assert_eq!(m6["after"], "0,5,3,1,0,0,16/2,0,2,4,0,3,12 n", "{m6}");
}

#[test]
fn the_review_judges_every_move_and_the_record_reads_back() {
    let g = new_game(json!({"level": "easy", "seed": 3}));
    let end = play_out(g);
    let id = end["id"].as_str().unwrap();
    let r = ok("GET", &format!("/api/games/{id}/review"), None);
    let n = end["history"].as_array().unwrap().len();
    let moves = r["moves"].as_array().unwrap();
    assert_eq!(moves.len(), n);
    // The last moves are deep in the endgame: proven, with their best moves named.
    let last = moves.last().unwrap();
    assert!(last["loss"].is_number(), "{last}");
    assert!(!last["best"].as_array().unwrap().is_empty());
    assert_eq!(last["after"], end["position"]["notation"], "{last}");
    assert_eq!(last["value_lower"], last["value_upper"], "{last}");
    assert!(last["proof"].is_string(), "{last}");
    // Each move follows from the one before: the review replays the game.
    for w in moves.windows(2) {
        assert_eq!(w[0]["after"], w[1]["before"]);
    }
    // A mistake lost seeds for sure, or is proven to change the result while its exact loss
    // is still open (a loaded machine proves less within the review's limit).
    for m in &r["mistakes"].as_array().unwrap()[..] {
        let mv = &moves[m.as_u64().unwrap() as usize];
        assert!(
            mv["loss"].as_i64().is_some_and(|l| l > 0) || mv["changes_result"] == true,
            "{mv}"
        );
    }
    for (i, mv) in moves.iter().enumerate() {
        let listed = r["mistakes"].as_array().unwrap().contains(&json!(i));
        let lost = mv["loss"].as_i64().is_some_and(|l| l > 0);
        assert_eq!(listed, lost || mv["changes_result"] == true, "{mv}");
    }
    assert_eq!(r["reused"], 0, "the first review judges every move");
    // A second review judges nothing again: the same answer, every move reused.
    let again = ok("GET", &format!("/api/games/{id}/review"), None);
    assert_eq!(again["reused"].as_u64(), Some(n as u64), "{again}");
    assert_eq!(again["moves"], r["moves"]);
    // After an undo and other moves, the moves still played are reused, the rest judged anew.
    let undone = ok("POST", &format!("/api/games/{id}/undo"), None);
    let kept = undone["history"].as_array().unwrap().len();
    assert!(kept < n);
    let after = ok("GET", &format!("/api/games/{id}/review"), None);
    assert_eq!(after["reused"].as_u64(), Some(kept as u64), "{after}");
    assert_eq!(after["moves"].as_array().unwrap().len(), kept);
    assert_eq!(
        after["moves"].as_array().unwrap()[..],
        r["moves"].as_array().unwrap()[..kept]
    );
    let rec = ok("GET", &format!("/api/games/{id}/record"), None);
    let back = new_game(json!({"record": rec["record"], "practice": true}));
    assert_eq!(back["position"]["notation"], undone["position"]["notation"]);
    assert_eq!(back["moves"], undone["moves"]);
}

#[test]
fn the_analysis_board_gives_prior_visits_and_exact_values() {
    if !cfg!(feature = "train") {
        return;
    }
    let a = ok(
        "POST",
        "/api/analyse",
        Some(json!({"position": "0,5,3,1,0,2,15/1,0,2,4,0,3,12 s", "time_limit": 2})),
    );
    assert!(a["network"]["value"].is_number(), "{a}");
    let moves = a["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 4);
    assert!(
        moves
            .iter()
            .all(|m| m["prior"].is_number() && m["visits"].is_number())
    );
    assert_eq!(a["solver"]["lower"], 6, "{a}");
    assert_eq!(a["best"], json!([6]));
    // Rules without a network: minimax's scores instead.
    let b = ok(
        "POST",
        "/api/analyse",
        Some(json!({"rules": {"pits": 4, "seeds": 3}, "position": "3,3,3,3,0/3,3,3,3,0 s"})),
    );
    assert!(b["network"].is_null());
    assert!(b["moves"][0]["minimax"].is_number(), "{b}");
}

/// Sends a raw body.
fn raw(method: &str, path: &str, body: &[u8]) -> (u16, Value) {
    let r = request(server(), method, path, Some(body)).unwrap();
    (r.status, r.json())
}

#[test]
fn bad_requests_get_a_4xx_naming_the_problem_and_change_nothing() {
    // A game in progress, one finished, one where the bot is to move.
    // South's pit 3 of Kalah(6,4) ends in the store: South moves again, with pit 3 empty.
    let g = new_game(json!({"level": "easy", "seed": 5, "record": "moves: 3"}));
    let id = g["id"].as_str().unwrap().to_string();
    assert!(g["your_turn"].as_bool().unwrap());
    let over = play_out(new_game(json!({"level": "easy", "seed": 6})));
    let over_id = over["id"].as_str().unwrap().to_string();
    let north = new_game(json!({"level": "easy", "side": "north"}));
    let north_id = north["id"].as_str().unwrap().to_string();
    let state = |id: &str| ok("GET", &format!("/api/games/{id}"), None);
    let before = [state(&id), state(&over_id), state(&north_id)];
    let empty = 3;
    assert_eq!(g["position"]["south"][2], 0);
    let mv = format!("/api/games/{id}/move");
    let big = format!("{{\"move\": 1, \"x\": \"{}\"}}", "a".repeat(100_000));
    let cases: Vec<(&str, u16, (u16, Value))> = vec![
        (
            "empty pit",
            422,
            call("POST", &mv, Some(json!({"move": empty}))),
        ),
        (
            "pit out of range",
            422,
            call("POST", &mv, Some(json!({"move": 9}))),
        ),
        ("pit 0", 422, call("POST", &mv, Some(json!({"move": 0})))),
        (
            "pit 300",
            422,
            call("POST", &mv, Some(json!({"move": 300}))),
        ),
        (
            "negative pit",
            400,
            call("POST", &mv, Some(json!({"move": -1}))),
        ),
        (
            "fractional pit",
            400,
            call("POST", &mv, Some(json!({"move": 2.5}))),
        ),
        (
            "move not a pit",
            400,
            call("POST", &mv, Some(json!({"move": "abc"}))),
        ),
        ("missing move", 400, call("POST", &mv, Some(json!({})))),
        (
            "unknown field",
            400,
            call("POST", &mv, Some(json!({"move": 2, "pit": 2}))),
        ),
        ("malformed JSON", 400, raw("POST", &mv, b"{\"move\": ")),
        ("JSON of the wrong shape", 400, raw("POST", &mv, b"[1, 2]")),
        ("oversized body", 413, raw("POST", &mv, big.as_bytes())),
        (
            "swap without the pie rule",
            422,
            call("POST", &mv, Some(json!({"move": "swap"}))),
        ),
        (
            "unknown game",
            404,
            call("POST", "/api/games/feedbeef/move", Some(json!({"move": 1}))),
        ),
        (
            "unknown game state",
            404,
            call("GET", "/api/games/nope", None),
        ),
        (
            "game over",
            409,
            call(
                "POST",
                &format!("/api/games/{over_id}/move"),
                Some(json!({"move": 1})),
            ),
        ),
        (
            "hint after the end",
            409,
            call("GET", &format!("/api/games/{over_id}/hint"), None),
        ),
        (
            "bot after the end",
            409,
            call("POST", &format!("/api/games/{over_id}/bot"), None),
        ),
        (
            "wrong turn: the bot's",
            409,
            call(
                "POST",
                &format!("/api/games/{north_id}/move"),
                Some(json!({"move": 1})),
            ),
        ),
        (
            "wrong turn: yours",
            409,
            call("POST", &format!("/api/games/{id}/bot"), None),
        ),
        (
            "redo with nothing undone",
            409,
            call("POST", &format!("/api/games/{id}/redo"), None),
        ),
        (
            "undo at the start",
            409,
            call("POST", &format!("/api/games/{north_id}/undo"), None),
        ),
        (
            "bad hint time",
            400,
            call("GET", &format!("/api/games/{id}/hint?time=soon"), None),
        ),
        (
            "misspelled hint query key",
            400,
            call("GET", &format!("/api/games/{id}/hint?tme=0"), None),
        ),
        (
            "query key where none is read",
            400,
            call("GET", &format!("/api/games/{id}?verbose=1"), None),
        ),
        (
            "a key in undo's body",
            400,
            call(
                "POST",
                &format!("/api/games/{id}/undo"),
                Some(json!({"moves": 2})),
            ),
        ),
        (
            "bad level",
            400,
            call("POST", "/api/games", Some(json!({"level": "grandmaster"}))),
        ),
        (
            "bad preset",
            400,
            call(
                "POST",
                "/api/games",
                Some(json!({"rules": {"preset": "klingon"}})),
            ),
        ),
        (
            "too many pits",
            400,
            call("POST", "/api/games", Some(json!({"rules": {"pits": 99}}))),
        ),
        (
            "too many seeds",
            400,
            call(
                "POST",
                "/api/games",
                Some(json!({"rules": {"pits": 6, "seeds": 60}})),
            ),
        ),
        (
            "misspelled rule key",
            400,
            call("POST", "/api/levels", Some(json!({"pit": 4}))),
        ),
        (
            "bad capture keyword",
            400,
            call(
                "POST",
                "/api/games",
                Some(json!({"rules": {"capture": "sometimes"}})),
            ),
        ),
        (
            "bad side",
            400,
            call("POST", "/api/games", Some(json!({"side": "east"}))),
        ),
        (
            "bad record",
            400,
            call(
                "POST",
                "/api/games",
                Some(json!({"record": "moves: 1,1,1,1,1,1,1"})),
            ),
        ),
        (
            "record and rules",
            400,
            call(
                "POST",
                "/api/games",
                Some(json!({"record": "moves: 1", "rules": {}})),
            ),
        ),
        (
            "malformed position",
            400,
            call(
                "POST",
                "/api/analyse",
                Some(json!({"position": "4,4,4/4,4 s"})),
            ),
        ),
        (
            "position of other rules",
            400,
            call(
                "POST",
                "/api/analyse",
                Some(json!({"position": "3,3,3,0/3,3,3,0 s"})),
            ),
        ),
        (
            "position over",
            422,
            call(
                "POST",
                "/api/analyse",
                Some(json!({"position": "0,0,0,0,0,0,24/4,4,4,4,4,4,0 n"})),
            ),
        ),
        (
            "bad analysis time",
            400,
            call(
                "POST",
                "/api/analyse",
                Some(json!({"position": "4,4,4,4,4,4,0/4,4,4,4,4,4,0 s", "time_limit": -1})),
            ),
        ),
        ("wrong method", 405, call("DELETE", &mv, None)),
        ("unknown route", 404, call("GET", "/api/nothing", None)),
    ];
    // The key at fault is named.
    for (what, key) in [
        ("misspelled hint query key", "'tme'"),
        ("query key where none is read", "'verbose'"),
        ("a key in undo's body", "moves"),
    ] {
        let body = &cases.iter().find(|c| c.0 == what).unwrap().2.1;
        assert!(
            body["error"].as_str().unwrap_or_default().contains(key),
            "{what}: {body}"
        );
    }
    let mut failed = Vec::new();
    for (what, want, (status, body)) in &cases {
        let named = body["error"].as_str().is_some_and(|e| !e.is_empty());
        if status != want || !named {
            failed.push(format!(
                "{what}: expected {want} with an error, got {status} {body}"
            ));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
    assert!(cases.len() >= 15);
    // Every error has a code the page translates; the ones a player meets have their own.
    for (what, _, (_, body)) in &cases {
        let code = body["code"].as_str().unwrap_or_default();
        assert!(codes::ALL.contains(&code), "{what}: no known code: {body}");
    }
    for (what, want) in [
        ("empty pit", codes::ILLEGAL_MOVE),
        ("game over", codes::GAME_OVER),
        ("wrong turn: the bot's", codes::NOT_YOUR_MOVE),
        ("redo with nothing undone", codes::NOTHING_TO_REDO),
        ("undo at the start", codes::NOTHING_TO_UNDO),
        ("too many seeds", codes::BAD_RULES),
        ("bad record", codes::BAD_RECORD),
        ("malformed position", codes::BAD_POSITION),
        ("position over", codes::GAME_OVER),
        ("unknown game", codes::GAME_GONE),
    ] {
        let body = &cases.iter().find(|c| c.0 == what).unwrap().2.1;
        assert_eq!(body["code"], want, "{what}: {body}");
    }
    let after = [state(&id), state(&over_id), state(&north_id)];
    assert_eq!(before, after, "a refused request changed a game");
}

#[test]
fn the_page_is_served_from_the_binary() {
    let r = request(server(), "GET", "/", None).unwrap();
    assert_eq!(r.status, 200);
    assert!(r.body.contains("<html") && r.body.contains("api/games"));
    let info = ok("GET", "/api/info", None);
    assert_eq!(info["presets"].as_array().unwrap().len(), 10);
}

/// A server of its own for the cancellation tests: no network, one heavy place (so a second
/// game's proof queues behind the first), at most 4 games, and time limits of 10 minutes, far
/// longer than any of these tests waits.
fn slow_server() -> Running {
    let long = Duration::from_secs(600);
    spawn(ServeConfig {
        port: 0,
        preload: vec![],
        max_games: 4,
        limits: Limits {
            perfect_move: long,
            hint: long,
            review: long,
            analyse: long,
            heavy_jobs: 1,
            network_jobs: 1,
            heavy_queue: 64,
            heavy_per_client: 64,
            ..Limits::default()
        },
        ..ServeConfig::default()
    })
    .expect("the server starts")
}

/// Kalah(6,6): no proof of its opening ends within minutes here.
fn kalah66() -> Value {
    json!({"pits": 6, "seeds": 6})
}

fn call_at(addr: SocketAddr, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
    let text = body.map(|b| b.to_string());
    let r = request(addr, method, path, text.as_deref().map(str::as_bytes)).unwrap();
    (r.status, r.json())
}

fn jobs(addr: SocketAddr) -> Value {
    let (status, v) = call_at(addr, "GET", "/api/info", None);
    assert_eq!(status, 200, "{v}");
    v["jobs"].clone()
}

/// Waits (at most `within`) until the jobs' counts satisfy `ok`; panics naming `what` if not.
fn wait_jobs(addr: SocketAddr, what: &str, within: Duration, ok: impl Fn(&Value) -> bool) {
    let start = std::time::Instant::now();
    loop {
        let j = jobs(addr);
        if ok(&j) {
            return;
        }
        assert!(
            start.elapsed() < within,
            "{what}: not within {within:?}: {j}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Runs `method path` on its own thread; the reply comes through the handle.
fn in_background(
    addr: SocketAddr,
    method: &'static str,
    path: String,
    body: Option<Value>,
) -> std::thread::JoinHandle<(u16, Value)> {
    std::thread::spawn(move || call_at(addr, method, &path, body))
}

fn cancelled(addr: SocketAddr) -> u64 {
    jobs(addr)["cancelled"].as_u64().unwrap()
}

/// Sends `POST /api/analyse` with `body` on a connection of its own and leaves the reply unread:
/// dropping the stream is the client going away.
fn analysis_request(addr: SocketAddr, body: &str) -> std::net::TcpStream {
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    write!(
        s,
        "POST /api/analyse HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    s
}

/// Bounds here are generous (the machine is shared): a cancelled proof stops within
/// milliseconds, its time limit is 10 minutes, and each wait below allows 20 seconds.
const SOON: Duration = Duration::from_secs(20);

#[test]
fn work_for_an_abandoned_game_is_cancelled_and_frees_its_place() {
    let server = slow_server();
    let addr = server.addr;
    let running = |n: u64| move |j: &Value| j["running"].as_u64() == Some(n);

    // 1. A deleted game's bot move (level perfect, a 10-minute proof) stops, plays nothing, and
    // frees the one heavy place for another game's hint queued behind it.
    let (status, g) = call_at(
        addr,
        "POST",
        "/api/games",
        Some(json!({"rules": kalah66(), "level": "perfect", "side": "north"})),
    );
    assert_eq!(status, 200, "{g}");
    assert!(g["bot_to_move"].as_bool().unwrap(), "{g}");
    let id = g["id"].as_str().unwrap().to_string();
    let (_, other) = call_at(
        addr,
        "POST",
        "/api/games",
        Some(json!({"rules": kalah66(), "practice": true})),
    );
    let other_id = other["id"].as_str().unwrap().to_string();
    let before = cancelled(addr);
    let bot = in_background(addr, "POST", format!("/api/games/{id}/bot"), None);
    wait_jobs(addr, "the bot thinks", SOON, running(1));
    let queued = in_background(
        addr,
        "GET",
        format!("/api/games/{other_id}/hint?time=0.3"),
        None,
    );
    std::thread::sleep(Duration::from_millis(300));
    assert!(!queued.is_finished(), "the hint waits for the one place");
    let (status, v) = call_at(addr, "DELETE", &format!("/api/games/{id}"), None);
    assert_eq!(status, 200, "{v}");
    wait_jobs(addr, "the bot's move is cancelled", SOON, |j| {
        j["cancelled"].as_u64().unwrap() > before
    });
    let (status, v) = bot.join().unwrap();
    assert_eq!(status, 404, "{v}");
    assert!(v["error"].as_str().unwrap().contains("cancelled"), "{v}");
    let (status, hint) = queued.join().unwrap();
    assert_eq!(
        status, 200,
        "the queued hint ran once the place was free: {hint}"
    );
    assert!(hint["solver"].is_object(), "{hint}");
    let (status, _) = call_at(addr, "GET", &format!("/api/games/{id}"), None);
    assert_eq!(status, 404);

    // 2. A hint whose game moves on is cancelled; the move stands.
    let before = cancelled(addr);
    let hint = in_background(
        addr,
        "GET",
        format!("/api/games/{other_id}/hint?time=600"),
        None,
    );
    wait_jobs(addr, "the hint's proof runs", SOON, running(1));
    let (status, g) = call_at(
        addr,
        "POST",
        &format!("/api/games/{other_id}/move"),
        Some(json!({"move": 1})),
    );
    assert_eq!(status, 200, "{g}");
    let (status, v) = hint.join().unwrap();
    assert_eq!(status, 409, "{v}");
    assert!(v["error"].as_str().unwrap().contains("changed"), "{v}");
    assert!(cancelled(addr) > before);
    let (_, g) = call_at(addr, "GET", &format!("/api/games/{other_id}"), None);
    assert_eq!(g["moves"].as_str().unwrap_or_default(), "1", "{g}");

    // 3. A review of a game pushed out of the full store (4 games at most) is cancelled.
    let before = cancelled(addr);
    let review = in_background(addr, "GET", format!("/api/games/{other_id}/review"), None);
    wait_jobs(addr, "the review runs", SOON, running(1));
    for _ in 0..4 {
        let (status, v) = call_at(
            addr,
            "POST",
            "/api/games",
            Some(json!({"rules": kalah66(), "practice": true})),
        );
        assert_eq!(status, 200, "{v}");
    }
    let (status, v) = review.join().unwrap();
    assert_eq!(status, 404, "{v}");
    assert!(cancelled(addr) > before);
    wait_jobs(addr, "the place is free again", SOON, |j| {
        j["running"].as_u64() == Some(0) && j["heavy_places_free"].as_u64() == Some(1)
    });

    // 4. An analysis whose client goes away is cancelled. With no network, an analysis is two
    // jobs: minimax's view (milliseconds), then the proof; the client leaves once the proof runs
    // (if it left between the two, no proof would start and none would count as cancelled).
    let before = cancelled(addr);
    let finished_before = jobs(addr)["finished"].as_u64().unwrap();
    let body =
        json!({"rules": kalah66(), "position": "6,6,6,6,6,6,0/6,6,6,6,6,6,0 s", "time_limit": 600})
            .to_string();
    let s = analysis_request(addr, &body);
    wait_jobs(addr, "the analysis's proof runs", SOON, |j| {
        j["finished"].as_u64().unwrap() > finished_before && j["running"].as_u64() == Some(1)
    });
    // A second analysis waits for the one place; its client leaves before it starts.
    let queued = analysis_request(addr, &body);
    wait_jobs(addr, "the second analysis waits", SOON, |j| {
        j["waiting"].as_u64() == Some(1)
    });
    drop(queued);
    wait_jobs(addr, "the waiting analysis is cancelled", SOON, |j| {
        j["cancelled"].as_u64().unwrap() > before
            && j["waiting"].as_u64() == Some(0)
            && j["running"].as_u64() == Some(1)
    });
    let before = cancelled(addr);
    drop(s);
    wait_jobs(addr, "the analysis is cancelled", SOON, |j| {
        j["cancelled"].as_u64().unwrap() > before && j["running"].as_u64() == Some(0)
    });

    // 4b. A review whose client leaves is cancelled (reviews are judged in a job that follows
    // its request). A Kalah(6,6) game of a few moves: no position of it is proven for minutes.
    let (status, g) = call_at(
        addr,
        "POST",
        "/api/games",
        Some(json!({"rules": kalah66(), "practice": true})),
    );
    assert_eq!(status, 200, "{g}");
    let rid = g["id"].as_str().unwrap().to_string();
    for mv in [1, 2] {
        let (status, v) = call_at(
            addr,
            "POST",
            &format!("/api/games/{rid}/move"),
            Some(json!({"move": mv})),
        );
        assert_eq!(status, 200, "{v}");
    }
    let before = cancelled(addr);
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    write!(
        s,
        "GET /api/games/{rid}/review HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    wait_jobs(addr, "the review runs", SOON, running(1));
    let left = std::time::Instant::now();
    drop(s);
    wait_jobs(addr, "the review is cancelled", SOON, |j| {
        j["cancelled"].as_u64().unwrap() > before && j["running"].as_u64() == Some(0)
    });
    eprintln!(
        "a review was cancelled {:.3} s after its client left (the wait polls every 20 ms)",
        left.elapsed().as_secs_f64()
    );

    // 5. Stopping the server cancels a proof in flight: its request answers 503 at once.
    let analysis = in_background(
        addr,
        "POST",
        "/api/analyse".into(),
        Some(
            json!({"rules": kalah66(), "position": "6,6,6,6,6,6,0/6,6,6,6,6,6,0 s", "time_limit": 600}),
        ),
    );
    wait_jobs(addr, "the analysis runs", SOON, running(1));
    let app = std::sync::Arc::clone(&server.app);
    let started = std::time::Instant::now();
    server.stop().unwrap();
    assert!(
        started.elapsed() < SOON,
        "the server stopped in {:?}",
        started.elapsed()
    );
    let (status, v) = analysis.join().unwrap();
    assert_eq!(status, 503, "{v}");
    assert!(app.jobs.cancelled() >= 5, "{}", app.jobs.json());
}

#[test]
fn bad_rule_choices_are_refused_naming_the_problem() {
    let (status, body) = call("POST", "/api/levels", Some(json!({"pit": 4})));
    let error = body["error"].as_str().unwrap_or_default();
    assert_eq!(status, 400, "{body}");
    assert!(error.contains("pit"), "{error}");
    let (status, body) = call(
        "POST",
        "/api/games",
        Some(json!({"rules": {"capture": "sometimes"}})),
    );
    let error = body["error"].as_str().unwrap_or_default();
    assert_eq!(status, 400, "{body}");
    assert!(
        error.starts_with("rules: ") && error.contains("sometimes"),
        "{error}"
    );
    let levels = ok(
        "POST",
        "/api/levels",
        Some(json!({"preset": "children", "pie": true})),
    );
    assert_eq!(
        levels["rules"],
        ok(
            "POST",
            "/api/levels",
            Some(json!({"pits": 6, "seeds": 3, "capture": "off", "pie": true}))
        )["rules"]
    );
}

/// The page's words: one table a language (the JSON in `<script id="strings">`), each with every
/// key of the English one and the same placeholders, none left in English in the Swedish, Danish
/// or Norwegian table (but for the few words that are the same), a word for every error code the
/// API sends, every level and every proof; and every key the page asks for by name is there.
#[test]
fn the_page_has_every_word_in_every_language() {
    let page = include_str!("../src/serve/page.html");
    let start = page
        .find("<script type=\"application/json\" id=\"strings\">")
        .expect("the strings' block");
    let body = &page[start..];
    let body = &body[body.find('>').unwrap() + 1..body.find("</script>").unwrap()];
    let tables: serde_json::Map<String, Value> =
        serde_json::from_str(body).expect("the strings are JSON");
    let en = tables["en"].as_object().unwrap();
    let placeholders = |s: &str| -> Vec<String> {
        let mut v: Vec<String> = s
            .split('{')
            .skip(1)
            .filter_map(|p| p.split_once('}').map(|(k, _)| k.to_string()))
            .collect();
        v.sort();
        v
    };
    // The same in every language: the board's name for a store, and two pure formats.
    let same = ["store", "after_time", "opponent"];
    let mut problems = Vec::new();
    for lang in ["sv", "da", "no"] {
        let table = tables[lang].as_object().unwrap();
        for (key, word) in en {
            match table.get(key).and_then(Value::as_str) {
                None => problems.push(format!("{lang}: no '{key}'")),
                Some(w) => {
                    if placeholders(w) != placeholders(word.as_str().unwrap()) {
                        problems.push(format!("{lang}: '{key}' has other placeholders: {w}"));
                    }
                    if w == word.as_str().unwrap() && !same.contains(&key.as_str()) {
                        problems.push(format!("{lang}: '{key}' is left in English: {w}"));
                    }
                }
            }
        }
        for key in table.keys() {
            if !en.contains_key(key) {
                problems.push(format!("{lang}: '{key}' is not in the English table"));
            }
        }
    }
    // Words the page builds its keys for.
    let mut wanted: Vec<String> = codes::ALL.iter().map(|c| format!("err_{c}")).collect();
    wanted.extend(["err_network", "err_unknown"].map(String::from));
    for level in ["easy", "medium", "hard", "strongest"] {
        wanted.push(format!("level_{level}"));
    }
    for proof in ["optimal", "keeps_result", "not_proven"] {
        wanted.push(format!("proof_{proof}"));
        wanted.push(format!("proof_bot_{proof}"));
    }
    for preset in kalaha::rules::Preset::ALL {
        wanted.push(preset.name().to_string());
    }
    // Every t("key") and data-i18n="key" of the page.
    // (A key built at run time, `t("level_" + l)`, is followed by `+`: those are listed above.)
    for open in ["t(\"", "data-i18n=\""] {
        for (at, _) in page.match_indices(open) {
            // `t(` itself, not the end of `get(` or `split(`.
            let before = page[..at].chars().next_back().unwrap_or(' ');
            if before.is_alphanumeric() || before == '_' || before == '.' {
                continue;
            }
            if let Some((key, rest)) = page[at + open.len()..].split_once('"')
                && !rest.trim_start().starts_with('+')
            {
                wanted.push(key.to_string());
            }
        }
    }
    for key in wanted {
        if !en.contains_key(&key) {
            problems.push(format!("the page asks for '{key}', which no table has"));
        }
    }
    // No player-facing word names a bot spec.
    for (lang, table) in &tables {
        for (key, word) in table.as_object().unwrap() {
            let w = word.as_str().unwrap();
            if ["policy:", "minimax:", "greedy", "mcts:", "guard:"]
                .iter()
                .any(|s| w.contains(s))
            {
                problems.push(format!("{lang}: '{key}' names a bot spec: {w}"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
