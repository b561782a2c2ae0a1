//! Stepping helpers: each game's move from a callback, or sampled from a batch of action
//! probabilities or logits with the games' own random streams.

use ndarray::ArrayView2;

use crate::rules::Position;

use super::error::EnvError;
use super::rng::GameRng;
use super::vec_env::VecEnv;

/// One game's turn, as a [`VecEnv::step_with`] callback sees it.
pub struct Turn<'a> {
    /// The game's index.
    pub game: usize,
    /// Its current position.
    pub position: &'a Position,
    /// Legal actions as bits (bit `a` for action `a`).
    pub legal: u16,
    /// The player to move (0: the player who opened the game).
    pub player: u8,
    /// The game's random stream; what the callback draws is kept only if the step succeeds.
    pub rng: &'a mut GameRng,
}

impl VecEnv {
    /// Steps every game with the action `choose` returns for its turn (called in parallel, so it
    /// must be `Sync`). The actions are checked like [`VecEnv::step`]'s: if one is illegal,
    /// nothing changes, the random streams included.
    ///
    /// A random opponent for player 1 and a fixed policy for player 0:
    /// ```
    /// use kalaha::env::{VecEnv, random_legal};
    /// let mut env = VecEnv::new(kalaha::rules::Rules::kalah64(), 8, 1).unwrap();
    /// env.step_with(|t| {
    ///     if t.player == 1 { random_legal(t.legal, t.rng) as u32 } else { t.legal.trailing_zeros() }
    /// })
    /// .unwrap();
    /// ```
    pub fn step_with<F>(&mut self, choose: F) -> Result<(), EnvError>
    where
        F: Fn(Turn<'_>) -> u32 + Sync,
    {
        self.step_chosen(true, |game, position, legal, player, rng| {
            Ok(choose(Turn {
                game,
                position,
                legal,
                player,
                rng,
            }))
        })
    }

    /// Steps every game with an action sampled from row `i` of `probs` (`[G, m + 1]`), restricted
    /// to the legal actions and renormalised. Fails, changing nothing, if a game's legal actions
    /// hold a negative or non-finite weight or have no positive weight.
    pub fn step_probs(&mut self, probs: ArrayView2<'_, f32>) -> Result<(), EnvError> {
        self.check_shape("probabilities", probs)?;
        self.step_chosen(false, |game, _, legal, _, rng| {
            let row = probs.row(game);
            let mut w = [0f32; 16];
            for a in bits(legal) {
                w[a] = row[a];
                if !(w[a] >= 0.0 && w[a].is_finite()) {
                    return Err(EnvError::Sampling {
                        game,
                        reason: "a legal action's probability is negative or not finite",
                    });
                }
            }
            sample(game, legal, &w, rng)
        })
    }

    /// Steps every game with an action sampled from the softmax of row `i` of `logits`
    /// (`[G, m + 1]`) over the legal actions. Fails, changing nothing, if a legal action's logit is
    /// NaN or infinite.
    pub fn step_logits(&mut self, logits: ArrayView2<'_, f32>) -> Result<(), EnvError> {
        self.check_shape("logits", logits)?;
        self.step_chosen(false, |game, _, legal, _, rng| {
            let row = logits.row(game);
            let mut top = f32::NEG_INFINITY;
            for a in bits(legal) {
                if !row[a].is_finite() {
                    return Err(EnvError::Sampling {
                        game,
                        reason: "a legal action's logit is not finite",
                    });
                }
                top = top.max(row[a]);
            }
            let mut w = [0f32; 16];
            for a in bits(legal) {
                w[a] = (row[a] - top).exp();
            }
            sample(game, legal, &w, rng)
        })
    }

    fn check_shape(&self, what: &'static str, batch: ArrayView2<'_, f32>) -> Result<(), EnvError> {
        let (rows, cols) = batch.dim();
        if rows != self.games() {
            return Err(EnvError::Count {
                what,
                expected: self.games(),
                got: rows,
            });
        }
        if cols != self.action_count() {
            return Err(EnvError::Columns {
                what,
                expected: self.action_count(),
                got: cols,
            });
        }
        Ok(())
    }
}

/// The set bits of `legal`, lowest first.
fn bits(legal: u16) -> impl Iterator<Item = usize> {
    let mut b = legal;
    std::iter::from_fn(move || {
        (b != 0).then(|| {
            let a = b.trailing_zeros() as usize;
            b &= b - 1;
            a
        })
    })
}

/// Draws a legal action with probability proportional to its weight in `w`.
fn sample(game: usize, legal: u16, w: &[f32; 16], rng: &mut GameRng) -> Result<u32, EnvError> {
    let total: f32 = bits(legal).map(|a| w[a]).sum();
    if !(total > 0.0 && total.is_finite()) {
        return Err(EnvError::Sampling {
            game,
            reason: "the legal actions have no positive weight",
        });
    }
    let u = rng.next_f32() * total;
    let mut acc = 0.0;
    let mut last = 0;
    for a in bits(legal) {
        if w[a] > 0.0 {
            acc += w[a];
            last = a;
            if u < acc {
                return Ok(a as u32);
            }
        }
    }
    // Rounding can leave `u` just above the running sum: take the last action with weight.
    Ok(last as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sample_never_picks_zero_weight_or_illegal_actions_and_follows_weights() {
        let mut rng = GameRng::for_game(3, 0);
        let mut w = [0f32; 16];
        w[0] = 1.0;
        w[2] = 3.0;
        w[5] = 100.0; // illegal: not in the bits below
        let legal = 0b0000_0111;
        let mut counts = [0u32; 3];
        for _ in 0..8000 {
            counts[sample(0, legal, &w, &mut rng).unwrap() as usize] += 1;
        }
        assert_eq!(counts[1], 0);
        assert!((5400..6600).contains(&counts[2]), "{counts:?}");
        assert!(sample(4, 0b10, &w, &mut rng).is_err());
    }
}
