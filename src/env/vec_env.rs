//! [`VecEnv`]: the batch of games, its structure-of-arrays state and its output buffers.

use ndarray::{Array1, Array2};
use rayon::prelude::*;

use crate::rules::{Move, Phase, Position, Rules, Side};

use super::error::EnvError;
use super::kernel::{self, Chunk, Ctx, Given, GivenOrSkip, Uniform};
use super::obs::{action_count, obs_dim};
use super::rng::GameRng;
use super::state::{Reader, StateError, Writer};

/// Magic of a saved environment (see the [`state`](super::state) module).
const STATE_MAGIC: &[u8; 8] = b"KALAHAVE";
/// Version of the saved environment's format.
const STATE_VERSION: u32 = 1;
/// Named in errors about a saved environment.
const STATE_WHAT: &str = "saved environment";

/// Games per parallel piece unless [`VecEnv::set_grain`] says otherwise.
pub const DEFAULT_GRAIN: usize = 512;

/// How a game that finished in the last step ended, from its players' points of view.
///
/// Players are numbered by who opened: player 0 made the game's first move (from South), player 1
/// answered. A pie swap changes the players' seats, not their numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// Final scores (after the leftover rule) of player 0 and player 1.
    pub scores: [u8; 2],
    /// Moves played in the game, the pie answer included.
    pub len: u32,
}

impl Outcome {
    /// `player`'s score minus the opponent's.
    pub fn margin(&self, player: usize) -> i32 {
        self.scores[player] as i32 - self.scores[player ^ 1] as i32
    }

    /// `+1`, `0` or `-1`: win, draw or loss for `player`.
    pub fn value(&self, player: usize) -> i32 {
        self.margin(player).signum()
    }

    /// The winning player (0 or 1), or `None` for a draw.
    pub fn winner(&self) -> Option<usize> {
        match self.margin(0) {
            0 => None,
            m if m > 0 => Some(0),
            _ => Some(1),
        }
    }
}

/// A batch of Kalah games stepped together. See the [module documentation](super) for the
/// observation layout, the reward and auto-reset conventions, and an example.
pub struct VecEnv {
    ctx: Ctx,
    games: usize,
    grain: usize,
    // Per-game state, one entry per game.
    cells: Vec<[u8; 32]>,
    seat: Vec<Side>,
    phase: Vec<Phase>,
    swapped: Vec<bool>,
    legal: Vec<u16>,
    len: Vec<u32>,
    rng: Vec<GameRng>,
    // Outputs of the last step.
    obs: Array2<f32>,
    mask: Array2<bool>,
    to_play: Array1<u8>,
    reward: Array1<f32>,
    done: Array1<bool>,
    final_obs: Array2<f32>,
    final_score: Array2<u8>,
    final_len: Array1<u32>,
    // Scratch for the sampling helpers: actions and the streams they advanced.
    pub(super) actions: Vec<u32>,
    pub(super) rng_next: Vec<GameRng>,
}

impl VecEnv {
    /// `games` games of `rules`, reset with `seed` (see [`VecEnv::reset`]).
    pub fn new(rules: Rules, games: usize, seed: u64) -> Result<VecEnv, EnvError> {
        if games == 0 {
            return Err(EnvError::NoGames);
        }
        let (m, start) = (rules.pits(), Position::start(&rules));
        let (d, a) = (obs_dim(m), action_count(m));
        let ctx = Ctx {
            rules,
            start,
            scale: 1.0 / rules.total_seeds() as f32,
            pie: rules.pie,
        };
        let mut env = VecEnv {
            ctx,
            games,
            grain: DEFAULT_GRAIN,
            cells: vec![start.cells; games],
            seat: vec![start.to_move; games],
            phase: vec![start.phase; games],
            swapped: vec![false; games],
            legal: vec![0; games],
            len: vec![0; games],
            rng: vec![GameRng::for_game(seed, 0); games],
            obs: Array2::zeros((games, d)),
            mask: Array2::from_elem((games, a), false),
            to_play: Array1::zeros(games),
            reward: Array1::zeros(games),
            done: Array1::from_elem(games, false),
            final_obs: Array2::zeros((games, d)),
            final_score: Array2::zeros((games, 2)),
            final_len: Array1::zeros(games),
            actions: vec![0; games],
            rng_next: vec![GameRng::for_game(seed, 0); games],
        };
        env.reset(seed);
        Ok(env)
    }

