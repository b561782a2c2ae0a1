//! Distinct lines of a match: `cargo run --release --example lines -- SOUTH NORTH GAMES`.
use std::collections::BTreeMap;

use kalaha::bots::{BotSpec, game_rng, play_game};
use kalaha::rules::{Position, Rules};

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let south: BotSpec = a[1].parse().unwrap();
    let north: BotSpec = a[2].parse().unwrap();
    let games: u64 = a[3].parse().unwrap();
    let rules = Rules::kalah64();
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
