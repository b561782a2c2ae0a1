//! Baseline bots: legal under every rule option, stronger than chance, reproducible from a seed.
//! Network bots: the endgame database their checkpoint was trained with answers every position
//! it covers, unless `:db=off`.

mod common;

use kalaha::bots::{BotContext, BotSpec, MatchConfig, Player, play_game, run_match};
use kalaha::env::rng::stream;
use kalaha::rules::{Capture, End, Leftover, Position, Preset, Rules};

/// A bot by name, ready for `rules`.
fn player(spec: &str, rules: &Rules) -> Player {
    BotContext::new()
        .prepare(&spec.parse().unwrap(), rules)
        .unwrap()
}

fn series(rules: Rules, south: &str, north: &str, games: u32) -> kalaha::bots::MatchSummary {
    let cfg = MatchConfig {
        rules,
        south: player(south, &rules),
        north: player(north, &rules),
        games,
        seed: 11,
    };
    run_match(&cfg, &|| {})
}

#[test]
fn every_bot_finishes_games_under_every_rule_option() {
    let mut rule_sets: Vec<Rules> = Preset::ALL.iter().map(|p| p.rules()).collect();
    rule_sets.push(
        Rules::new(3, 2)
            .unwrap()
            .with_capture(Capture::Empty)
            .with_pie(true),
    );
    rule_sets.push(
        Rules::new(8, 5)
            .unwrap()
            .with_leftover(Leftover::Discard)
            .with_end(End::OnTurn)
            .with_pie(true),
    );
    let specs: Vec<BotSpec> = ["random", "greedy", "minimax:3", "mcts:40"]
        .iter()
        .map(|b| b.parse().unwrap())
        .collect();
    for rules in rule_sets {
        let bots = BotContext::new().prepare_all(&specs, &rules).unwrap();
        for (i, south) in bots.iter().enumerate() {
            let north = &bots[(i + 1) % bots.len()];
            let mut rng = stream(3, 0);
            // `play_game` plays through `Game::play`, which refuses illegal moves.
            let game = play_game(Position::start(&rules), south, north, &mut rng);
            assert!(game.position().is_over(), "{rules:?} {south} vs {north}");
            assert!(game.position().score().iter().sum::<u32>() <= rules.total_seeds());
        }
    }
}

#[test]
fn stronger_bots_beat_weaker_ones_from_both_seats() {
    let rules = Rules::kalah64();
    let a = series(rules, "greedy", "random", 100);
    let b = series(rules, "random", "greedy", 100);
    assert!(
        a.south_wins >= 80 && b.north_wins >= 80,
        "greedy vs random: {a:?} {b:?}"
    );
    let c = series(rules, "minimax:4", "greedy", 100);
    let d = series(rules, "greedy", "minimax:4", 100);
    // South has the first-move advantage in Kalah(6,4), so judge both seats together.
    assert!(
        c.south_wins + d.north_wins >= 130,
        "minimax:4 vs greedy: {c:?} {d:?}"
    );
    let e = series(rules, "mcts:300", "random", 40);
    assert!(e.south_wins >= 34, "mcts:300 vs random: {e:?}");
}

#[test]
fn the_same_seed_replays_the_same_series() {
    let a = series(Rules::kalah64(), "mcts:50", "greedy", 16);
    let b = series(Rules::kalah64(), "mcts:50", "greedy", 16);
    assert_eq!(a, b);
    let cfg = MatchConfig {
        seed: 12,
        ..MatchConfig {
            rules: Rules::kalah64(),
            south: player("random", &Rules::kalah64()),
            north: player("random", &Rules::kalah64()),
            games: 50,
            seed: 0,
        }
    };
    assert_ne!(
        run_match(&cfg, &|| {}),
        series(Rules::kalah64(), "random", "random", 50)
    );
}

