//! How a [`Solver`](super::Solver) is set up: the memory budget, the endgame database's size
//! (chosen to suit the game and the budget), and the set-ups refused before anything is built.

use std::path::PathBuf;
use std::sync::Arc;

use super::endgame::{self, BuildProgress, default_cache_dir};
use crate::rules::Rules;

/// How large an endgame database to use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DbSize {
    /// None at all.
    Off,
    /// The largest that fits three fifths of the memory budget and builds in a small share of a
    /// solve of the game's start (18 seeds for Kalah(6,4); 26 for Kalah(6,5) and (6,6) within
    /// the default 4.5 GiB).
    Auto,
    /// Every board with at most this many seeds.
    Seeds(u32),
}

/// The default memory budget, in MiB: room for the 26-seed database of Kalah(6,5) and (6,6)
/// (2.7 GB) and a 2.1 GB table beside it; Kalah(6,4) uses 1.1 GB of it.
pub const DEFAULT_MEMORY_MB: usize = 4608;

/// How a [`Solver`](super::Solver) is set up.
#[derive(Clone, Debug)]
pub struct SolverConfig {
    /// Memory for the transposition table and the endgame database together, in MiB (the table
    /// takes what the database leaves, up to a size that suits the game: 1 GiB for Kalah(6,4)).
    pub memory_mb: usize,
    /// Endgame database size.
    pub db: DbSize,
    /// Folder where endgame databases are kept; `None` builds them in memory every time.
    pub cache_dir: Option<PathBuf>,
    /// Use a transposition table (turn off only to check that answers do not change).
    pub transposition: bool,
    /// Pin values with null-window tests (MTD(f)); off, one full-window search does it.
    pub mtd: bool,
    /// Where a database build posts how far it has got (for a progress display).
    pub build_progress: Option<Arc<BuildProgress>>,
}

impl Default for SolverConfig {
    fn default() -> SolverConfig {
        SolverConfig {
            memory_mb: DEFAULT_MEMORY_MB,
            db: DbSize::Auto,
            cache_dir: default_cache_dir(),
            transposition: true,
            mtd: true,
            build_progress: None,
        }
    }
}

/// Why a solver could not be set up.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SolverError {
    /// The database asked for does not leave room for a table in the budget.
    #[error(
        "an endgame database of {seeds} seeds for {pits} pits a side needs {need_mb} MiB; the memory budget is {budget_mb} MiB"
    )]
    DbTooLarge {
        seeds: u32,
        pits: usize,
        need_mb: u64,
        budget_mb: usize,
    },
    /// The budget is below the least the solver works with.
    #[error("a memory budget of {0} MiB is too small (at least 1 MiB)")]
    Budget(usize),
    /// The system refused the memory.
    #[error("could not allocate {0} MiB for the transposition table")]
    Alloc(usize),
    /// The database and the table would not fit in the machine's memory.
    #[error(
        "the solver would take {need_mb} MiB (endgame database {db_mb} MiB, table {table_mb} MiB), more than nine tenths of this machine's {have_mb} MiB of memory: lower --memory or --db-seeds"
    )]
    NoRoom {
        need_mb: u64,
        db_mb: u64,
        table_mb: u64,
        have_mb: u64,
    },
}

/// Refuses a database of `db` bytes and a table of `table` bytes that would take more than nine
/// tenths of `physical` bytes of memory (if known): the system would hand the pages out and then
/// kill the process when the search touched them.
pub(crate) fn check_room(db: u128, table: u128, physical: Option<u128>) -> Result<(), SolverError> {
    let mb = |b: u128| b.div_ceil(1 << 20) as u64;
    match physical {
        Some(have) if (db + table) * 10 > have * 9 => Err(SolverError::NoRoom {
            need_mb: mb(db + table),
            db_mb: mb(db),
            table_mb: mb(table),
            have_mb: (have >> 20) as u64,
        }),
        _ => Ok(()),
    }
}

/// Entries a database may have for [`DbSize::Auto`] in a game of 48 seeds (Kalah(6,4)): it builds
/// in about 5 s on two cores. Each 12 seeds more in the game allow 32 times as many: solves take
/// far longer there, and each seed more in the database saves a third or more of the nodes
/// (Kalah(6,5) from the start: 22 seeds 3.9 G nodes, 24 seeds 2.2 G, 25 seeds 1.5 G, 26 seeds
/// 0.79 G; 26 seeds build in about 3 minutes; 27 would take 3.9 GB and, extrapolated, about as
/// much time more to build as they could save).
const AUTO_DB_ENTRIES: u128 = 90_000_000;

/// The share of the memory budget [`DbSize::Auto`] gives the database, as a fraction.
const AUTO_DB_SHARE: (u128, u128) = (3, 5);

/// The database size [`DbSize::Auto`] picks for `m` pits a side and `total` seeds in the game
/// within a memory budget of `budget` bytes: the most seeds whose database fits
/// [`AUTO_DB_SHARE`] of the budget and [`AUTO_DB_ENTRIES`], scaled by the game.
pub(crate) fn auto_db_seeds(m: usize, total: u32, budget: u128) -> Option<u32> {
    let scale = 1u128 << (5 * total.saturating_sub(48) / 12).min(60);
    let cap =
        (budget * AUTO_DB_SHARE.0 / AUTO_DB_SHARE.1).min(AUTO_DB_ENTRIES.saturating_mul(scale));
    (1..=total.min(endgame::MAX_DB_SEEDS))
        .take_while(|&s| endgame::entries(m, s) <= cap)
        .last()
}

/// The endgame database seeds [`DbSize::Auto`] picks for `rules` within `memory_mb` MiB.
pub fn auto_db_seeds_for(rules: &Rules, memory_mb: usize) -> Option<u32> {
    auto_db_seeds(
        rules.pits(),
        rules.total_seeds(),
        memory_mb as u128 * (1 << 20),
    )
}

/// The largest transposition table worth having for a game of `total` seeds: 1 GiB for 48 seeds
/// (Kalah(6,4)), twice as much for each 6 seeds more, half for each 6 fewer. Every lookup in a
/// larger table is slower (more of its pages miss the address translation caches), and a game
/// that does not fill it gains nothing: Kalah(6,4) with a 1.96 GB table searched the same nodes
/// 10-40 % slower than with 1 GiB.
pub(crate) fn table_cap(total: u32) -> u128 {
    let steps = (total as i32 - 48).div_euclid(6).clamp(-10, 10);
    if steps >= 0 {
        (1u128 << 30) << steps
    } else {
        (1u128 << 30) >> -steps
    }
}
