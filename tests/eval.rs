//! The evaluation arena: the rating fit on results whose maximum is known in closed form, the
//! opening diversification, the solver's judgement against an independent brute force, and the
//! `kalaha eval` command's reports.

mod common;

use std::process::Command;
use std::sync::atomic::AtomicBool;

use kalaha::bots::{BotContext, BotSpec, Player};
use kalaha::eval::elo::{PairScore, elo_of_share, fit};
use kalaha::eval::{Arena, Mode, OpeningSet, Phase, tally, verdict};
use kalaha::rules::{Move, Position, Rules};
use kalaha::solver::{DbSize, Solver, SolverConfig};

fn pair(a: usize, b: usize, games: f64, score: f64) -> PairScore {
    PairScore { a, b, games, score }
}

/// Bots ready to play under `rules`.
fn players(specs: &[BotSpec], rules: &kalaha::rules::Rules) -> Vec<Player> {
    BotContext::new().prepare_all(specs, rules).unwrap()
}

#[test]
fn a_75_percent_score_is_190_8_elo_with_the_fisher_interval() {
    // 30 wins and 10 losses: the maximum is 400 log10(3) = 190.85; the standard error in natural
    // units is 1 / sqrt(n p (1 - p)) = 1 / sqrt(40 * 0.1875).
    let f = fit(2, &[pair(0, 1, 40.0, 30.0)], 1).unwrap();
    assert!(!f.regularized);
    assert!((f.ratings[0].elo - 400.0 * 3f64.log10()).abs() < 1e-6);
    assert!((f.ratings[0].elo - 190.85).abs() < 0.01);
    assert_eq!(f.ratings[1].elo, 0.0);
    let se = (1.0 / (40.0 * 0.1875f64)).sqrt() * 400.0 / std::f64::consts::LN_10;
    assert!((f.ratings[0].upper - f.ratings[0].elo - 1.96 * se).abs() < 1e-6);
    assert!((f.ratings[0].elo - f.ratings[0].lower - 1.96 * se).abs() < 1e-6);
    // Draws are half points: 20 wins and 20 draws is the same 75%.
    let d = fit(2, &[pair(0, 1, 40.0, 30.0)], 0).unwrap();
    assert!((d.ratings[1].elo + 190.85).abs() < 0.01);
}

#[test]
fn consistent_scores_give_back_the_ratings_they_came_from() {
    // Expected scores of players rated 0, 100 and 300 are a fixed point of the likelihood.
    let r = [0.0, 100.0, 300.0];
    let p = |a: usize, b: usize| 1.0 / (1.0 + 10f64.powf((r[b] - r[a]) / 400.0));
    let results: Vec<PairScore> = [(0, 1), (0, 2), (1, 2)]
        .iter()
        .map(|&(a, b)| pair(a, b, 100.0, 100.0 * p(a, b)))
        .collect();
    let f = fit(3, &results, 0).unwrap();
    for (got, want) in f.ratings.iter().zip(r) {
        assert!((got.elo - want).abs() < 1e-6, "{:?}", f.ratings);
        assert!(got.lower <= got.elo && got.elo <= got.upper);
    }
    assert!((elo_of_share(0.75) - 190.85).abs() < 0.01);
}

#[test]
fn a_perfect_score_is_regularized_to_a_finite_rating() {
    let f = fit(2, &[pair(0, 1, 20.0, 20.0)], 1).unwrap();
    assert!(f.regularized);
    // One virtual draw: 20.5 of 21 points.
    assert!((f.ratings[0].elo - elo_of_share(20.5 / 21.0)).abs() < 1e-6);
    assert!(
        fit(3, &[pair(0, 1, 4.0, 2.0)], 0).is_err(),
        "player 2 never played"
    );
}

