//! Shared test helpers.
pub mod checkpoints;
pub mod reference;
