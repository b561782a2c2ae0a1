//! kalaha: Kalah(m,n) as a reinforcement-learning training ground.
//!
//! Layers, bottom to top, each using only those below it (STYLE.md's map; `tests/layers.rs`
//! fails on an upward `crate::` path):
//! 0. [`files`], [`lineage`]: files written whole or not at all (temporary name, flush, rename);
//!    released networks' ids, recipes and parents, and the checks of them.
//! 1. [`rules`]: positions, moves, rule options, notation, game records. Std only.
//! 2. [`bench`](mod@bench): the rules core's throughput and the timing helpers of every benchmark.
//! 3. [`env`](mod@env): the vectorised environment (batches of games stepped in parallel, observations).
//! 4. [`solver`]: the exact solver (search, transposition table, endgame database and oracle).
//! 5. [`search`]: Gumbel AlphaZero search over a batch of games, behind an evaluator trait.
//! 6. `nn` (feature `train`): the burn policy/value network, its batch evaluator, and trained
//!    models read from disk.
//! 7. [`bots`]: players behind one interface (a trained network among them), and the match runner.
//! 8. [`eval`]: the arena (ratings, the solver's verdict, reports) and judging (the judge sets,
//!    the held-out sets, their scores and the paired sign test; the judge report).
//! 9. `train` (feature `train`): recipes, self-play through the env, replay, learning,
//!    checkpoints, releases, logs.
//! 10. [`play`], [`serve`] and [`cli`]: the game for a person (in the terminal, and in the browser
//!     through a web server), and the `kalaha` command line.

pub mod bench;
pub mod bots;
pub mod cli;
pub mod env;
pub mod eval;
pub mod files;
pub mod lineage;
#[cfg(feature = "train")]
pub mod nn;
pub mod play;
pub mod rules;
pub mod search;
pub mod serve;
pub mod solver;
#[cfg(feature = "train")]
pub mod train;
