//! Who holds which seat in a game between a person and a bot: the one piece of bookkeeping that
//! `kalaha play`'s [`Session`](super::Session) and `kalaha serve`'s games share.

use crate::rules::{Game, Side};

/// The person's seat at the start and whether they practise (play both sides, no bot).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Seats {
    /// The seat the person started in (after a pie swap they sit in the other).
    pub human: Side,
    /// Practice: the person plays both sides.
    pub practice: bool,
}

impl Seats {
    /// The person's seat now (after a pie swap, the other one).
    pub fn human_seat(&self, game: &Game) -> Side {
        game.seat_of(self.human)
    }

    /// The person's seat when ply `i` (0-based) was played: the swaps before it count.
    pub fn human_seat_at(&self, game: &Game, i: usize) -> Side {
        let swaps = game.history()[..i.min(game.history().len())]
            .iter()
            .filter(|p| p.outcome.swapped)
            .count();
        if swaps % 2 == 1 {
            self.human.other()
        } else {
            self.human
        }
    }

    /// Whether the person is to move (always in practice mode, until the game ends).
    pub fn human_to_move(&self, game: &Game) -> bool {
        let pos = game.position();
        !pos.is_over() && (self.practice || pos.to_move() == self.human_seat(game))
    }

    /// Whether the bot is to move (never in practice mode).
    pub fn bot_to_move(&self, game: &Game) -> bool {
        !self.practice && !game.position().is_over() && !self.human_to_move(game)
    }

    /// Takes back moves until the person is to move again (one move in practice mode): how many.
    pub fn undo(&self, game: &mut Game) -> usize {
        let mut n = 0;
        while game.undo().is_some() {
            n += 1;
            if self.practice || self.human_to_move(game) {
                break;
            }
        }
        n
    }

    /// Replays undone moves until the person is to move again (one in practice mode) or the game
    /// ends: how many.
    pub fn redo(&self, game: &mut Game) -> usize {
        let mut n = 0;
        while game.redo().is_some() {
            n += 1;
            if self.practice || self.human_to_move(game) || game.position().is_over() {
                break;
            }
        }
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Move, Rules};

    fn pie() -> Rules {
        Rules::kalah64().with_pie(true)
    }

    #[test]
    fn a_swap_moves_the_person_to_the_other_seat() {
        let mut game = Game::new(&pie());
        let seats = Seats {
            human: Side::North,
            practice: false,
        };
        assert!(seats.bot_to_move(&game));
        game.play(Move::Pit(1)).unwrap(); // South's opening (the bot)
        assert!(seats.human_to_move(&game));
        game.play(Move::Swap).unwrap(); // the person takes South's seat
        assert_eq!(seats.human_seat(&game), Side::South);
        assert_eq!(seats.human_seat_at(&game, 0), Side::North);
        assert_eq!(seats.human_seat_at(&game, 2), Side::South);
        // The new North (the bot) moves next.
        assert!(seats.bot_to_move(&game) && !seats.human_to_move(&game));
    }

    #[test]
    fn undo_takes_back_to_the_persons_turn_and_redo_replays_it() {
        let mut game = Game::new(&Rules::kalah64());
        let seats = Seats {
            human: Side::South,
            practice: false,
        };
        game.play(Move::Pit(1)).unwrap(); // South (person)
        game.play(Move::Pit(1)).unwrap(); // North (bot)
        assert_eq!(seats.undo(&mut game), 2);
        assert_eq!(game.history().len(), 0);
        assert_eq!(
            seats.redo(&mut game),
            2,
            "the person's move and the bot's answer"
        );
        assert_eq!(seats.redo(&mut game), 0);
        assert_eq!(seats.undo(&mut game), 2);
        let practice = Seats {
            practice: true,
            ..seats
        };
        assert_eq!(practice.redo(&mut game), 1);
        assert_eq!(practice.undo(&mut game), 1);
        assert_eq!(seats.undo(&mut Game::new(&Rules::kalah64())), 0);
    }
}