    /// Puts every game at the start position and seeds game `i`'s random stream from
    /// `(seed, i)`. Rewards and done flags are cleared; the final-game buffers are left as they are.
    pub fn reset(&mut self, seed: u64) {
        let start = self.ctx.start;
        self.cells.fill(start.cells);
        self.seat.fill(start.to_move);
        self.phase.fill(start.phase);
        self.swapped.fill(false);
        self.len.fill(0);
        for (i, r) in self.rng.iter_mut().enumerate() {
            *r = GameRng::for_game(seed, i);
        }
        self.reward.fill(0.0);
        self.done.fill(false);
        let ctx = self.ctx;
        kernel::refresh(&ctx, self.chunk(), None);
    }

    /// Puts the games that `which` marks at the start position, with rewards 0 and done flags
    /// cleared, their random streams kept; other games are not touched. The per-game reset of a
    /// vector environment whose caller restarts games itself (Gymnasium's `reset_mask`). Work
    /// grows with the games reset, not the batch.
    pub fn reset_games(&mut self, which: &[bool]) -> Result<(), EnvError> {
        if which.len() != self.games {
            return Err(EnvError::Count {
                what: "which",
                expected: self.games,
                got: which.len(),
            });
        }
        let start = self.ctx.start;
        for i in (0..self.games).filter(|&i| which[i]) {
            self.cells[i] = start.cells;
            self.seat[i] = start.to_move;
            self.phase[i] = start.phase;
            self.swapped[i] = false;
            self.len[i] = 0;
            self.reward[i] = 0.0;
            self.done[i] = false;
        }
        let ctx = self.ctx;
        kernel::refresh(&ctx, self.chunk(), Some(which));
        Ok(())
    }

    /// Games per parallel piece of a step (default [`DEFAULT_GRAIN`]). Results never depend on it.
    pub fn set_grain(&mut self, games: usize) {
        self.grain = games.max(1);
    }

    /// Number of games, `G`.
    pub fn games(&self) -> usize {
        self.games
    }

    /// The rules every game is played under.
    pub fn rules(&self) -> &Rules {
        &self.ctx.rules
    }

    /// Length of one observation, `2m + 4`.
    pub fn obs_dim(&self) -> usize {
        obs_dim(self.ctx.rules.pits())
    }

    /// Number of actions, `m + 1` (the last one is the pie answer).
    pub fn action_count(&self) -> usize {
        action_count(self.ctx.rules.pits())
    }

    /// Observations `[G, obs_dim]`, each from the point of view of the player to move.
    pub fn obs(&self) -> &Array2<f32> {
        &self.obs
    }

    /// Legal-action masks `[G, m + 1]`.
    pub fn mask(&self) -> &Array2<bool> {
        &self.mask
    }

    /// The player to move in each game: 0 for the player who opened the game, 1 for the other.
    pub fn to_play(&self) -> &Array1<u8> {
        &self.to_play
    }

    /// Each game's reward for the player who made the last step's move: `+1`, `0` or `-1` when
    /// that move ended the game (win, draw, loss), else `0`.
    pub fn reward(&self) -> &Array1<f32> {
        &self.reward
    }

    /// Whether the last step ended each game (it has been reset since).
    pub fn done(&self) -> &Array1<bool> {
        &self.done
    }

    /// `[G, obs_dim]`: for games that ended in the last step, the final board (as it stands,
    /// before the leftover rule) seen from the seat of the player who made the last move; other
    /// rows hold stale data.
    pub fn final_obs(&self) -> &Array2<f32> {
        &self.final_obs
    }

    /// `[G, 2]`: for games that ended in the last step, the final scores of player 0 and
    /// player 1; other rows hold stale data.
    pub fn final_score(&self) -> &Array2<u8> {
        &self.final_score
    }

    /// For games that ended in the last step, the number of moves played; other entries are stale.
    pub fn final_len(&self) -> &Array1<u32> {
        &self.final_len
    }

    /// How game `i` ended, if it ended in the last step.
    pub fn outcome(&self, i: usize) -> Option<Outcome> {
        self.done[i].then(|| Outcome {
            scores: [self.final_score[[i, 0]], self.final_score[[i, 1]]],
            len: self.final_len[i],
        })
    }

