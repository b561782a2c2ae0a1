#![doc = include_str!("RULES.md")]

mod game;
mod notation;
mod options;
mod perft;
mod position;
pub(crate) mod sow;

pub use sow::{count_bits, select_bit};

pub use game::{Game, MoveListError, Played, parse_move, parse_moves};
pub use notation::{NotationError, Setup};
pub use options::{
    Capture, End, Leftover, MAX_PITS, MAX_SEEDS, Preset, RuleChoices, Rules, RulesError, RulesSpec,
};
pub use perft::perft;
pub(crate) use position::Phase;
pub use position::{
    GameResult, IllegalMove, Move, MoveOutcome, MoveSet, Position, PositionError, Side,
};
