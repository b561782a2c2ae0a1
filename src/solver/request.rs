//! A solve from request to result, as `kalaha solve` asks for it: the solver set up (its endgame
//! database loaded or built), a saved transposition table read, the position analysed within a
//! time limit, and the table written back. What happens meanwhile is posted to a callback; nothing
//! is printed.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::{
    Analysis, BuildProgress, DbSize, Detail, Progress, Solver, SolverConfig, SolverError,
    TableFileError, default_cache_dir,
};
use crate::rules::{Position, Rules};

/// How often the callbacks hear of work in progress.
const TICK: Duration = Duration::from_millis(200);

/// The solver settings of a memory budget in MiB, a database size (`None`: automatic, `Some(0)`:
/// none, else the most seeds it covers) and a database folder (default [`default_cache_dir`]).
pub fn config(memory_mb: usize, db_seeds: Option<u32>, cache: Option<&Path>) -> SolverConfig {
    SolverConfig {
        memory_mb,
        db: match db_seeds {
            None => DbSize::Auto,
            Some(0) => DbSize::Off,
            Some(s) => DbSize::Seeds(s),
        },
        cache_dir: cache.map(Path::to_path_buf).or_else(default_cache_dir),
        ..SolverConfig::default()
    }
}

/// What a solve is doing, posted every 200 ms.
#[derive(Clone, Debug, PartialEq)]
pub enum Status<'a> {
    /// Loading the endgame database, for `seconds` so far.
    LoadingDb {
        /// Seconds since the set-up began.
        seconds: f64,
    },
    /// Building the endgame database: `done` of `total` boards.
    BuildingDb {
        /// Boards solved.
        done: u64,
        /// Boards in all.
        total: u64,
        /// Seconds since the set-up began.
        seconds: f64,
    },
    /// Reading the transposition table file.
    LoadingTable(&'a Path),
    /// Searching: the position's bounds proven so far, nodes searched, seconds since the start.
    Searching {
        /// Lower and upper bound of the value, once a move has bounds.
        bounds: Option<(i32, i32)>,
        /// Nodes searched.
        nodes: u64,
        /// Seconds since the solve began.
        seconds: f64,
    },
    /// Writing the transposition table file.
    SavingTable(&'a Path),
}

/// Runs `work` while another thread calls `tick` every 200 ms; the ticks end however `work` ends
/// (a panic included, which is then passed on).
fn with_ticks<T>(tick: &(dyn Fn() + Sync), work: impl FnOnce() -> T) -> T {
    let done = AtomicBool::new(false);
    std::thread::scope(|s| {
        s.spawn(|| {
            while !done.load(Ordering::Relaxed) {
                tick();
                std::thread::sleep(TICK);
            }
        });
        struct Done<'a>(&'a AtomicBool);
        impl Drop for Done<'_> {
            fn drop(&mut self) {
                self.0.store(true, Ordering::Relaxed);
            }
        }
        let _done = Done(&done);
        work()
    })
}

/// A solver for `rules`, posting how the endgame database's loading or building goes.
pub fn set_up(
    rules: &Rules,
    mut config: SolverConfig,
    on_status: &(dyn Fn(Status) + Sync),
) -> Result<Solver, SolverError> {
    let progress = Arc::new(BuildProgress::default());
    config.build_progress = Some(Arc::clone(&progress));
    let started = Instant::now();
    let tick = || {
        let seconds = started.elapsed().as_secs_f64();
        on_status(match progress.get() {
            (done, total) if total > 0 => Status::BuildingDb {
                done,
                total,
                seconds,
            },
            _ => Status::LoadingDb { seconds },
        })
    };
    with_ticks(&tick, || Solver::new(rules, &config))
}

/// What to solve, and how.
#[derive(Clone, Debug)]
pub struct Request {
    /// The position.
    pub position: Position,
    /// The solver's set-up (see [`config`]).
    pub config: SolverConfig,
    /// Stop after this long with the bounds proven so far.
    pub time_limit: Option<Duration>,
    /// All moves' values, or the value and one best move.
    pub detail: Detail,
    /// A transposition table file: read first if it exists, written back at the end.
    pub table: Option<PathBuf>,
}

/// What a solve found.
pub struct Solved {
    /// The solver, as the solve left it.
    pub solver: Arc<Solver>,
    /// The position's analysis.
    pub analysis: Analysis,
    /// Seconds the set-up took (the endgame database loaded or built).
    pub setup_seconds: f64,
    /// Entries in use read from the table file (0 for a new file); `None` without one.
    pub table_loaded: Option<u64>,
    /// Entries in use written to the table file, or why it could not be written.
    pub table_saved: Option<Result<u64, TableFileError>>,
    /// Seconds spent reading and writing the table file.
    pub table_seconds: f64,
}

/// Solves `req`. `on_ready` receives the solver once it is set up (to stop it from a signal
/// handler: the bounds found so far are then returned); `on_status` hears of the work in
/// progress. A table that cannot be written is reported in [`Solved::table_saved`], after the
/// analysis it follows.
pub fn solve(
    req: &Request,
    on_ready: impl FnOnce(&Arc<Solver>),
    on_status: &(dyn Fn(Status) + Sync),
) -> anyhow::Result<Solved> {
    let pos = req.position;
    let started = Instant::now();
    let solver = Arc::new(set_up(pos.rules(), req.config.clone(), on_status)?);
    let setup_seconds = started.elapsed().as_secs_f64();
    let table_loaded = match &req.table {
        Some(path) if path.exists() => {
            on_status(Status::LoadingTable(path));
            Some(solver.load_table(path)?)
        }
        Some(_) => Some(0),
        None => None,
    };
    let table_read = started.elapsed().as_secs_f64() - setup_seconds;
    on_ready(&solver);
    let progress = Progress::default();
    let tick = || {
        on_status(Status::Searching {
            bounds: progress.bounds(),
            nodes: solver.nodes(),
            seconds: started.elapsed().as_secs_f64(),
        })
    };
    let analysis = with_ticks(&tick, || {
        solver.analyse_with(&pos, req.time_limit, req.detail, Some(&progress))
    });
    let saving = Instant::now();
    let table_saved = req.table.as_ref().map(|path| {
        on_status(Status::SavingTable(path));
        solver.save_table(path)
    });
    Ok(Solved {
        solver,
        analysis,
        setup_seconds,
        table_loaded,
        table_saved,
        table_seconds: table_read + saving.elapsed().as_secs_f64(),
    })
}
