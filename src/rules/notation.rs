//! Position notation `p1,..,pm,STORE/q1,..,qm,STORE s`: parsing into a raw [`Setup`], validation
//! into a [`Position`], and printing.
//!
//! An optional third field `swap` marks a position where North may still answer with the pie
//! rule's swap, and `opening` one where South's opening turn is still going (after an extra
//! turn), so that the pie answer is still to come (the notation has no move history, so these are
//! the only ways to say so). The start position of the rules is read as the start of a game, so
//! it needs no marker.

use std::fmt;
use std::str::FromStr;

use super::options::Rules;
use super::position::{Phase, Position, PositionError, Side};
use super::sow::{base, store};

/// Why a piece of notation was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NotationError {
    /// Not of the form `BOARD SIDE [swap|opening]`.
    #[error("position '{0}' must be 'SOUTH/NORTH SIDE', e.g. '4,4,4,4,4,4,0/4,4,4,4,4,4,0 s'")]
    Shape(String),
    /// The board part lacks exactly one `/`.
    #[error("board '{0}' must have two halves separated by one '/'")]
    Halves(String),
    /// A field that is not a whole number.
    #[error("'{0}' is not a seed count")]
    NotANumber(String),
    /// A negative seed count.
    #[error("seed count {0} is negative")]
    Negative(String),
    /// A half with too few entries to hold even a store.
    #[error("{side} half of the board is empty")]
    EmptyHalf { side: &'static str },
    /// The two halves have different pit counts.
    #[error("south has {south} pits but north has {north}")]
    Unbalanced { south: usize, north: usize },
    /// The side letter is neither `s` nor `n`.
    #[error("side to move must be 's' or 'n', got '{0}'")]
    Side(String),
    /// An unknown trailing field.
    #[error("unexpected '{0}' after the side to move (only 'swap' or 'opening' may follow)")]
    Trailing(String),
    /// The board is not a position of the rules (pit count, seed count, `swap` marker).
    #[error(transparent)]
    Position(#[from] PositionError),
    /// `opening` marker where South's opening turn cannot be going on.
    #[error("'opening' needs the pie rule, south to move and an empty north store")]
    Opening,
}

/// A raw position as written: any pit counts, any numbers. Validate with [`Setup::position`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setup {
    /// South's pits 1..m.
    pub south: Vec<u64>,
    /// South's store.
    pub south_store: u64,
    /// North's pits 1..m.
    pub north: Vec<u64>,
    /// North's store.
    pub north_store: u64,
    /// Side to move.
    pub to_move: Side,
    /// The `swap` marker was present.
    pub swap: bool,
    /// The `opening` marker was present.
    pub opening: bool,
}

fn parse_half(half: &str, side: &'static str) -> Result<(Vec<u64>, u64), NotationError> {
    let mut nums = half
        .split(',')
        .map(|f| {
            let f = f.trim();
            if f.starts_with('-') && f[1..].chars().all(|c| c.is_ascii_digit()) && f.len() > 1 {
                return Err(NotationError::Negative(f.to_string()));
            }
            if f.is_empty() || !f.chars().all(|c| c.is_ascii_digit()) {
                return Err(NotationError::NotANumber(f.to_string()));
            }
            // Clamp absurd lengths: anything that big is refused later anyway.
            Ok(f.parse::<u64>().unwrap_or(u64::MAX))
        })
        .collect::<Result<Vec<u64>, _>>()?;
    let store = nums.pop().ok_or(NotationError::EmptyHalf { side })?;
    if nums.is_empty() {
        return Err(NotationError::EmptyHalf { side });
    }
    Ok((nums, store))
}

impl FromStr for Setup {
    type Err = NotationError;

    fn from_str(s: &str) -> Result<Setup, NotationError> {
        let fields: Vec<&str> = s.split_whitespace().collect();
        if fields.len() < 2 {
            return Err(NotationError::Shape(s.trim().to_string()));
        }
        let (south_half, north_half) = match fields[0].split('/').collect::<Vec<_>>()[..] {
            [a, b] => (a, b),
            _ => return Err(NotationError::Halves(fields[0].to_string())),
        };
        let (south, south_store) = parse_half(south_half, "south")?;
        let (north, north_store) = parse_half(north_half, "north")?;
        if south.len() != north.len() {
            return Err(NotationError::Unbalanced {
                south: south.len(),
                north: north.len(),
            });
        }
        let to_move = match fields[1] {
            "s" | "S" => Side::South,
            "n" | "N" => Side::North,
            other => return Err(NotationError::Side(other.to_string())),
        };
        let (swap, opening) = match &fields[2..] {
            [] => (false, false),
            ["swap"] => (true, false),
            ["opening"] => (false, true),
            ["swap" | "opening", other, ..] | [other, ..] => {
                return Err(NotationError::Trailing(other.to_string()));
            }
        };
        Ok(Setup {
            south,
            south_store,
            north,
            north_store,
            to_move,
            swap,
            opening,
        })
    }
}

impl Setup {
    /// Pits per side as written.
    pub fn pits(&self) -> usize {
        self.south.len()
    }

    /// Validates the setup under `rules` (through [`Position::from_parts`], and the `opening`
    /// marker here).
    pub fn position(&self, rules: &Rules) -> Result<Position, NotationError> {
        if self.pits() != rules.pits() {
            return Err(PositionError::PitCount {
                got: self.pits(),
                want: rules.pits(),
            }
            .into());
        }
        // Checked here too, before the counts are narrowed to bytes.
        let total = self
            .south
            .iter()
            .chain(&self.north)
            .chain([&self.south_store, &self.north_store])
            .fold(0u64, |a, &b| a.saturating_add(b));
        if total > 255 {
            return Err(PositionError::TooManySeeds(total).into());
        }
        let narrow = |v: &[u64]| v.iter().map(|&x| x as u8).collect::<Vec<u8>>();
        let mut pos = Position::from_parts(
            rules,
            (&narrow(&self.south), self.south_store as u8),
            (&narrow(&self.north), self.north_store as u8),
            self.to_move,
            self.swap,
        )?;
        // North has not moved in South's opening turn: nothing can be in its store.
        if self.opening {
            if !rules.pie || self.to_move != Side::South || self.north_store != 0 {
                return Err(NotationError::Opening);
            }
            pos.phase = Phase::Opening;
        }
        Ok(pos)
    }
}

impl Position {
    /// Parses notation under `rules`.
    pub fn parse(text: &str, rules: &Rules) -> Result<Position, NotationError> {
        text.parse::<Setup>()?.position(rules)
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let m = self.rules.pits();
        for side in 0..2 {
            if side == 1 {
                f.write_str("/")?;
            }
            for i in 0..m {
                write!(f, "{},", self.cells[base(side) + i])?;
            }
            write!(f, "{}", self.cells[store(side)])?;
        }
        write!(f, " {}", self.to_move.letter())?;
        if self.swap_allowed() {
            f.write_str(" swap")?;
        } else if self.in_opening_turn() && !self.on_start_board() {
            f.write_str(" opening")?;
        }
        Ok(())
    }
}
