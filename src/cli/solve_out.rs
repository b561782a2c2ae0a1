//! What `kalaha solve` prints: the value and each move's, as text or one JSON object.

use serde::Serialize;

use super::json::{MoveValueJson, move_json};
use super::solve::SolveArgs;
use super::{emit, emit_json};
use crate::rules::Position;
use crate::solver::request::Solved;

#[derive(Serialize)]
struct SolveJson {
    position: String,
    rules: String,
    to_move: char,
    value: Option<i32>,
    lower: i32,
    upper: i32,
    complete: bool,
    moves: Vec<MoveValueJson>,
    best: Vec<serde_json::Value>,
    nodes: u64,
    seconds: f64,
    value_seconds: Option<f64>,
    setup_seconds: f64,
    db_seeds: u32,
    db: Option<String>,
    memory_mb: f64,
    /// Entries in use read from `--table` (null without one, 0 for a new file).
    table_loaded: Option<u64>,
    /// Entries in use written to `--table`.
    table_saved: Option<u64>,
    /// Seconds spent reading and writing `--table`.
    table_seconds: Option<f64>,
}

pub(super) fn signed(v: i32) -> String {
    format!("{v:+}")
}

pub(super) fn bounds(lo: i32, hi: i32) -> String {
    if lo == hi {
        signed(lo)
    } else {
        format!("{}..{}", signed(lo), signed(hi))
    }
}

/// Prints what `kalaha solve` found.
pub(super) fn print_solve(a: &SolveArgs, pos: &Position, solved: &Solved) -> anyhow::Result<()> {
    let (solver, analysis, setup) = (&solved.solver, &solved.analysis, solved.setup_seconds);
    let saved = solved
        .table_saved
        .as_ref()
        .and_then(|r| r.as_ref().ok().copied());
    let me = pos.to_move();
    if a.json {
        return emit_json(&SolveJson {
            position: pos.to_string(),
            rules: pos.rules().describe(),
            to_move: me.letter(),
            value: analysis.value(),
            lower: analysis.lower,
            upper: analysis.upper,
            complete: analysis.complete(),
            moves: analysis.moves.iter().map(MoveValueJson::from).collect(),
            best: analysis.best().into_iter().map(move_json).collect(),
            nodes: analysis.nodes,
            seconds: analysis.seconds,
            value_seconds: analysis.value_seconds,
            setup_seconds: setup,
            db_seeds: solver.db_seeds(),
            db: solver.db_source().map(|s| s.to_string()),
            memory_mb: solver.memory_bytes() as f64 / (1 << 20) as f64,
            table_loaded: solved.table_loaded,
            table_saved: saved,
            table_seconds: solved.table_loaded.map(|_| solved.table_seconds),
        });
    }
    let mut s = format!("{}\nposition: {pos}\n", pos.rules().describe());
    match solver.db_source() {
        Some(src) => {
            s += &format!(
                "endgame database: {} seeds, {src} ({setup:.1} s)\n",
                solver.db_seeds()
            );
            let default =
                crate::solver::auto_db_seeds_for(pos.rules(), crate::solver::DEFAULT_MEMORY_MB);
            if a.db_seeds.is_none() && default.is_some_and(|d| d > solver.db_seeds()) {
                s += &format!(
                    "note: --memory {} MiB leaves room for {} seeds only (the default {} MiB gives {}); the search is slower with a smaller database\n",
                    a.memory,
                    solver.db_seeds(),
                    crate::solver::DEFAULT_MEMORY_MB,
                    default.unwrap_or(0)
                );
            }
        }
        None if a.db_seeds != Some(0) => {
            s += &format!(
                "endgame database: none (--memory {} MiB leaves no room for one; the search is much slower without it)\n",
                a.memory
            )
        }
        None => s += "endgame database: none (--db-seeds 0)\n",
    }
    let verdict = match analysis.value_seconds {
        _ if analysis.complete() => String::new(),
        Some(_) if a.value_only => " (--value-only: other moves bounded)".to_string(),
        Some(_) => " (stopped: other moves bounded)".to_string(),
        None => " (stopped: bounds only)".to_string(),
    };
    s += &format!(
        "value for {} (to move): {}{verdict}\n",
        me.name(),
        bounds(analysis.lower, analysis.upper)
    );
    let cells: Vec<String> = analysis
        .moves
        .iter()
        .map(|m| format!("{}: {}", m.mv, bounds(m.lower, m.upper)))
        .collect();
    if !cells.is_empty() {
        s += &format!("moves: {}\n", cells.join(", "));
    }
    let best: Vec<String> = analysis.best().iter().map(|m| m.to_string()).collect();
    if !best.is_empty() {
        s += &format!("best: {}\n", best.join(" "));
    }
    if let Some(t) = analysis.value_seconds {
        s += &format!("value proven in {t:.2} s\n");
    }
    s += &format!(
        "{} nodes in {:.2} s ({:.2} M nodes/s), {:.0} MiB\n",
        analysis.nodes,
        analysis.seconds,
        analysis.nodes as f64 / analysis.seconds.max(1e-9) / 1e6,
        solver.memory_bytes() as f64 / (1 << 20) as f64
    );
    if let (Some(path), Some(loaded)) = (&a.table, solved.table_loaded) {
        s += &format!(
            "table {}: {loaded} entries read, {} written ({:.1} s)\n",
            path.display(),
            saved.map_or("none".to_string(), |n| n.to_string()),
            solved.table_seconds
        );
    }
    emit(&s)
}
