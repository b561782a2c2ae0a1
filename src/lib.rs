//! kalaha: Kalah(m,n) as a reinforcement-learning training ground.
//!
//! Layers, each using only those above it (STYLE.md's map):
//! 1. [`rules`]: positions, moves, rule options, notation, game records. Std only.
//! 2. [`env`]: the vectorised environment (batches of games stepped in parallel, observations).
//! 3. [`solver`]: the exact solver (search, transposition table, endgame database).
//! 4. [`search`]: Gumbel AlphaZero search over a batch of games, behind an evaluator trait.
//! 5. `nn` (feature `train`): the burn policy/value network and its batch evaluator.
//! 6. `train` (feature `train`): self-play, replay, learning, evaluation, checkpoints, logs.
//! 7. [`bots`]: players behind one interface, and the match runner; [`eval`]: the arena (ratings,
//!    the solver's judgement, reports).
//! 8. [`bench`], [`cli`] and [`play`]: throughput measurements, the `kalaha` command line and the
//!    game for a person.

pub mod bench;
pub mod bots;
pub mod cli;
pub mod env;
pub mod eval;
#[cfg(feature = "train")]
pub mod nn;
pub mod play;
pub mod rules;
pub mod search;
pub mod solver;
#[cfg(feature = "train")]
pub mod train;