#[test]
fn openings_are_distinct_reproducible_and_reload_identically() {
    let rules = Rules::kalah64();
    let a = OpeningSet::generate(&rules, 12, 4, 7);
    let b = OpeningSet::generate(&rules, 12, 4, 7);
    assert_eq!(a, b);
    let mut seen: Vec<&str> = a.openings.iter().map(|o| o.position.as_str()).collect();
    seen.sort();
    seen.dedup();
    assert_eq!(seen.len(), 12, "openings differ from each other");
    assert_ne!(a, OpeningSet::generate(&rules, 12, 4, 8));
    for o in &a.openings {
        assert_eq!(o.moves.split(',').count(), 4);
    }
    let dir = std::env::temp_dir().join(format!("kalaha-openings-{}", std::process::id()));
    let path = dir.join("set.json");
    a.save(&path).unwrap();
    let back = OpeningSet::load(&path).unwrap();
    assert_eq!(back, a);
    assert_eq!(
        back.positions(&rules).unwrap(),
        a.positions(&rules).unwrap()
    );
    let other = Rules::new(4, 3).unwrap();
    assert!(back.positions(&other).is_err(), "other rules are refused");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn pie_openings_in_the_opening_turn_keep_it_and_older_files_still_load() {
    let rules = Rules::kalah64().with_pie(true);
    // Pit 3 ends in South's store: one move leaves South's opening turn going.
    let set = (0..64)
        .map(|seed| OpeningSet::generate(&rules, 6, 1, seed))
        .find(|s| s.openings.iter().any(|o| o.moves == "3"))
        .expect("some seed draws pit 3 among six one-move openings");
    let third = set.openings.iter().position(|o| o.moves == "3").unwrap();
    assert_eq!(
        set.openings[third].position,
        "4,4,0,5,5,5,1/4,4,4,4,4,4,0 s opening"
    );
    let fresh = set.positions(&rules).unwrap();
    assert!(fresh[third].in_opening_turn());
    // A file written before the marker records the same opening without it.
    let mut older = set.clone();
    older.openings[third].position = "4,4,0,5,5,5,1/4,4,4,4,4,4,0 s".to_string();
    assert_eq!(older.positions(&rules).unwrap(), fresh);
    older.openings[third].position = "4,4,0,5,5,5,1/4,4,4,4,4,4,1 s".to_string();
    assert!(
        older.positions(&rules).is_err(),
        "a wrong board is still refused"
    );
}

#[test]
fn each_pair_of_games_shares_an_opening_from_both_seats() {
    let rules = Rules::kalah64();
    let set = OpeningSet::generate(&rules, 3, 3, 1);
    let arena = Arena {
        players: players(
            &[BotSpec::Random, BotSpec::Greedy, BotSpec::Minimax(1)],
            &rules,
        ),
        mode: Mode::RoundRobin,
        openings: set.positions(&rules).unwrap(),
        seed: 5,
        batch: true,
    };
    let games = arena.run(&|| {}, &AtomicBool::new(false));
    assert_eq!(games.len(), 3 * 3 * 2);
    for g in &games {
        assert_eq!(*g.game.start(), arena.openings[g.opening]);
        assert!(g.game.position().is_over());
        let twin = games
            .iter()
            .filter(|h| h.pairing == g.pairing && h.opening == g.opening)
            .collect::<Vec<_>>();
        assert_eq!(twin.len(), 2);
        assert_ne!(twin[0].a_south, twin[1].a_south, "one game from each seat");
    }
    // Deterministic for a seed.
    let again = arena.run(&|| {}, &AtomicBool::new(false));
    let moves = |v: &[kalaha::eval::ArenaGame]| -> Vec<String> {
        v.iter().map(|g| g.game.move_list()).collect()
    };
    assert_eq!(moves(&games), moves(&again));
    let table = tally(&arena.players, &arena.pairings(), &games);
    for r in &table {
        assert_eq!(r.games, 6);
        assert_eq!(r.a_wins + r.draws + r.b_wins, 6);
    }
    // Each move is timed once and put down to the bot in the seat to move.
    let mut a_moves = vec![0u32; table.len()];
    let mut b_moves = vec![0u32; table.len()];
    for g in &games {
        let history = g.game.history();
        assert_eq!(g.seconds.len(), history.len());
        for (played, &seconds) in history.iter().zip(&g.seconds) {
            assert!(seconds.is_finite() && seconds >= 0.0);
            let a_moves_now = (played.before.to_move() == kalaha::rules::Side::South) == g.a_south;
            *if a_moves_now {
                &mut a_moves
            } else {
                &mut b_moves
            }
            .get_mut(g.pairing)
            .unwrap() += 1;
        }
    }
    for (p, r) in table.iter().enumerate() {
        assert_eq!(
            (r.a_proofs, r.b_proofs),
            (None, None),
            "these bots prove nothing"
        );
        assert_eq!(r.a_move_seconds.moves, a_moves[p], "{} vs {}", r.a, r.b);
        assert_eq!(r.b_move_seconds.moves, b_moves[p], "{} vs {}", r.a, r.b);
        let t = r.a_move_seconds;
        assert!(t.median <= t.p95 && t.p95 <= t.max && t.mean <= t.max);
    }
}

/// Plain negamax over the whole tree: the final margin for the player to move.
fn brute(pos: &Position) -> i32 {
    if pos.is_over() {
        let m = pos.margin();
        return if pos.to_move() == kalaha::rules::Side::South {
            m
        } else {
            -m
        };
    }
    pos.legal_moves()
        .iter()
        .map(|mv| brute_move(pos, mv))
        .max()
        .unwrap()
}

fn brute_move(pos: &Position, mv: Move) -> i32 {
    // The same player moves again only after an extra turn (the pie answer hands the move over).
    let (next, out) = pos.after(mv).unwrap();
    let v = brute(&next);
    if out.extra_turn { v } else { -v }
}

/// Games of `bots` (the first judged) from `openings` starts of `rules` with `seed`, and the
/// solver's judgement of the first bot's moves (no database, a small table).
fn judged_games(
    rules: &Rules,
    bots: &[BotSpec],
    openings: usize,
    seed: u64,
) -> (Vec<kalaha::eval::ArenaGame>, kalaha::eval::Judgement) {
    let arena = Arena {
        players: players(bots, rules),
        mode: Mode::Gauntlet,
        openings: vec![Position::start(rules); openings],
        seed,
        batch: true,
    };
    let stop = AtomicBool::new(false);
    let games = arena.run(&|| {}, &stop);
    let cfg = SolverConfig {
        memory_mb: 16,
        db: DbSize::Off,
        cache_dir: None,
        ..SolverConfig::default()
    };
    let solver = Solver::new(rules, &cfg).unwrap();
    let players = &arena.players;
    let j = verdict(
        &solver,
        players,
        &arena.pairings(),
        &games,
        0,
        &|_, _| {},
        &stop,
    );
    (games, j)
}

#[test]
fn the_judge_agrees_with_brute_force_on_small_games() {
    let rules = Rules::new(3, 2).unwrap();
    let (games, j) = judged_games(&rules, &[BotSpec::Random, BotSpec::Greedy], 3, 11);
    // The same figures, worked out independently.
    let (mut moves, mut optimal, mut loss, mut changes) = (0u32, 0u32, 0i64, 0u32);
    let mut endgame = 0u32;
    for g in &games {
        for (h, by_a) in g.game.history().iter().zip(g.movers_are_a()) {
            if !by_a {
                continue;
            }
            let best = brute(&h.before);
            let got = brute_move(&h.before, h.mv);
            moves += 1;
            optimal += u32::from(best == got);
            loss += (best - got) as i64;
            changes += u32::from(got.signum() < best.signum());
            endgame += u32::from(Phase::of(&h.before) == Phase::Endgame);
        }
    }
    assert!(moves > 0);
    assert_eq!(j.all.moves, moves);
    assert_eq!(j.all.optimal, optimal);
    assert!((j.all.mean_loss - loss as f64 / moves as f64).abs() < 1e-9);
    assert_eq!(j.all.result_changes, changes);
    assert_eq!(j.changes.len() as u32, changes);
    assert_eq!(j.endgame.moves, endgame);
    assert_eq!(
        j.opening.moves + j.middle.moves + j.endgame.moves,
        j.all.moves
    );
    assert_eq!(j.unsolved, 0);
}

#[test]
fn swap_answers_are_judged_against_brute_force() {
    let rules = Rules::new(3, 2).unwrap().with_pie(true);
    let (games, j) = judged_games(&rules, &[BotSpec::Random, BotSpec::Random], 12, 5);
    let (mut answers, mut swapped, mut agree) = (0, 0, 0);
    for g in &games {
        for (h, by_a) in g.game.history().iter().zip(g.movers_are_a()) {
            if !by_a || !h.before.swap_allowed() {
                continue;
            }
            let best = brute(&h.before);
            let swap = h.mv == Move::Swap;
            let kind_optimal = h
                .before
                .legal_moves()
                .iter()
                .any(|m| (m == Move::Swap) == swap && brute_move(&h.before, m) == best);
            answers += 1;
            swapped += u32::from(swap);
            agree += u32::from(kind_optimal);
        }
    }
    assert!(
        answers > 0 && swapped > 0 && swapped < answers,
        "{answers} {swapped}"
    );
    assert_eq!(j.swap_answers.answers, answers);
    assert_eq!(j.swap_answers.swapped, swapped);
    assert_eq!(j.swap_answers.agree, agree);
}

#[test]
fn a_swap_answer_agrees_when_its_kind_reaches_the_best_value() {
    use kalaha::solver::swap_answer_agrees as agrees;
    // (is it swap, exact value) for each answer; the best value is 2.
    let both = [(false, Some(2)), (false, Some(-4)), (true, Some(2))];
    assert!(agrees(true, 2, both.into_iter()) && agrees(false, 2, both.into_iter()));
    let only_swap = [(false, Some(-2)), (false, None), (true, Some(4))];
    assert!(agrees(true, 4, only_swap.into_iter()));
    assert!(!agrees(false, 4, only_swap.into_iter()));
    let only_pits = [(false, Some(0)), (true, Some(-6))];
    assert!(agrees(false, 0, only_pits.into_iter()) && !agrees(true, 0, only_pits.into_iter()));
}

#[test]
fn phases_follow_the_documented_cut_offs() {
    let rules = Rules::kalah64();
    let p = |s: &str| Position::parse(s, &rules).unwrap();
    // 48 seeds: opening above 36 on the board, endgame at most 16.
    assert_eq!(
        Phase::of(&p("4,4,4,4,4,4,0/4,4,4,4,4,4,0 s")),
        Phase::Opening
    );
    assert_eq!(
        Phase::of(&p("4,4,4,4,4,4,11/2,2,2,2,2,3,0 s")),
        Phase::Opening
    );
    assert_eq!(
        Phase::of(&p("4,4,4,4,4,4,12/2,2,2,2,2,2,0 s")),
        Phase::Middle
    );
    assert_eq!(
        Phase::of(&p("2,2,2,2,0,1,16/2,2,2,2,0,0,15 s")),
        Phase::Middle
    );
    assert_eq!(
        Phase::of(&p("2,2,2,2,0,0,16/2,2,2,2,0,0,16 s")),
        Phase::Endgame
    );
}

fn kalaha(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_kalaha"))
        .args(args)
        .output()
        .expect("run kalaha")
}

#[test]
fn eval_writes_reports_and_reuses_a_saved_opening_set() {
    let dir = std::env::temp_dir().join(format!("kalaha-eval-{}", std::process::id()));
    let openings = dir.join("openings.json");
    let exp = dir.join("experiments");
    let sidecar = dir.join("meta.json");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        &sidecar,
        r#"{"evaluations": [
            {"iteration": 1, "games": [{"opponent": "random", "seat": "south", "games": 4, "wins": 3,
              "draws": 0, "losses": 1, "mean_margin": 1.0}]},
            {"iteration": 2, "games": [{"opponent": "random", "seat": "south", "games": 4, "wins": 4,
              "draws": 0, "losses": 0, "mean_margin": 2.0}],
             "solver": {"positions": 10, "optimal_rate": 0.5, "mean_loss": 1.0, "std_err": 0.1,
              "outside_db": {"positions": 6, "optimal_rate": 0.25, "std_err": 0.1}, "phases": []}}
        ]}"#,
    )
    .unwrap();
    let args = |name: &str| -> Vec<String> {
        let mut a: Vec<String> = [
            "eval",
            "--player",
            "greedy",
            "--opponents",
            "random,minimax:1",
            "--games",
            "6",
            "--seed",
            "3",
            "--openings",
            openings.to_str().unwrap(),
            "--name",
            name,
            "--experiments",
            exp.to_str().unwrap(),
            "--json",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        if name == "two" {
            // The second report also charts a training run's curve.
            a.extend(["--run".to_string(), sidecar.to_str().unwrap().to_string()]);
        }
        a
    };
    let run = |name: &str| -> serde_json::Value {
        let a = args(name);
        let out = kalaha(&a.iter().map(String::as_str).collect::<Vec<_>>());
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).expect("one JSON object")
    };
    // The games and their results, without the move times (wall clock).
    let games = |report: &serde_json::Value| {
        let mut pairings = report["pairings"].clone();
        for p in pairings.as_array_mut().expect("pairings") {
            let p = p.as_object_mut().expect("a pairing");
            for side in ["a", "b"] {
                let t = p
                    .remove(&format!("{side}_move_seconds"))
                    .expect("move times");
                assert!(t["moves"].as_u64().is_some_and(|n| n > 0), "{t}");
            }
        }
        pairings
    };
    let first = run("one");
    assert!(openings.is_file(), "the opening set was saved");
    let second = run("two");
    assert_eq!(games(&first), games(&second), "same openings, same games");
    assert_eq!(first["games_played"], 12);
    assert_eq!(first["anchor"], "random");
    let ratings = first["ratings"].as_array().unwrap();
    assert_eq!(ratings.len(), 3);
    for key in ["elo", "lower", "upper", "games", "score"] {
        assert!(ratings[0].get(key).is_some(), "rating key {key}");
    }
    for file in ["report.json", "report.md", "ratings.svg"] {
        assert!(exp.join("one").join(file).is_file(), "{file}");
    }
    let svg = std::fs::read_to_string(exp.join("one").join("ratings.svg")).unwrap();
    assert!(svg.trim_start().starts_with("<svg"), "{svg}");
    assert!(svg.trim_end().ends_with("</svg>"), "{svg}");
    for player in ["greedy", "random", "minimax:1"] {
        assert!(svg.contains(player), "{player} in the chart");
    }
    assert!(
        !exp.join("one").join("run-curve.svg").exists(),
        "no run, no curve"
    );
    let md = std::fs::read_to_string(exp.join("one").join("report.md")).unwrap();
    assert!(md.contains("![ratings](ratings.svg)"), "{md}");
    let curve = std::fs::read_to_string(exp.join("two").join("run-curve.svg")).unwrap();
    assert!(curve.trim_start().starts_with("<svg"), "{curve}");
    for label in [
        "score vs random",
        "solver: optimal-move rate",
        "solver: optimal-move rate outside the database",
    ] {
        assert!(curve.contains(label), "{label} in {curve}");
    }
    let md2 = std::fs::read_to_string(exp.join("two").join("report.md")).unwrap();
    assert!(md2.contains("![run curve](run-curve.svg)"), "{md2}");
    assert!(md.contains("| `greedy` | `random` | 6 |"), "{md}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn eval_refuses_bad_requests_with_one_line() {
    for (args, needle) in [
        (
            vec!["eval", "--players", "random,greedy", "--games", "3"],
            "even",
        ),
        (vec!["eval", "--players", "random"], "at least two"),
        (
            vec![
                "eval",
                "--players",
                "random,greedy",
                "--anchor",
                "minimax:2",
            ],
            "not one of the players",
        ),
        (vec!["eval", "--players", "random,random"], "named twice"),
        (vec!["eval", "--players", "random,alphazero"], "unknown bot"),
    ] {
        let out = kalaha(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
    }
}

#[test]
fn a_run_curve_reads_the_sidecar_typed_and_names_a_missing_field() {
    use kalaha::eval::report::run_curve;
    let dir = std::env::temp_dir().join(format!("kalaha-sidecar-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let side = dir.join("meta.json");
    let games = |opp: &str, wins: u32| {
        format!(
            r#"{{"opponent": "{opp}", "seat": "south", "games": 4, "wins": {wins}, "draws": 0, "losses": 0, "mean_margin": 1.0}}"#
        )
    };
    let full = format!(
        r#"{{"format": "x", "evaluations": [
            {{"iteration": 1, "seconds": 1.0, "games": [{}, {}]}},
            {{"iteration": 2, "seconds": 2.0, "games": [{}], "solver": {{"positions": 10, "optimal_rate": 0.5, "mean_loss": 1.0,
              "std_err": 0.1, "inside_db": {{"positions": 4, "optimal_rate": 1.0, "std_err": 0.0}},
              "outside_db": {{"positions": 6, "optimal_rate": 0.25, "std_err": 0.1}}, "phases": []}}}}
        ]}}"#,
        games("random", 4),
        games("greedy", 1),
        games("random", 2)
    );
    std::fs::write(&side, full).unwrap();
    let curves = run_curve(&side).unwrap();
    let names: Vec<&str> = curves.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "score vs random",
            "score vs greedy",
            "solver: optimal-move rate",
            "solver: optimal-move rate outside the database"
        ]
    );
    assert_eq!(curves[0].points, [(1.0, 1.0), (2.0, 0.5)]);
    assert_eq!(curves[3].points, [(2.0, 0.25)]);

    // A renamed field is an error naming the file and the field, not a curve of zeros.
    std::fs::write(
        &side,
        format!(
            r#"{{"evaluations": [{{"iter": 1, "games": [{}]}}]}}"#,
            games("random", 4)
        ),
    )
    .unwrap();
    let e = format!("{:#}", run_curve(&side).unwrap_err());
    assert!(e.contains("meta.json") && e.contains("iteration"), "{e}");
    // The committed network's sidecar (older: no outside_db) still charts.
    let committed =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("checkpoints/kalah64/meta.json");
    if committed.is_file() {
        assert!(run_curve(&committed).unwrap().len() >= 2);
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// A bot that thinks with rayon's help, as the solver does (its move split into parallel
/// pieces), then plays at random.
#[cfg(feature = "train")]
struct ParallelThinker;

#[cfg(feature = "train")]
impl kalaha::bots::Bot for ParallelThinker {
    fn choose(&mut self, pos: &Position, rng: &mut kalaha::env::rng::GameRng) -> Move {
        use rayon::prelude::*;
        (0..16)
            .into_par_iter()
            .for_each(|_| std::thread::sleep(std::time::Duration::from_micros(200)));
        kalaha::bots::random_move(pos, rng)
    }
}

#[cfg(feature = "train")]
#[test]
fn batched_games_against_a_player_that_parallelises_its_moves_all_finish() {
    // With the games on a rayon pool of their own, a gated player's parallel move could steal
    // another game while it waited for its pieces and block on the gate with its place held:
    // `kalaha eval --opponents solver` with a network player stalled so. Every game must finish.
    let rules = Rules::kalah64();
    let net = common::checkpoints::committed_kalah64("1:db=off");
    let mut players = players(&[net.parse().unwrap()], &rules);
    players.push(Player::external(
        "parallel",
        &rules,
        std::sync::Arc::new(|| Box::new(ParallelThinker) as Box<dyn kalaha::bots::Bot>),
    ));
    let arena = Arena {
        players,
        mode: Mode::Gauntlet,
        openings: OpeningSet::generate(&rules, 60, 2, 5)
            .positions(&rules)
            .unwrap(),
        seed: 3,
        batch: true,
    };
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let games = arena.run(&|| {}, &AtomicBool::new(false));
        done.send(games.len()).ok();
    });
    // A liveness bound, not a speed target: the games take seconds; a stalled arena never ends.
    let played = finished
        .recv_timeout(std::time::Duration::from_secs(600))
        .expect("every batched game finishes");
    assert_eq!(played, 120);
}

