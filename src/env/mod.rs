//! The vectorised environment: thousands of Kalah games stepped together in parallel.
//!
//! A [`VecEnv`] holds `G` games under one set of [`Rules`](crate::rules::Rules), as structure of
//! arrays, and writes its outputs into preallocated `ndarray` buffers that can go to a network as
//! they are. A step plays one move in every game, in parallel pieces on the current rayon pool,
//! and allocates nothing.
//!
//! # Players, observations and actions
//! Players are numbered by who opened: player 0 made the game's first move (from South), player 1
//! answered. [`VecEnv::to_play`] says whose move it is. An extra turn means the same player moves
//! again; the pie answer `swap` keeps the board and the seat to move (North) but hands the move to
//! player 0, who now sits North.
//!
//! Observations ([`VecEnv::obs`], `[G, 2m + 4]`, `f32`) show each position from the seat of the
//! player to move: their pits, the opponent's pits, the two stores, then two pie flags, with seed
//! counts divided by `2mn`. The [`obs`] module gives the exact layout. Actions are `0..m` for
//! the mover's pits 1..m and `m` for the pie answer; [`VecEnv::mask`] (`[G, m + 1]`, `bool`) marks
//! the legal ones.
//!
//! # Rewards and outcomes
//! The reward is sparse and goes to the player who made the step's move ([`VecEnv::reward`]):
//! `+1`, `0` or `-1` if that move ended the game with a win, draw or loss for them, `0` otherwise.
//! The game is zero-sum, so the opponent's reward is the negation. When a game ends,
//! [`VecEnv::final_score`] gives both players' final scores (after the leftover rule) by player
//! number, so each player's result and margin can be read from each point of view
//! ([`VecEnv::outcome`], [`Outcome::margin`]).
//!
//! # Auto-reset
//! Same-step auto-reset, as Gymnasium's `AutoresetMode.SAME_STEP`: a game that ends in a step is
//! reset within that step, so after the step its `obs`, `mask` and `to_play` belong to the new
//! game, `done` is `true`, `reward` is the finished game's last reward, and [`VecEnv::final_obs`]
//! (the final position, seen from the seat of the player who made the last move),
//! `final_score` and `final_len` describe the finished game until the next step.
//!
//! The other modes of Gymnasium are built on it in one call a step: [`VecEnv::step_skipping`]
//! leaves the games it is told to skip as they are (reward 0, not done), so a caller that showed a
//! finished game's final observation skips it in the next step, which then shows the new game the
//! kernel already started (`NEXT_STEP`); [`VecEnv::reset_games`] restarts the games marked, and
//! only those (`reset_mask`).
//!
//! # Determinism
//! Game `i` draws its randomness (for [`VecEnv::step_random`] and the sampling helpers) from its own
//! stream seeded by `(seed, i)`, so the same seed gives the same games whatever the number of
//! threads or the piece size.
//!
//! # Errors
//! [`VecEnv::step`] checks every action before it touches any game: an illegal action (an empty
//! pit, a `swap` that is not allowed, an index past `m`) is refused with an [`EnvError`] naming the
//! game and the move, and no game changes.
//!
//! # Saving and restoring
//! [`VecEnv::save_state`] writes the whole environment (every game's position, seats, moves
//! played, random stream and last step's outputs) as versioned, checksummed bytes, and
//! [`VecEnv::load_state`] / [`VecEnv::from_state`] restore it exactly; damaged bytes are refused
//! with a [`StateError`] naming the problem. The [`state`] module describes the format, whose
//! framing training's run state shares.
//!
//! # Example: a training loop
//! A policy-gradient style loop: read the observations and masks, pick actions (here from
//! uniform logits; a learner would run its network on `env.obs()`), step, and credit each
//! finished game's result to the moves of each player.
//! ```
//! use kalaha::env::VecEnv;
//! use kalaha::rules::Rules;
//! use ndarray::Array2;
//!
//! let mut env = VecEnv::new(Rules::kalah64(), 256, 42).unwrap();
//! let (games, actions) = (env.games(), env.action_count());
//! // Per game: (player, observation) of each move of the game being played.
//! let mut trajectories: Vec<Vec<(u8, Vec<f32>)>> = vec![Vec::new(); games];
//! let mut examples = Vec::new(); // (observation, return for the player who saw it)
//! for _ in 0..300 {
//!     let logits = Array2::<f32>::zeros((games, actions)); // network(env.obs(), env.mask())
//!     for (i, t) in trajectories.iter_mut().enumerate() {
//!         t.push((env.to_play()[i], env.obs().row(i).to_vec()));
//!     }
//!     env.step_logits(logits.view()).unwrap();
//!     for i in 0..games {
//!         if let Some(outcome) = env.outcome(i) {
//!             for (player, obs) in trajectories[i].drain(..) {
//!                 examples.push((obs, outcome.value(player as usize) as f32));
//!             }
//!         }
//!     }
//! }
//! assert!(examples.len() > 0);
//! assert!(examples.iter().all(|(o, z)| o.len() == 16 && z.abs() <= 1.0));
//! ```

pub mod bench;
mod error;
mod kernel;
pub mod obs;
pub mod rng;
mod sample;
pub mod state;
mod vec_env;

pub use error::EnvError;
pub use kernel::random_legal;
pub use rng::GameRng;
pub use sample::Turn;
pub use state::StateError;
pub use vec_env::{DEFAULT_GRAIN, Outcome, VecEnv};
