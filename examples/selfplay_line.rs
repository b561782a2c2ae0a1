//! One self-play game's moves, for picking positions along a line (`kalaha solve --moves ...`):
//! `cargo run --release --example selfplay_line -- PITS SEEDS BOT SEED`, e.g. `6 5 minimax:8 1`
//! (the line of the Kalah(6,5) positions in experiments/solver).
use kalaha::bots::{BotContext, BotSpec, game_rng, play_game};
use kalaha::rules::{Position, Rules};

fn main() -> anyhow::Result<()> {
    let a: Vec<String> = std::env::args().collect();
    anyhow::ensure!(a.len() == 5, "usage: selfplay_line PITS SEEDS BOT SEED");
    let rules = Rules::new(a[1].parse()?, a[2].parse()?)?;
    let bot = BotContext::new().prepare(&a[3].parse::<BotSpec>()?, &rules)?;
    let mut rng = game_rng(a[4].parse()?, 0);
    let game = play_game(Position::start(&rules), &bot, &bot, &mut rng);
    let moves: Vec<String> = game.moves().map(|m| m.to_string()).collect();
    println!("{}", moves.join(","));
    Ok(())
}