/// A network player's evaluations batched across the games played at once give the very games
/// that each game calling its network alone gives (the CPU backend computes a position's outputs
/// alike in any batch), with forward passes that carry several games' positions.
#[cfg(feature = "train")]
#[test]
fn batching_a_networks_evaluations_across_games_changes_no_game() {
    let rules = Rules::kalah64();
    let net = common::checkpoints::committed_kalah64("8:db=off");
    let specs = [net.parse().unwrap(), BotSpec::Greedy, BotSpec::Minimax(2)];
    let openings = OpeningSet::generate(&rules, 6, 4, 3)
        .positions(&rules)
        .unwrap();
    let arena = |players: Vec<Player>, batch| Arena {
        players,
        mode: Mode::Gauntlet,
        openings: openings.clone(),
        seed: 9,
        batch,
    };
    let stop = AtomicBool::new(false);
    let moves = |games: &[kalaha::eval::ArenaGame]| -> Vec<Vec<Move>> {
        games
            .iter()
            .map(|g| g.game.history().iter().map(|p| p.mv).collect())
            .collect()
    };
    let alone = arena(players(&specs, &rules), false).run(&|| {}, &stop);
    assert_eq!(alone.len(), 24);
    // Batched before the run, so that its batching threads' tally can be read after it.
    let batched: Vec<Player> = players(&specs, &rules)
        .into_iter()
        .map(|p| p.batched(2).unwrap())
        .collect();
    let shared = arena(batched.clone(), true).run(&|| {}, &stop);
    assert_eq!(moves(&alone), moves(&shared));
    let b = batched[0].batcher().expect("the network player is batched");
    assert!(
        b.positions() > b.batches(),
        "{} positions in {} forward passes",
        b.positions(),
        b.batches()
    );
    // Players not batched beforehand are batched by the arena itself, to the same games.
    let own = arena(players(&specs, &rules), true).run(&|| {}, &stop);
    assert_eq!(moves(&alone), moves(&own));
}

