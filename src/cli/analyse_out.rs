//! What `kalaha analyse` prints: a table of the bot's view of each move beside the solver's
//! bounds, or one JSON object (keys in [`super::analyse`]'s docs).

use serde::Serialize;

use super::json::move_json;
use super::solve_out::{bounds, signed};
use crate::bots::{BotView, MoveView, NetworkView};
use crate::rules::Position;
use crate::solver::Analysis;

#[derive(Serialize)]
struct MoveJson {
    #[serde(rename = "move")]
    mv: serde_json::Value,
    prior: Option<f32>,
    visits: Option<u32>,
    q: Option<f32>,
    minimax: Option<i32>,
    lower: Option<i32>,
    upper: Option<i32>,
}

#[derive(Serialize)]
struct SolverJson {
    lower: i32,
    upper: i32,
    complete: bool,
    seconds: f64,
}

#[derive(Serialize)]
pub(super) struct AnalyseJson<'a> {
    position: String,
    rules: String,
    to_move: char,
    bot: &'a str,
    choice: serde_json::Value,
    network: Option<&'a NetworkView>,
    moves: Vec<MoveJson>,
    solver: Option<SolverJson>,
}

pub(super) fn json<'a>(
    pos: &Position,
    bot: &'a BotView,
    solved: Option<&Analysis>,
) -> AnalyseJson<'a> {
    let exact = |mv| solved.and_then(|s| s.moves.iter().find(|m| m.mv == mv));
    AnalyseJson {
        position: pos.to_string(),
        rules: pos.rules().describe(),
        to_move: pos.to_move().letter(),
        bot: &bot.bot,
        choice: move_json(bot.choice),
        network: bot.network.as_ref(),
        moves: bot
            .moves
            .iter()
            .map(|m| MoveJson {
                mv: move_json(m.mv),
                prior: m.prior,
                visits: m.visits,
                q: m.q,
                minimax: m.minimax,
                lower: exact(m.mv).map(|e| e.lower),
                upper: exact(m.mv).map(|e| e.upper),
            })
            .collect(),
        solver: solved.map(|s| SolverJson {
            lower: s.lower,
            upper: s.upper,
            complete: s.complete(),
            seconds: s.seconds,
        }),
    }
}

pub(super) fn text(pos: &Position, bot: &BotView, solved: Option<&Analysis>) -> String {
    let mut s = format!("{}\nposition: {pos}\n", pos.rules().describe());
    s += &format!("{} plays {}\n", bot.bot, bot.choice);
    if let Some(n) = &bot.network {
        if let Some(id) = &n.release {
            s += &format!("network release: {id}\n");
        }
        s += &format!(
            "network: value {:+.3}, predicted margin {:+.1} seeds",
            n.value, n.margin
        );
        if let (Some(v), Some(sims)) = (n.searched, n.simulations) {
            s += &format!(
                "; after {sims} simulations, utility {v:+.3} (margin weight {:.2}, c_scale {})",
                n.margin_weight, n.c_scale
            );
            if n.proved {
                s += ", proved exact";
            }
        }
        s += "\n";
        if let Some(v) = n.database {
            s += &format!(
                "endgame database: exact value {v:+} for the player to move, kept by the move played\n"
            );
        }
    }
    let cols = |f: &dyn Fn(&MoveView) -> Option<String>| -> Vec<String> {
        bot.moves
            .iter()
            .map(|m| f(m).unwrap_or_else(|| "-".into()))
            .collect()
    };
    let mut table: Vec<(&str, Vec<String>)> = vec![("move", cols(&|m| Some(m.mv.to_string())))];
    let any = |f: &dyn Fn(&MoveView) -> bool| bot.moves.iter().any(f);
    if any(&|m| m.prior.is_some()) {
        table.push((
            "prior",
            cols(&|m| m.prior.map(|p| format!("{:.1}%", 100.0 * p))),
        ));
    }
    if any(&|m| m.visits.is_some()) {
        table.push(("visits", cols(&|m| m.visits.map(|v| v.to_string()))));
        table.push(("q", cols(&|m| m.q.map(|q| format!("{q:+.3}")))));
    }
    if any(&|m| m.minimax.is_some()) {
        table.push(("minimax", cols(&|m| m.minimax.map(|v| format!("{v:+}")))));
    }
    if let Some(a) = solved {
        table.push((
            "solver",
            cols(&|m| {
                a.moves
                    .iter()
                    .find(|e| e.mv == m.mv)
                    .map(|e| proven(e.lower, e.upper))
            }),
        ));
    }
    for row in 0..=bot.moves.len() {
        let cells: Vec<String> = table
            .iter()
            .map(|(name, col)| {
                let cell = if row == 0 { *name } else { &col[row - 1] };
                format!("{cell:>8}")
            })
            .collect();
        s += &format!("{}\n", cells.join(" ").trim_end());
    }
    if let Some(a) = solved {
        let range = bounds(a.lower, a.upper);
        let value = if a.complete() {
            format!("value {range}")
        } else if proven(a.lower, a.upper) == "?" {
            format!("nothing proven about the result in time (the value is within {range})")
        } else {
            format!("value {range}, proven within the time limit")
        };
        if !a.complete() {
            s += "solver column: what was proven in time (>=+2: wins by 2 or more, <=+0: at \
                  most a draw, ?: nothing about the result)\n";
        }
        s += &format!(
            "solver: {value} for the player to move ({:.2} s)\n",
            a.seconds
        );
    }
    s
}

/// What a move's bounds prove, in a table cell: the value where exact, else the side of the
/// result they keep (`>=+2`, `>=+0`, `<=+0`, `<=-2`), or `?` where they prove nothing about it.
fn proven(lo: i32, hi: i32) -> String {
    if lo == hi {
        bounds(lo, hi)
    } else if lo >= 0 {
        format!(">={}", signed(lo))
    } else if hi <= 0 {
        format!("<={}", signed(hi))
    } else {
        "?".to_string()
    }
}
