//! `kalaha show`: draw a position for a person, or print it as JSON.

use clap::Args;
use serde::Serialize;

use super::{PositionArgs, emit, emit_json};
use crate::rules::{Game, Move, Side};

#[derive(Debug, Args)]
pub struct ShowArgs {
    #[command(flatten)]
    position: PositionArgs,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct ShowJson {
    position: String,
    to_move: char,
    over: bool,
    /// Legal pit moves (the swap apart: see `swap_allowed` and `legal_moves`).
    legal: Vec<u8>,
    swap_allowed: bool,
    /// Every legal move in the notation, `swap` included.
    legal_moves: Vec<String>,
    score: [u32; 2],
    result: Option<&'static str>,
    margin: i32,
    rules: String,
    moves: String,
    last_move: Option<String>,
    extra_turn: bool,
    captured: u8,
}

pub fn run(a: ShowArgs) -> anyhow::Result<()> {
    let game = a.position.game()?;
    let pos = game.position();
    let last = game.last();
    if a.json {
        let legal = pos.legal_moves();
        return emit_json(&ShowJson {
            position: pos.to_string(),
            to_move: pos.to_move().letter(),
            over: pos.is_over(),
            legal: legal
                .iter()
                .filter_map(|m| if let Move::Pit(p) = m { Some(p) } else { None })
                .collect(),
            swap_allowed: legal.swap,
            legal_moves: legal.iter().map(|m| m.to_string()).collect(),
            score: pos.score(),
            result: pos.result().map(|r| r.name()),
            margin: pos.margin(),
            rules: pos.rules().describe(),
            moves: game.move_list(),
            last_move: last.map(|l| l.mv.to_string()),
            extra_turn: last.is_some_and(|l| l.outcome.extra_turn),
            captured: last.map_or(0, |l| l.outcome.captured),
        });
    }
    emit(&draw(&game))
}

/// The board as a person reads it: North's row on top (numbered right to left, as North sees it),
/// South's row below, North's store on the left and South's on the right.
pub fn draw(game: &Game) -> String {
    let pos = game.position();
    let m = pos.rules().pits();
    let mut s = format!("{}\n", pos.rules().describe());
    let cells = |side: Side, order: &mut dyn Iterator<Item = usize>| -> String {
        order.map(|p| format!("{:>4}", pos.pit(side, p))).collect()
    };
    let numbers = |order: &mut dyn Iterator<Item = usize>| -> String {
        order.map(|p| format!("{:>4}", format!("{p}"))).collect()
    };
    s += &format!("      {}   north pits\n", numbers(&mut (1..=m).rev()));
    s += &format!("      {}\n", cells(Side::North, &mut (1..=m).rev()));
    s += &format!(
        "  {:>3} {} {:<3}   stores: north {}, south {}\n",
        pos.store(Side::North),
        " ".repeat(4 * m),
        pos.store(Side::South),
        pos.store(Side::North),
        pos.store(Side::South)
    );
    s += &format!("      {}\n", cells(Side::South, &mut (1..=m)));
    s += &format!("      {}   south pits\n", numbers(&mut (1..=m)));
    if let Some(last) = game.last() {
        let who = last.before.to_move().name();
        let mut line = format!("last move: {who} played {}", last.mv);
        if last.outcome.extra_turn {
            line += " (extra turn)";
        }
        if last.outcome.captured > 0 {
            line += &format!(" (captured {})", last.outcome.captured);
        }
        if last.outcome.swapped {
            line += " (players swapped seats)";
        }
        s += &format!("{line}\n");
    }
    if let Some(result) = pos.result() {
        let [a, b] = pos.score();
        let verdict = match result.winner() {
            Some(w) => format!("{} wins", w.name()),
            None => "draw".to_string(),
        };
        s += &format!("game over: {verdict}, south {a} - north {b}\n");
    } else {
        let legal: Vec<String> = pos.legal_moves().iter().map(|m| m.to_string()).collect();
        s += &format!(
            "{} to move; legal moves: {}\n",
            pos.to_move().name(),
            legal.join(" ")
        );
    }
    s += &format!("position: {pos}\n");
    s
}
