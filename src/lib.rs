//! kalaha: Kalah(m,n) as a reinforcement-learning training ground.
//!
//! Layers, each using only those above it:
//! 1. [`rules`]: positions, moves, rule options, notation, game records. Std only.
//! 2. [`env`]: the vectorised environment (batches of games stepped in parallel, observations).
//! 3. [`bots`]: baseline players behind one interface, and the match runner.
//! 4. [`bench`]: throughput measurements behind `kalaha bench`.
//! 5. [`cli`]: argument parsing and printing for the `kalaha` binary.

pub mod bench;
pub mod bots;
pub mod cli;
pub mod env;
pub mod rules;
