//! Distinct lines of a match: `cargo run --release --example lines -- SOUTH NORTH GAMES`.
use std::collections::BTreeMap;

use kalaha::bots::{BotContext, BotSpec, game_rng, play_game};
use kalaha::rules::{Position, Rules};

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let rules = Rules::kalah64();
    let mut ctx = BotContext::new();
    let south = ctx
        .prepare(&a[1].parse::<BotSpec>().unwrap(), &rules)
        .unwrap();
    let north = ctx
        .prepare(&a[2].parse::<BotSpec>().unwrap(), &rules)
        .unwrap();
    let games: u64 = a[3].parse().unwrap();
    let mut lines: BTreeMap<String, (u32, i32)> = BTreeMap::new();
    for i in 0..games {
        let mut rng = game_rng(0, i);
        let g = play_game(Position::start(&rules), &south, &north, &mut rng);
        let moves: Vec<String> = g.moves().map(|m| m.to_string()).collect();
        let e = lines
            .entry(moves.join(","))
            .or_insert((0, g.position().margin()));
        e.0 += 1;
    }
    for (l, (n, margin)) in &lines {
        println!("{n:4} {margin:+4} {l}");
    }
}
