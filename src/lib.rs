//! kalaha: Kalah(m,n) as a reinforcement-learning training ground.
//!
//! Layers, each using only those above it:
//! 1. [`rules`]: positions, moves, rule options, notation, game records. Std only.
//! 2. [`env`]: the vectorised environment (batches of games stepped in parallel, observations).
//! 2c. [`search`]: Gumbel AlphaZero search over a batch of games, behind an evaluator trait.
//! 2d. `nn` (feature `train`): the burn policy/value network and its batch evaluator.
//! 2e. `train` (feature `train`): self-play, replay, learning, evaluation, checkpoints, logs.
//! 3. [`bots`]: baseline players behind one interface, and the match runner.
//! 4. [`bench`]: throughput measurements behind `kalaha bench`.
//! 5. [`cli`]: argument parsing and printing for the `kalaha` binary.

pub mod bench;
pub mod bots;
pub mod cli;
#[cfg(feature = "train")]
pub mod nn;
pub mod env;
pub mod rules;
pub mod search;
#[cfg(feature = "train")]
pub mod train;
