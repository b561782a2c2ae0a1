//! JSON forms the commands share: a move, and a move's proven value.

use serde::Serialize;

use crate::rules::Move;
use crate::solver::MoveValue;

/// Serialisable form of a move value for JSON output: `"pit"` is the pit number or `"swap"`.
#[derive(Clone, Debug, Serialize)]
pub struct MoveValueJson {
    /// Pit number, or `"swap"`.
    pub pit: serde_json::Value,
    /// Exact value, or null if only bounded.
    pub value: Option<i32>,
    /// Lower bound.
    pub lower: i32,
    /// Upper bound.
    pub upper: i32,
}

impl From<&MoveValue> for MoveValueJson {
    fn from(m: &MoveValue) -> MoveValueJson {
        MoveValueJson {
            pit: move_json(m.mv),
            value: m.value(),
            lower: m.lower,
            upper: m.upper,
        }
    }
}

/// A move as JSON: the pit number, or `"swap"`.
pub fn move_json(mv: Move) -> serde_json::Value {
    match mv {
        Move::Pit(p) => serde_json::Value::from(p),
        Move::Swap => serde_json::Value::from("swap"),
    }
}
