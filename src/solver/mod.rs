//! The exact solver: the perfect-play value of any position under any rule options, and of every
//! move, fast enough to judge every move an agent makes.
//!
//! One idea per file, in the order a reader needs them:
//! - `key`: a board seen from the player to move, ranked into a dense integer key.
//! - `table`: the lock-free transposition table of proven bounds.
//! - `order`: move generation and ordering.
//! - [`endgame`]: the endgame database of every board with few seeds, built by retrograde
//!   analysis and cached on disk.
//! - `retrograde`: the database's retrograde builder.
//! - [`EndgameOracle`]: exact values straight from the database, for training targets.
//! - [`tablefile`]: the transposition table saved to disk and loaded again, to resume a solve.
//! - `search`: alpha-beta over gains, driven to the exact value by null-window tests.
//! - `config`: the [`SolverConfig`]: memory budget and database size, set-ups refused up front.
//! - `analyse`: the [`Solver`]: set-up within a memory budget, all move values, time limits,
//!   and batches judged in parallel.
//! - `root`: the root driver: each move's bounds narrowed by null-window tests to a deadline.
//! - [`request`]: a solve from request to result (set-up with progress, a saved table read and
//!   written back), as the command line asks for it.

mod analyse;
pub mod bench;
mod config;
pub mod endgame;
mod key;
mod mem;
mod oracle;
mod order;
pub mod request;
mod retrograde;
mod root;
mod search;
pub mod seconds;
mod table;
pub mod tablefile;

#[cfg(test)]
mod tests;

pub use analyse::{Analysis, Detail, MoveValue, Progress, Solver, swap_answer_agrees};
pub use config::{DEFAULT_MEMORY_MB, DbSize, SolverConfig, SolverError, auto_db_seeds_for};
pub use endgame::{BuildProgress, DbSource, Endgame, default_cache_dir};
pub use oracle::{EndgameOracle, ExactMoves};
pub use tablefile::TableFileError;
