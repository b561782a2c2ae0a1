//! Baseline bots: legal under every rule option, stronger than chance, reproducible from a seed.

use kalaha::bots::{BotContext, BotSpec, MatchConfig, Player, play_game, run_match};
use kalaha::rules::{Capture, End, Leftover, Position, Preset, Rules};
use rand::SeedableRng;
use rand::rngs::SmallRng;

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
            let mut rng = SmallRng::seed_from_u64(3);
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
        let mut rng = SmallRng::seed_from_u64(seed);
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
