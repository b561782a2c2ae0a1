//! Why the environment refused a call. A refused call changes no game.

use crate::rules::{IllegalMove, Move};

/// Why a call to the environment was refused. Every variant that concerns one game names it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EnvError {
    /// An environment needs at least one game.
    #[error("an environment needs at least one game")]
    NoGames,
    /// A batch whose length is not the number of games.
    #[error("{what} has {got} rows; the environment has {expected} games")]
    Count {
        what: &'static str,
        expected: usize,
        got: usize,
    },
    /// A batch of per-action values with the wrong number of columns.
    #[error("{what} has {got} columns; the rules have {expected} actions")]
    Columns {
        what: &'static str,
        expected: usize,
        got: usize,
    },
    /// An action index outside `0..=m`.
    #[error("game {game}: action {action} is out of range (actions are 0 to {max})")]
    OutOfRange {
        game: usize,
        action: u32,
        max: usize,
    },
    /// A move the rules refuse in that game's position.
    #[error("game {game}: action {action} ({mv}) is illegal: {reason}")]
    Illegal {
        game: usize,
        action: u32,
        mv: Move,
        reason: IllegalMove,
    },
    /// A position of other rules, or one already over, given to a game.
    #[error("game {game}: the position is of other rules or already over")]
    BadPosition { game: usize },
    /// Probabilities or logits that give no way to sample a legal move.
    #[error("game {game}: cannot sample an action: {reason}")]
    Sampling { game: usize, reason: &'static str },
}
