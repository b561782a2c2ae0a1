//! `kalaha solve`: the exact value of a position and of each of its moves.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use clap::Args;
use indicatif::ProgressBar;

use super::PositionArgs;
use super::solve_out::{bounds, print_solve};
use crate::solver::request::{self, Request, Status};
use crate::solver::{Detail, Solver};

#[derive(Debug, Args)]
pub struct SolveArgs {
    #[command(flatten)]
    pub(super) position: PositionArgs,
    /// Print one JSON object.
    #[arg(long)]
    pub(super) json: bool,
    /// Stop after this many seconds with the bounds proven so far (above 0, at most 366 days).
    #[arg(long, value_name = "SECS", value_parser = crate::solver::seconds::parse_positive_seconds)]
    pub(super) time_limit: Option<Duration>,
    /// Memory budget for the transposition table and endgame database, in MiB. The table takes
    /// what the database leaves, up to a size that suits the game (1 GiB for Kalah(6,4), twice
    /// that for each 6 seeds more): a larger one only slows every lookup.
    #[arg(long, value_name = "MB", default_value_t = crate::solver::DEFAULT_MEMORY_MB)]
    pub(super) memory: usize,
    /// Endgame database: the most seeds on the board it covers (0 for none; default: automatic).
    #[arg(long, value_name = "SEEDS")]
    pub(super) db_seeds: Option<u32>,
    /// Folder for endgame databases (default $KALAHA_CACHE, else ~/.cache/kalaha).
    #[arg(long, value_name = "DIR")]
    pub(super) cache: Option<PathBuf>,
    /// Stop once the value and one best move are proven (the other moves get bounds only).
    #[arg(long)]
    pub(super) value_only: bool,
    /// Keep the transposition table in this file: read first if it is there, written back when
    /// the solve ends (also when stopped by --time-limit or Ctrl-C), so that a long solve can be
    /// taken up again where it stopped. As large as the table.
    #[arg(long, value_name = "FILE")]
    pub(super) table: Option<PathBuf>,
}

pub fn run(a: SolveArgs) -> anyhow::Result<()> {
    let game = a.position.game()?;
    let limit = a.time_limit;
    let req = Request {
        position: *game.position(),
        config: request::config(a.memory, a.db_seeds, a.cache.as_deref()),
        time_limit: limit,
        detail: if a.value_only {
            Detail::Value
        } else {
            Detail::All
        },
        table: a.table.clone(),
    };
    let spinner = spinner();
    // The first Ctrl-C stops the search (the bounds are printed and the table saved); a second
    // ends the process at once (a table file being written is left as it was).
    let on_ready = |solver: &Arc<Solver>| {
        let solver = Arc::clone(solver);
        let pressed = AtomicBool::new(false);
        let _ = ctrlc::set_handler(move || {
            if pressed.swap(true, Ordering::Relaxed) {
                std::process::exit(130);
            }
            solver.stop();
        });
    };
    let solved = request::solve(&req, on_ready, &|s| show(&spinner, &s));
    spinner.finish_and_clear();
    let solved = solved?;
    // The result is printed even if the table cannot be saved; the error then ends the command.
    print_solve(&a, &req.position, &solved)?;
    match solved.table_saved {
        Some(Err(e)) => Err(e.into()),
        _ => Ok(()),
    }
}

/// A spinner on stderr for work of unknown length.
pub(super) fn spinner() -> ProgressBar {
    let spinner = ProgressBar::new_spinner();
    spinner.enable_steady_tick(Duration::from_millis(200));
    spinner
}

/// Shows a solve's status on `spinner`.
pub(super) fn show(spinner: &ProgressBar, s: &Status) {
    spinner.set_message(match s {
        Status::LoadingDb { seconds } => format!("loading the endgame database, {seconds:.0} s"),
        Status::BuildingDb {
            done,
            total,
            seconds,
        } => format!(
            "building the endgame database: {:.1} % of {:.2} G boards, {seconds:.0} s",
            100.0 * *done as f64 / *total as f64,
            *total as f64 / 1e9
        ),
        Status::LoadingTable(path) => format!("loading the table {}", path.display()),
        Status::Searching {
            bounds: b,
            nodes,
            seconds,
        } => format!(
            "value {}, {:.1} M nodes, {seconds:.0} s",
            b.map_or("?".to_string(), |(lo, hi)| bounds(lo, hi)),
            *nodes as f64 / 1e6
        ),
        Status::SavingTable(path) => format!("saving the table to {}", path.display()),
    });
}