    /// Game `i`'s current position.
    pub fn position(&self, i: usize) -> Position {
        Position {
            cells: self.cells[i],
            to_move: self.seat[i],
            phase: self.phase[i],
            rules: self.ctx.rules,
        }
    }

    /// Puts each game `i` at `games[i]`: a position of the env's rules that is not over, whether
    /// its players exchanged seats by the pie rule, and the moves played so far (to restore games
    /// saved from [`VecEnv::position`], [`VecEnv::swapped`] and [`VecEnv::game_len`]). Outputs are
    /// recomputed; random streams are kept. Nothing changes if one is refused.
    pub fn set_games(&mut self, games: &[(Position, bool, u32)]) -> Result<(), EnvError> {
        if games.len() != self.games {
            return Err(EnvError::Count {
                what: "games",
                expected: self.games,
                got: games.len(),
            });
        }
        if let Some(game) = games
            .iter()
            .position(|(p, _, _)| *p.rules() != self.ctx.rules || p.is_over())
        {
            return Err(EnvError::BadPosition { game });
        }
        for (i, (p, swapped, len)) in games.iter().enumerate() {
            self.cells[i] = p.cells;
            self.seat[i] = p.to_move;
            self.phase[i] = p.phase;
            self.swapped[i] = *swapped;
            self.len[i] = *len;
        }
        self.reward.fill(0.0);
        self.done.fill(false);
        let ctx = self.ctx;
        kernel::refresh(&ctx, self.chunk(), None);
        Ok(())
    }

    /// The whole environment as bytes: its rules and, for every game, its position, seats, moves
    /// played, random stream and last step's outputs, in the format the [`state`](super::state)
    /// module describes. [`VecEnv::load_state`] or [`VecEnv::from_state`] restore it exactly: the
    /// restored environment steps on as this one would.
    pub fn save_state(&self) -> Vec<u8> {
        let d = self.obs_dim();
        let mut w = Writer::new(STATE_MAGIC, STATE_VERSION);
        w.rules(&self.ctx.rules);
        w.u64(self.games as u64);
        for i in 0..self.games {
            w.pos(&self.position(i));
            w.u8(self.swapped[i] as u8);
            w.u32(self.len[i]);
            w.u64(self.rng[i].state());
            w.f32(self.reward[i]);
            w.u8(self.done[i] as u8);
            if self.done[i] {
                w.u8(self.final_score[[i, 0]]);
                w.u8(self.final_score[[i, 1]]);
                w.u32(self.final_len[i]);
                for k in 0..d {
                    w.f32(self.final_obs[[i, k]]);
                }
            }
        }
        w.finish()
    }

    /// A new environment from [`VecEnv::save_state`]'s bytes (its rules and number of games are
    /// the saved ones). Damaged, cut or foreign bytes are refused, naming the problem.
    pub fn from_state(bytes: &[u8]) -> Result<VecEnv, StateError> {
        let mut r = Reader::new(bytes, STATE_MAGIC, STATE_VERSION, STATE_VERSION, STATE_WHAT)?;
        let rules = r.rules()?;
        let games = r.count(1)?;
        let mut env =
            VecEnv::new(rules, games, 0).map_err(|e| StateError::Mismatch(e.to_string()))?;
        env.load_state(bytes)?;
        Ok(env)
    }

