//! `kalaha solve`: the exact value of a position and of each of its moves.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Args;
use serde::Serialize;

use super::{PositionArgs, RuleArgs, emit, emit_json};
use crate::solver::{
    Analysis, BuildProgress, DbSize, Detail, MoveValueJson, Progress, Solver, SolverConfig,
    default_cache_dir, move_json,
};

#[derive(Debug, Args)]
pub struct SolveArgs {
    #[command(flatten)]
    position: PositionArgs,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
    /// Stop after this many seconds with the bounds proven so far.
    #[arg(long, value_name = "SECS")]
    time_limit: Option<f64>,
    /// Memory budget for the transposition table and endgame database, in MiB. The table takes
    /// what the database leaves, up to a size that suits the game (1 GiB for Kalah(6,4), twice
    /// that for each 6 seeds more): a larger one only slows every lookup.
    #[arg(long, value_name = "MB", default_value_t = crate::solver::DEFAULT_MEMORY_MB)]
    memory: usize,
    /// Endgame database: the most seeds on the board it covers (0 for none; default: automatic).
    #[arg(long, value_name = "SEEDS")]
    db_seeds: Option<u32>,
    /// Folder for endgame databases (default $KALAHA_CACHE, else ~/.cache/kalaha).
    #[arg(long, value_name = "DIR")]
    cache: Option<PathBuf>,
    /// Stop once the value and one best move are proven (the other moves get bounds only).
    #[arg(long)]
    value_only: bool,
    /// Keep the transposition table in this file: read first if it is there, written back when
    /// the solve ends (also when stopped by --time-limit or Ctrl-C), so that a long solve can be
    /// taken up again where it stopped. As large as the table.
    #[arg(long, value_name = "FILE")]
    table: Option<PathBuf>,
}

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

fn signed(v: i32) -> String {
    format!("{v:+}")
}

fn bounds(lo: i32, hi: i32) -> String {
    if lo == hi {
        signed(lo)
    } else {
        format!("{}..{}", signed(lo), signed(hi))
    }
}

pub fn run(a: SolveArgs) -> anyhow::Result<()> {
    let game = a.position.game()?;
    let pos = *game.position();
    let limit = match a.time_limit {
        Some(s) if s > 0.0 && s.is_finite() => Some(Duration::from_secs_f64(s)),
        Some(_) => anyhow::bail!("--time-limit must be a positive number of seconds"),
        None => None,
    };
    let config = solver_config(a.memory, a.db_seeds, a.cache.as_ref());
    let started = Instant::now();
    let spinner = indicatif::ProgressBar::new_spinner();
    spinner.enable_steady_tick(Duration::from_millis(200));
    let solver = Arc::new(set_up(pos.rules(), config, &spinner)?);
    let setup = started.elapsed().as_secs_f64();
    let table_loaded = match &a.table {
        Some(path) if path.exists() => {
            spinner.set_message(format!("loading the table {}", path.display()));
            Some(solver.load_table(path)?)
        }
        Some(_) => Some(0),
        None => None,
    };
    let table_read = started.elapsed().as_secs_f64() - setup;
    let progress = Arc::new(Progress::default());
    {
        let solver = Arc::clone(&solver);
        // The first Ctrl-C stops the search (the bounds are printed and the table saved); a
        // second ends the process at once (a table file being written is left as it was).
        let pressed = std::sync::atomic::AtomicBool::new(false);
        let _ = ctrlc::set_handler(move || {
            if pressed.swap(true, std::sync::atomic::Ordering::Relaxed) {
                std::process::exit(130);
            }
            solver.stop();
        });
    }
    let done = std::sync::atomic::AtomicBool::new(false);
    let analysis: Analysis = std::thread::scope(|s| {
        s.spawn(|| {
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                let b = progress
                    .bounds()
                    .map_or("?".to_string(), |(lo, hi)| bounds(lo, hi));
                spinner.set_message(format!(
                    "value {b}, {:.1} M nodes, {:.0} s",
                    solver.nodes() as f64 / 1e6,
                    started.elapsed().as_secs_f64()
                ));
                std::thread::sleep(Duration::from_millis(200));
            }
        });
        // Ends the progress thread however the analysis ends (a panic included, which the
        // scope then passes on instead of waiting forever).
        struct Done<'a>(&'a std::sync::atomic::AtomicBool);
        impl Drop for Done<'_> {
            fn drop(&mut self) {
                self.0.store(true, std::sync::atomic::Ordering::Relaxed);
            }
        }
        let _done = Done(&done);
        let detail = if a.value_only {
            Detail::Value
        } else {
            Detail::All
        };
        solver.analyse_with(&pos, limit, detail, Some(&progress))
    });
    // The result is printed even if the table cannot be saved; the error then ends the command.
    let saving = Instant::now();
    let saved = a.table.as_ref().map(|path| {
        spinner.set_message(format!("saving the table to {}", path.display()));
        solver.save_table(path)
    });
    spinner.finish_and_clear();
    let table = TableIo {
        loaded: table_loaded,
        saved: saved.as_ref().and_then(|r| r.as_ref().ok().copied()),
        seconds: table_read + saving.elapsed().as_secs_f64(),
    };
    print_solve(&a, &pos, &solver, &analysis, setup, &table)?;
    match saved {
        Some(Err(e)) => Err(e.into()),
        _ => Ok(()),
    }
}

