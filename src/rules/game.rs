//! A game record: a start position and the moves played from it, with undo and redo.

use super::options::Rules;
use super::position::{IllegalMove, Move, MoveOutcome, Position, Side};

/// Why a move list could not be read or played.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MoveListError {
    /// A field that is neither a pit number nor `swap`.
    #[error("move {index} ('{text}') is not a pit number or 'swap'")]
    Syntax { index: usize, text: String },
    /// A move that is illegal where it is played.
    #[error("move {index} ({mv}) is illegal: {reason}")]
    Illegal {
        index: usize,
        mv: Move,
        reason: IllegalMove,
    },
}

/// Parses one move: a pit number or `swap`.
pub fn parse_move(text: &str) -> Option<Move> {
    let t = text.trim();
    if t.eq_ignore_ascii_case("swap") {
        return Some(Move::Swap);
    }
    t.parse::<u8>().ok().map(Move::Pit)
}

/// Parses a comma-separated move list such as `3,6,1` (an empty string is no moves).
pub fn parse_moves(text: &str) -> Result<Vec<Move>, MoveListError> {
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    text.split(',')
        .enumerate()
        .map(|(i, t)| {
            parse_move(t).ok_or(MoveListError::Syntax {
                index: i + 1,
                text: t.trim().to_string(),
            })
        })
        .collect()
}

/// One played move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Played {
    /// The position before the move.
    pub before: Position,
    /// The move.
    pub mv: Move,
    /// What it did.
    pub outcome: MoveOutcome,
}

/// A game: the moves from a start position, the current position, and an undo/redo history.
#[derive(Clone, Debug)]
pub struct Game {
    start: Position,
    current: Position,
    played: Vec<Played>,
    redo: Vec<Move>,
    swapped: bool,
}

impl Game {
    /// A new game from the rules' start position.
    pub fn new(rules: &Rules) -> Game {
        Game::from_position(Position::start(rules))
    }

    /// A new game from any position.
    pub fn from_position(start: Position) -> Game {
        Game {
            start,
            current: start,
            played: Vec::new(),
            redo: Vec::new(),
            swapped: false,
        }
    }

    /// Plays a move list from `start`; the error names the first bad move (1-based).
    pub fn from_moves(start: Position, moves: &[Move]) -> Result<Game, MoveListError> {
        let mut game = Game::from_position(start);
        for (i, &mv) in moves.iter().enumerate() {
            game.play(mv).map_err(|reason| MoveListError::Illegal {
                index: i + 1,
                mv,
                reason,
            })?;
        }
        Ok(game)
    }

    /// The position the game started from.
    pub fn start(&self) -> &Position {
        &self.start
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        &self.current
    }

    /// The moves played so far.
    pub fn moves(&self) -> impl Iterator<Item = Move> + '_ {
        self.played.iter().map(|p| p.mv)
    }

    /// The moves with the positions before them and their outcomes.
    pub fn history(&self) -> &[Played] {
        &self.played
    }

    /// The last move played, if any.
    pub fn last(&self) -> Option<&Played> {
        self.played.last()
    }

    /// Whether the players exchanged seats by the pie rule: the player who started as South now
    /// sits North.
    pub fn swapped(&self) -> bool {
        self.swapped
    }

    /// The seat of the player who started the game in `seat`.
    pub fn seat_of(&self, starting_seat: Side) -> Side {
        if self.swapped {
            starting_seat.other()
        } else {
            starting_seat
        }
    }

    /// Plays a checked move; clears the redo list.
    pub fn play(&mut self, mv: Move) -> Result<MoveOutcome, IllegalMove> {
        let outcome = self.push(mv)?;
        self.redo.clear();
        Ok(outcome)
    }

    fn push(&mut self, mv: Move) -> Result<MoveOutcome, IllegalMove> {
        let before = self.current;
        let outcome = self.current.play(mv)?;
        self.swapped ^= outcome.swapped;
        self.played.push(Played {
            before,
            mv,
            outcome,
        });
        Ok(outcome)
    }

    /// Takes back the last move; `None` at the start.
    pub fn undo(&mut self) -> Option<Move> {
        let last = self.played.pop()?;
        self.current = last.before;
        self.swapped ^= last.outcome.swapped;
        self.redo.push(last.mv);
        Some(last.mv)
    }

    /// Replays the last undone move; `None` if there is none.
    pub fn redo(&mut self) -> Option<Move> {
        let mv = self.redo.pop()?;
        self.push(mv)
            .expect("a redone move was legal when it was played");
        Some(mv)
    }

    /// The move list as notation, e.g. `3,6,1`.
    pub fn move_list(&self) -> String {
        self.moves()
            .map(|m| m.to_string())
            .collect::<Vec<_>>()
            .join(",")
    }
}
