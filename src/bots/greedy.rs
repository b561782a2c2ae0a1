//! `greedy`: the move with the best immediate gain over the whole turn.

use rand::Rng;

use super::{Bot, best_at_random};
use crate::env::rng::GameRng;
use crate::rules::{Move, Position};

/// Maximises the mover's store gain minus the opponent's over the rest of its turn: captures and
/// sown seeds count directly, and an extra turn adds the best gain of the follow-up move. A move
/// that ends the game counts the final scores (leftover rule applied).
#[derive(Clone, Copy, Debug, Default)]
pub struct Greedy;

/// The mover's best store-difference gain over its turn from `pos`, and the move that gets it.
fn turn_gain(pos: &Position, mv: Move) -> i32 {
    let me = pos.to_move().index();
    let before = pos.score();
    let (next, out) = pos.after(mv).expect("greedy only tries legal moves");
    let after = next.score();
    let diff = |s: [u32; 2]| s[me] as i32 - s[1 - me] as i32;
    let gain = diff(after) - diff(before);
    if out.extra_turn && !out.game_over {
        let follow = next
            .legal_moves()
            .iter()
            .map(|m| turn_gain(&next, m))
            .max()
            .unwrap_or(0);
        gain + follow
    } else {
        gain
    }
}

impl Greedy {
    /// The move [`Bot::choose`] picks, from any generator (the pinned draws of
    /// `eval::judge::draw` and `eval::heldout` use `rand`'s `SmallRng`).
    pub fn pick(&self, pos: &Position, rng: &mut impl Rng) -> Move {
        let scored: Vec<(Move, i32)> = pos
            .legal_moves()
            .iter()
            .map(|mv| {
                (
                    mv,
                    if mv == Move::Swap {
                        i32::MIN
                    } else {
                        turn_gain(pos, mv)
                    },
                )
            })
            .collect();
        best_at_random(&scored, rng)
    }
}

impl Bot for Greedy {
    fn choose(&mut self, pos: &Position, rng: &mut GameRng) -> Move {
        self.pick(pos, rng)
    }
}