#[test]
fn ties_are_broken_at_random_so_deterministic_bots_vary_between_games() {
    // minimax against itself from the start: the opening choice varies with the seed.
    let mut openings = std::collections::BTreeSet::new();
    for seed in 0..12 {
        let mut rng = stream(seed, 0);
        let greedy = player("greedy", &Rules::kalah64());
        let game = play_game(
            Position::start(&Rules::kalah64()),
            &greedy,
            &greedy,
            &mut rng,
        );
        openings.insert(game.move_list());
    }
    assert!(
        openings.len() > 1,
        "greedy vs greedy always replays the same game"
    );
}

/// Kalah(4,3): much of each game lies inside a database of [`SMALL_DB_SEEDS`] seeds, which
/// builds in milliseconds.
#[cfg(feature = "train")]
fn small_rules() -> Rules {
    Rules::new(4, 3).unwrap()
}

#[cfg(feature = "train")]
const SMALL_DB_SEEDS: u32 = 10;

/// A checkpoint for [`small_rules`] in `root`, an untrained network (it errs, so a bot that plays
/// only optimal moves owes them to its database) whose sidecar records `db` as its self-play's
/// endgame database.
#[cfg(feature = "train")]
fn small_network(root: &std::path::Path, db: u32) -> String {
    let dir = common::checkpoints::untrained(root, &format!("db{db}"), &small_rules(), db, 5);
    dir.display().to_string()
}

/// The database of [`SMALL_DB_SEEDS`] for [`small_rules`], built here (not the bots' copy).
#[cfg(feature = "train")]
fn reference() -> kalaha::solver::EndgameOracle {
    use kalaha::solver::{Endgame, EndgameOracle};
    let rules = small_rules();
    EndgameOracle::from_db(&rules, Endgame::build(&rules, SMALL_DB_SEEDS, None))
}

/// Plays a few games of `south` against random; `visit` sees each position `reference` covers,
/// with its exact moves. Returns how many it saw.
#[cfg(feature = "train")]
fn covered_positions(
    south: &Player,
    reference: &kalaha::solver::EndgameOracle,
    visit: &mut dyn FnMut(&Position, &kalaha::solver::ExactMoves),
) -> usize {
    let rules = small_rules();
    let mut bot = south.build();
    let mut covered = 0;
    for game in 0..24 {
        let mut rng = stream(game, 0);
        let mut pos = Position::start(&rules);
        while !pos.is_over() {
            if let Some(exact) = reference.moves(&pos) {
                visit(&pos, &exact);
                covered += 1;
            }
            let mv = if pos.to_move() == kalaha::rules::Side::South {
                bot.choose(&pos, &mut rng)
            } else {
                kalaha::bots::random_move(&pos, &mut rng)
            };
            pos.play(mv).unwrap();
        }
    }
    covered
}

#[cfg(feature = "train")]
#[test]
fn a_network_with_its_database_plays_only_optimal_moves_inside_it() {
    let rules = small_rules();
    let root = common::checkpoints::temp_root("db-play");
    let path = small_network(&root, SMALL_DB_SEEDS);
    let reference = reference();
    let mut ctx = BotContext::new();
    let mut seen = Vec::new();
    for spec in [format!("policy:{path}:8"), format!("policy:{path}")] {
        let player = ctx.prepare(&spec.parse().unwrap(), &rules).unwrap();
        let db = player.endgame_db().expect("a database by default");
        assert_eq!(db.max_seeds(), SMALL_DB_SEEDS, "the checkpoint's own size");
        seen.push(std::sync::Arc::clone(db));
        let mut bot = player.build();
        let mut rng = stream(7, 0);
        let covered = covered_positions(&player, &reference, &mut |pos, exact| {
            let mv = bot.choose(pos, &mut rng);
            assert!(
                exact.best().any(|b| b == mv),
                "{spec} plays {mv} at {pos}: {exact:?}"
            );
            // `kalaha analyse` shows the same choice, and the exact value.
            let view = kalaha::bots::view::view(&player, pos, 3);
            assert!(exact.best().any(|b| b == view.choice), "{spec} at {pos}");
            let database = view.network.and_then(|n| n.database);
            assert_eq!(database, reference.final_margin(pos), "{pos}");
        });
        assert!(
            covered >= 40,
            "{spec}: only {covered} positions inside the database"
        );
    }
    assert!(
        std::sync::Arc::ptr_eq(&seen[0], &seen[1]),
        "one database per context"
    );
    std::fs::remove_dir_all(&root).unwrap();
}