/// What `kalaha solve --table` read and wrote: entries in use, and the seconds both took.
struct TableIo {
    loaded: Option<u64>,
    saved: Option<u64>,
    seconds: f64,
}

/// Prints what `kalaha solve` found.
fn print_solve(
    a: &SolveArgs,
    pos: &crate::rules::Position,
    solver: &Solver,
    analysis: &Analysis,
    setup: f64,
    table: &TableIo,
) -> anyhow::Result<()> {
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
            table_loaded: table.loaded,
            table_saved: table.saved,
            table_seconds: table.loaded.map(|_| table.seconds),
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
    if let (Some(path), Some(loaded)) = (&a.table, table.loaded) {
        s += &format!(
            "table {}: {loaded} entries read, {} written ({:.1} s)\n",
            path.display(),
            table.saved.map_or("none".to_string(), |n| n.to_string()),
            table.seconds
        );
    }
    emit(&s)
}

/// Flags of `kalaha bench solver`.
#[derive(Debug, Args)]
pub struct BenchSolverArgs {
    #[command(flatten)]
    rules: RuleArgs,
    /// Positions to analyse.
    #[arg(long, default_value_t = 200)]
    positions: usize,
    /// Fewest random moves into the game.
    #[arg(long, default_value_t = 10)]
    from: usize,
    /// Most random moves into the game.
    #[arg(long, default_value_t = 30)]
    to: usize,
    /// Seed of the random games.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Memory for the transposition table and endgame database, in MiB.
    #[arg(long, value_name = "MB", default_value_t = crate::solver::DEFAULT_MEMORY_MB)]
    memory: usize,
    /// Endgame database: the most seeds on the board it covers (0 for none; default: automatic).
    #[arg(long, value_name = "SEEDS")]
    db_seeds: Option<u32>,
    /// Folder for endgame databases (default $KALAHA_CACHE, else ~/.cache/kalaha).
    #[arg(long, value_name = "DIR")]
    cache: Option<PathBuf>,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

/// Runs `kalaha bench solver`.
pub fn bench(a: BenchSolverArgs) -> anyhow::Result<()> {
    let rules = a.rules.rules()?;
    anyhow::ensure!(a.from <= a.to, "--from must not exceed --to");
    anyhow::ensure!(a.positions > 0, "--positions must be at least 1");
    let config = solver_config(a.memory, a.db_seeds, a.cache.as_ref());
    let t = Instant::now();
    let spinner = indicatif::ProgressBar::new_spinner();
    spinner.enable_steady_tick(Duration::from_millis(200));
    let solver = set_up(&rules, config, &spinner)?;
    spinner.finish_and_clear();
    let setup = t.elapsed().as_secs_f64();
    let positions =
        crate::solver::bench::midgame_positions(&rules, a.positions, a.from, a.to, a.seed);
    let r = crate::solver::bench::bench_solver(&solver, &positions, setup);
    if a.json {
        emit_json(&r)
    } else {
        emit(&format!(
            "{}: {:.1} positions/s fully analysed ({} positions {}..{} moves into random games, {:.0} nodes each, {:.2} s on {} threads; database {} seeds, set up in {:.1} s)\n",
            r.rules,
            r.positions_per_sec,
            r.positions,
            a.from,
            a.to,
            r.nodes_per_position,
            r.seconds,
            r.threads,
            r.db_seeds,
            r.setup_seconds
        ))
    }
}

/// A solver for `rules`, with `spinner` telling how the endgame database's loading or building
/// goes (boards solved of all, and the time taken).
fn set_up(
    rules: &crate::rules::Rules,
    mut config: SolverConfig,
    spinner: &indicatif::ProgressBar,
) -> anyhow::Result<Solver> {
    let progress = Arc::new(BuildProgress::default());
    config.build_progress = Some(Arc::clone(&progress));
    let started = Instant::now();
    let done = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|s| {
        s.spawn(|| {
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                let secs = started.elapsed().as_secs_f64();
                spinner.set_message(match progress.get() {
                    (d, t) if t > 0 => format!(
                        "building the endgame database: {:.1} % of {:.2} G boards, {secs:.0} s",
                        100.0 * d as f64 / t as f64,
                        t as f64 / 1e9
                    ),
                    _ => format!("loading the endgame database, {secs:.0} s"),
                });
                std::thread::sleep(Duration::from_millis(200));
            }
        });
        let solver = Solver::new(rules, &config);
        done.store(true, std::sync::atomic::Ordering::Relaxed);
        Ok(solver?)
    })
}

/// The solver settings the `--memory`, `--db-seeds` and `--cache` flags ask for.
fn solver_config(memory_mb: usize, db_seeds: Option<u32>, cache: Option<&PathBuf>) -> SolverConfig {
    SolverConfig {
        memory_mb,
        db: match db_seeds {
            None => DbSize::Auto,
            Some(0) => DbSize::Off,
            Some(s) => DbSize::Seeds(s),
        },
        cache_dir: cache.cloned().or_else(default_cache_dir),
        ..SolverConfig::default()
    }
}
