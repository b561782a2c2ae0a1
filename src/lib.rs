//! kalaha: Kalah(m,n) as a reinforcement-learning training ground.
//!
//! Layers, each using only those above it:
//! 1. [`rules`]: positions, moves, rule options, notation, game records. Std only.
//! 2. [`bots`]: baseline players behind one interface, and the match runner.
//! 3. [`bench`]: throughput measurements behind `kalaha bench`.
//! 4. [`cli`]: argument parsing and printing for the `kalaha` binary.

pub mod bench;
pub mod bots;
pub mod cli;
pub mod rules;