#[cfg(feature = "train")]
#[test]
fn db_off_leaves_the_network_alone() {
    let rules = small_rules();
    let root = common::checkpoints::temp_root("db-off");
    let path = small_network(&root, SMALL_DB_SEEDS);
    let reference = reference();
    let mut ctx = BotContext::new();
    for spec in [
        format!("policy:{path}:8:db=off"),
        format!("policy:{path}:db=off"),
    ] {
        let player = ctx.prepare(&spec.parse().unwrap(), &rules).unwrap();
        assert!(player.endgame_db().is_none(), "{spec}");
        assert_eq!(player.to_string(), spec);
    }
    // Without its database the untrained network misses where the database would answer, and
    // its view names no exact value.
    let off = ctx
        .prepare(&format!("policy:{path}:db=off").parse().unwrap(), &rules)
        .unwrap();
    let mut bot = off.build();
    let mut rng = stream(7, 0);
    let mut misses = 0;
    let covered = covered_positions(&off, &reference, &mut |pos, exact| {
        let mv = bot.choose(pos, &mut rng);
        misses += usize::from(!exact.best().any(|b| b == mv));
        let view = kalaha::bots::view::view(&off, pos, 3);
        assert_eq!(view.network.unwrap().database, None, "{pos}");
    });
    assert!(
        misses > 0,
        "the untrained network played all {covered} positions perfectly"
    );
    // A checkpoint trained without a database plays without one.
    let none = small_network(&root, 0);
    let player = ctx
        .prepare(&format!("policy:{none}:8").parse().unwrap(), &rules)
        .unwrap();
    assert!(player.endgame_db().is_none());
    std::fs::remove_dir_all(&root).unwrap();
}

#[cfg(feature = "train")]
#[test]
fn db_n_picks_the_database_size_and_refuses_more_seeds_than_the_game_holds() {
    let rules = small_rules();
    let root = common::checkpoints::temp_root("db-n");
    let path = small_network(&root, SMALL_DB_SEEDS);
    let mut ctx = BotContext::new();
    // A smaller database than the checkpoint's, and a larger one (a network trained with none
    // still plays with the one asked for).
    let none = small_network(&root, 0);
    for (spec, seeds) in [
        (format!("policy:{path}:8:db=6"), 6),
        (format!("policy:{path}:db=12"), 12),
        (format!("policy:{none}:8:db=12"), 12),
    ] {
        let player = ctx.prepare(&spec.parse().unwrap(), &rules).unwrap();
        assert_eq!(player.endgame_db().unwrap().max_seeds(), seeds, "{spec}");
        assert_eq!(player.to_string(), spec);
    }
    // Kalah(4,3) holds 24 seeds.
    let e = ctx
        .prepare(&format!("policy:{path}:db=25").parse().unwrap(), &rules)
        .map(|_| ())
        .unwrap_err();
    assert!(format!("{e:#}").contains("has only 24 seeds"), "{e:#}");
    std::fs::remove_dir_all(&root).unwrap();
}

#[cfg(feature = "train")]
#[test]
fn a_series_with_a_batched_network_player_plays_the_same_games() {
    // `kalaha match` batches a network player's evaluations across 64 games at once; the CPU
    // backend computes each position alike in any batch, so the series must not change.
    let rules = Rules::kalah64();
    let net = common::checkpoints::committed_kalah64("8:db=off");
    let alone = series(rules, &net, "minimax:2", 40);
    let batched = player(&net, &rules).batched(2).unwrap();
    let cfg = MatchConfig {
        rules,
        south: batched.clone(),
        north: player("minimax:2", &rules),
        games: 40,
        seed: 11,
    };
    assert_eq!(run_match(&cfg, &|| {}), alone);
    let b = batched.batcher().expect("the network player is batched");
    assert!(
        b.positions() > b.batches(),
        "{} positions in {} forward passes",
        b.positions(),
        b.batches()
    );
}