    /// Puts this environment in the state [`VecEnv::save_state`] saved, which must be of the same
    /// rules and number of games. Damaged, cut or foreign bytes are refused, naming the problem,
    /// and then nothing changes.
    pub fn load_state(&mut self, bytes: &[u8]) -> Result<(), StateError> {
        let mut r = Reader::new(bytes, STATE_MAGIC, STATE_VERSION, STATE_VERSION, STATE_WHAT)?;
        let rules = r.rules()?;
        if rules != self.ctx.rules {
            return Err(StateError::Mismatch(format!(
                "the saved environment plays {}, this one {}",
                rules.describe(),
                self.ctx.rules.describe()
            )));
        }
        let d = self.obs_dim();
        let n = r.count(34 + 1 + 4 + 8 + 4 + 1)?;
        if n != self.games {
            return Err(StateError::Mismatch(format!(
                "the saved environment has {n} games, this one {}",
                self.games
            )));
        }
        let mut games = Vec::with_capacity(n);
        let mut rngs = Vec::with_capacity(n);
        let mut last = Vec::with_capacity(n);
        for i in 0..n {
            let bad = |what: String| StateError::Mismatch(format!("game {i}: {what}"));
            let pos = r.pos(&rules)?;
            if pos.is_over() {
                return Err(bad(format!("the saved position {pos} is over")));
            }
            let swapped = match r.u8()? {
                0 => false,
                1 => true,
                b => return Err(bad(format!("seat-exchange byte is {b}, not 0 or 1"))),
            };
            games.push((pos, swapped, r.u32()?));
            rngs.push(GameRng::from_state(r.u64()?));
            let reward = r.f32()?;
            if ![-1.0, 0.0, 1.0].contains(&reward) {
                return Err(bad(format!("reward {reward} is not -1, 0 or 1")));
            }
            let finished = match r.u8()? {
                0 => None,
                1 => {
                    let score = [r.u8()?, r.u8()?];
                    let len = r.u32()?;
                    let obs = (0..d).map(|_| r.f32()).collect::<Result<Vec<f32>, _>>()?;
                    Some((score, len, obs))
                }
                b => return Err(bad(format!("done byte is {b}, not 0 or 1"))),
            };
            last.push((reward, finished));
        }
        r.end()?;
        self.set_games(&games)
            .map_err(|e| StateError::Mismatch(e.to_string()))?;
        self.rng.copy_from_slice(&rngs);
        for (i, (reward, finished)) in last.into_iter().enumerate() {
            self.reward[i] = reward;
            if let Some((score, len, obs)) = finished {
                self.done[i] = true;
                self.final_score[[i, 0]] = score[0];
                self.final_score[[i, 1]] = score[1];
                self.final_len[i] = len;
                self.final_obs
                    .row_mut(i)
                    .assign(&ndarray::ArrayView1::from(&obs));
            }
        }
        Ok(())
    }

    /// Whether the players of game `i` exchanged seats by the pie rule (player 0 sits North).
    pub fn swapped(&self, i: usize) -> bool {
        self.swapped[i]
    }

    /// Moves played so far in game `i`'s current game.
    pub fn game_len(&self, i: usize) -> u32 {
        self.len[i]
    }

    /// The legal actions of game `i` as bits (bit `a` for action `a`).
    pub fn legal_bits(&self, i: usize) -> u16 {
        self.legal[i]
    }

    /// Plays `actions[i]` in game `i` for every game; games that end are reset at once (see the
    /// module documentation). Every action is checked first: if one is illegal, nothing changes
    /// and the error names the first bad game.
    pub fn step(&mut self, actions: &[u32]) -> Result<(), EnvError> {
        self.check(actions)?;
        self.step_checked(actions);
        Ok(())
    }

    /// [`VecEnv::step`] in the games that `skip` leaves out; the games it marks are left as they
    /// are, with reward 0 and not done (their action is not read). With the same-step reset every
    /// step makes, this is Gymnasium's next-step auto-reset in one call: a game that ended in the
    /// last step shows its final observation to the caller, and in this step, skipped, it shows
    /// the new game the last step already started.
    pub fn step_skipping(&mut self, actions: &[u32], skip: &[bool]) -> Result<(), EnvError> {
        if skip.len() != self.games {
            return Err(EnvError::Count {
                what: "skip",
                expected: self.games,
                got: skip.len(),
            });
        }
        if actions.len() != self.games {
            return Err(EnvError::Count {
                what: "actions",
                expected: self.games,
                got: actions.len(),
            });
        }
        let ok = |i: usize| {
            let a = actions[i];
            skip[i] || a < 16 && (self.legal[i] >> a) & 1 != 0
        };
        if let Some(game) = (0..self.games).find(|&i| !ok(i)) {
            return Err(self.illegal(game, actions[game]));
        }
        let (ctx, grain) = (self.ctx, self.grain);
        let choose = GivenOrSkip { actions, skip };
        kernel::step(&ctx, self.chunk(), grain, &choose);
        Ok(())
    }

    /// Plays a uniformly random legal action in every game, drawn from each game's own stream.
    pub fn step_random(&mut self) {
        let (ctx, grain) = (self.ctx, self.grain);
        kernel::step(&ctx, self.chunk(), grain, &Uniform);
    }

