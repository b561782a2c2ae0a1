//! Move-path counting for testing the move generator against independent implementations.

use super::position::Position;

/// Counts the move sequences of exactly `depth` moves from `pos` (every sowing, extra turns
/// included, and `swap` count as one move each; games that end sooner contribute nothing).
///
/// ```
/// use kalaha::rules::{perft, Position, Rules};
/// let start = Position::start(&Rules::kalah64());
/// assert_eq!(perft(&start, 1), 6);
/// // Pit 3 gives an extra turn: South then has 5 replies, the other 5 moves give North 6.
/// assert_eq!(perft(&start, 2), 5 + 5 * 6);
/// ```
pub fn perft(pos: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves = pos.legal_moves();
    if depth == 1 {
        return moves.len() as u64;
    }
    moves
        .iter()
        .map(|mv| {
            let (next, _) = pos.after(mv).expect("generated moves are legal");
            perft(&next, depth - 1)
        })
        .sum()
}
