//! Judging the network against perfect play: a fixed set of positions drawn from several sources,
//! analysed once per rule set by the exact solver and cached as JSON, then scored on the share of
//! the network's moves that keep the exact value (with its standard error), by game phase and
//! inside and outside the endgame database, and on the mean seeds lost per move.
//!
//! Sources, in equal thirds: `mixed` (4 to 40 plies of random and greedy moves mixed), `minimax`
//! (games of `minimax:4` against itself after 2 to 6 random moves, 4 to 40 plies in) and `endgame`
//! (mixed games played on until at most [`DB_REPORT_SEEDS`] seeds are left on the board, then 0 to
//! 6 plies more). Self-play never trains on these positions: they come from their own seed and
//! their own players.
//!
//! Drawing is in `draw`, the cache file in `cache`, scoring moves in `score` and the statistics
//! (rates, the sign test) in `stats`; what other modules use is re-exported here.

mod cache;
mod draw;
#[cfg(feature = "train")]
pub mod report;
mod score;
mod stats;

use serde::{Deserialize, Serialize};

use crate::rules::Position;

pub use cache::{cached_positions, cached_settings};
pub use draw::{deep_enough, pie_positions};
pub(crate) use draw::{draw_any, game_position};
pub use score::{JudgeScore, Miss, PieScore, check_actions};
pub use stats::{Paired, Rate, sign_test};

/// Positions with at most this many seeds on the board count as "inside the database" in
/// reports, whatever database a run trains with (18 is the Kalah(6,4) solver's own).
pub const DB_REPORT_SEEDS: u32 = 18;

/// The seed every run draws its judge set with, so that runs are judged on the same positions.
pub const JUDGE_SEED: u64 = 2026;

/// Where a judged position came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    /// Random and greedy moves mixed.
    Mixed,
    /// `minimax:4` against itself after a few random moves.
    Minimax,
    /// Mixed games played into the endgame.
    Endgame,
    /// Under the pie rule, every decision of the opening: the opener's moves of its first turn
    /// and each position where the answer `swap` is open (scored apart, see [`PieScore`]).
    Pie,
}

/// A judged position: its notation, where it came from, and the exact value of every legal move
/// (action index order).
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Judged {
    position: String,
    source: Source,
    /// Plies played from the start to reach it.
    ply: u32,
    value: i32,
    /// `(action, value)` for every legal move.
    moves: Vec<(usize, i32)>,
}

/// A fixed, cached set of solved positions.
pub struct JudgeSet {
    positions: Vec<(Position, Judged)>,
    unsolved: usize,
}

impl JudgeSet {
    /// Positions in the set.
    pub fn len(&self) -> usize {
        self.positions.len()
    }

    /// The set is empty.
    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }

    /// The set's positions, in set order.
    pub fn positions(&self) -> Vec<Position> {
        self.positions.iter().map(|p| p.0).collect()
    }

    /// Positions drawn but left out because the solver could not prove them in time.
    pub fn unsolved(&self) -> usize {
        self.unsolved
    }
}