    /// Steps with actions known to be legal.
    pub(super) fn step_checked(&mut self, actions: &[u32]) {
        let (ctx, grain) = (self.ctx, self.grain);
        kernel::step(&ctx, self.chunk(), grain, &Given(actions));
    }

    /// The first game whose action is illegal, as an error.
    fn check(&self, actions: &[u32]) -> Result<(), EnvError> {
        if actions.len() != self.games {
            return Err(EnvError::Count {
                what: "actions",
                expected: self.games,
                got: actions.len(),
            });
        }
        let ok = |(&a, &l): (&u32, &u16)| a < 16 && (l >> a) & 1 != 0;
        let all_ok = if self.games >= 16 * DEFAULT_GRAIN {
            actions.par_iter().zip(self.legal.par_iter()).all(ok)
        } else {
            actions.iter().zip(&self.legal).all(ok)
        };
        if all_ok {
            return Ok(());
        }
        let game = actions
            .iter()
            .zip(&self.legal)
            .position(|x| !ok(x))
            .expect("a bad action");
        Err(self.illegal(game, actions[game]))
    }

    /// Why `action` is illegal in game `game`.
    pub(super) fn illegal(&self, game: usize, action: u32) -> EnvError {
        let m = self.ctx.rules.pits();
        if action as usize > m {
            return EnvError::OutOfRange {
                game,
                action,
                max: m,
            };
        }
        let mv = Move::from_action(action as usize, m);
        match self.position(game).play(mv) {
            Err(reason) => EnvError::Illegal {
                game,
                action,
                mv,
                reason,
            },
            Ok(_) => {
                unreachable!("game {game}: action {action} is legal but its mask bit is clear")
            }
        }
    }

    /// Views of every game's state and outputs.
    fn chunk(&mut self) -> Chunk<'_> {
        Chunk {
            start: 0,
            cells: &mut self.cells,
            seat: &mut self.seat,
            phase: &mut self.phase,
            swapped: &mut self.swapped,
            legal: &mut self.legal,
            len: &mut self.len,
            rng: &mut self.rng,
            obs: self.obs.as_slice_mut().expect("standard layout"),
            mask: self.mask.as_slice_mut().expect("standard layout"),
            to_play: self.to_play.as_slice_mut().expect("standard layout"),
            reward: self.reward.as_slice_mut().expect("standard layout"),
            done: self.done.as_slice_mut().expect("standard layout"),
            final_obs: self.final_obs.as_slice_mut().expect("standard layout"),
            final_score: self.final_score.as_slice_mut().expect("standard layout"),
            final_len: self.final_len.as_slice_mut().expect("standard layout"),
        }
    }

    /// Chooses every game's action with `choose` (game index, position, legal bits, player to
    /// move, a copy of the game's stream), then, if every game got one and (when `check`) every
    /// action is legal, keeps the advanced streams and steps. On error nothing changes and the
    /// error is the first bad game's.
    pub(super) fn step_chosen<F>(&mut self, check: bool, choose: F) -> Result<(), EnvError>
    where
        F: Fn(usize, &Position, u16, u8, &mut GameRng) -> Result<u32, EnvError> + Sync,
    {
        let rules = self.ctx.rules;
        let (cells, seat, phase, legal) = (&self.cells, &self.seat, &self.phase, &self.legal);
        let (to_play, rng) = (&self.to_play, &self.rng);
        let first_error = self
            .actions
            .par_iter_mut()
            .zip(self.rng_next.par_iter_mut())
            .enumerate()
            .find_map_first(|(i, (action, next))| {
                *next = rng[i];
                let pos = Position {
                    cells: cells[i],
                    to_move: seat[i],
                    phase: phase[i],
                    rules,
                };
                match choose(i, &pos, legal[i], to_play[i], next) {
                    Ok(a) => {
                        *action = a;
                        None
                    }
                    Err(e) => Some(e),
                }
            });
        if let Some(e) = first_error {
            return Err(e);
        }
        let actions = std::mem::take(&mut self.actions);
        let checked = if check { self.check(&actions) } else { Ok(()) };
        if checked.is_ok() {
            std::mem::swap(&mut self.rng, &mut self.rng_next);
            self.step_checked(&actions);
        }
        self.actions = actions;
        checked
    }
}