#[test]
fn a_guarded_bots_proofs_hold_up_under_the_judge() {
    // A random player guarded by a solver with 1 ms a move: in the opening it proves nothing and
    // says so, near the end it proves its moves best. Every move it calls proven best is judged
    // optimal, none it calls result-keeping changes the result, and every result change it makes
    // is among the moves it said it had not proven.
    use kalaha::bots::guard::GuardBot;
    use kalaha::bots::{Bot, RandomBot};
    use std::sync::Arc;
    let rules = Rules::new(6, 3).unwrap();
    let cfg = SolverConfig {
        memory_mb: 64,
        db: DbSize::Off,
        cache_dir: None,
        ..SolverConfig::default()
    };
    let solver = Arc::new(Solver::new(&rules, &cfg).unwrap());
    let guarded = Player::external(
        "guard:0.001:random",
        &rules,
        Arc::new(move || {
            let inner = Box::new(RandomBot);
            let limit = std::time::Duration::from_millis(1);
            Box::new(GuardBot::new(Arc::clone(&solver), limit, inner)) as Box<dyn Bot>
        }),
    );
    let arena = Arena {
        players: vec![guarded, players(&[BotSpec::Random], &rules).remove(0)],
        mode: Mode::Gauntlet,
        openings: vec![Position::start(&rules); 6],
        seed: 5,
        batch: true,
    };
    let stop = AtomicBool::new(false);
    let games = arena.run(&|| {}, &stop);
    let judge = Solver::new(&rules, &cfg).unwrap();
    let j = verdict(
        &judge,
        &arena.players,
        &arena.pairings(),
        &games,
        0,
        &|_, _| {},
        &stop,
    );
    let t = j.proofs.expect("a guarded bot's moves carry proofs");
    assert_eq!(
        t.optimal.moves + t.keeps_result.moves + t.not_proven.moves,
        j.all.moves
    );
    assert!(
        t.optimal.moves > 0 && t.not_proven.moves > 0,
        "1 ms a move should prove the end and not the opening: {t:?}"
    );
    assert_eq!(t.optimal.optimal, t.optimal.moves, "{t:?}");
    assert_eq!(t.keeps_result.result_changes, 0, "{t:?}");
    assert_eq!(j.all.result_changes, t.not_proven.result_changes, "{t:?}");
    // The opponent's moves carry no proof: only the guarded bot's do.
    for g in &games {
        for (p, by_a) in g.proofs.iter().zip(g.movers_are_a()) {
            assert_eq!(p.is_some(), by_a);
        }
    }
    // The series' table counts the same proofs, unjudged, and none for the random player.
    let table = tally(&arena.players, &arena.pairings(), &games);
    let proofs = table[0]
        .a_proofs
        .expect("the guarded bot's proofs in the table");
    assert_eq!(
        (proofs.optimal, proofs.keeps_result, proofs.not_proven),
        (t.optimal.moves, t.keeps_result.moves, t.not_proven.moves)
    );
    assert_eq!(table[0].b_proofs, None);
}
