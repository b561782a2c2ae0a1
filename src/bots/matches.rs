//! Series of games between two bots with fixed seats, played in parallel.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};

use rayon::prelude::*;
use serde::Serialize;

use super::guard::Proof;
use super::{Player, Tally};
use crate::env::rng::{GameRng, stream};
use crate::rules::{Game, Position, Rules, Side};

/// What to play.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    /// Rules of every game.
    pub rules: Rules,
    /// The bot that starts as South.
    pub south: Player,
    /// The bot that starts as North.
    pub north: Player,
    /// Number of games.
    pub games: u32,
    /// Seed of the whole series: game `i` uses a generator derived from `(seed, i)`.
    pub seed: u64,
}

/// Totals of a series, by starting seat: after a pie swap the bot that started South still counts
/// as `south`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct MatchSummary {
    /// Games played.
    pub games: u32,
    /// Games won by the bot that started as South.
    pub south_wins: u32,
    /// Games won by the bot that started as North.
    pub north_wins: u32,
    /// Drawn games.
    pub draws: u32,
    /// Mean of (South bot's score minus North bot's).
    pub mean_margin: f64,
    /// Mean number of moves per game.
    pub mean_moves: f64,
}

/// The generator for game `index` of a series seeded with `seed`: [`stream`]`(seed, index)`, the
/// crate's one seeded stream.
pub fn game_rng(seed: u64, index: u64) -> GameRng {
    stream(seed, index)
}

/// Plays one game from `start` and returns it; `south` is the bot that starts in South's seat.
pub fn play_game(start: Position, south: &Player, north: &Player, rng: &mut GameRng) -> Game {
    play_game_gated(start, south, north, rng, None)
}

/// [`play_game`] among many games on more threads than cores: a player whose evaluations are
/// batched on threads of their own ([`Player::is_batched`]) thinks freely (its thread mostly
/// waits for a forward pass), any other holds one of `gate`'s places while it chooses a move.
pub fn play_game_gated(
    start: Position,
    south: &Player,
    north: &Player,
    rng: &mut GameRng,
    gate: Option<&Gate>,
) -> Game {
    play_game_proved(start, south, north, rng, gate).game
}

/// A game as [`play_game_proved`] played it, with a note on each move.
#[derive(Clone, Debug)]
pub struct PlayedGame {
    /// The whole game.
    pub game: Game,
    /// What the bot that made each move proved about it ([`super::Bot::last_proof`]: none for bots
    /// that do not prove).
    pub proofs: Vec<Option<Proof>>,
    /// The seconds each move's bot took to choose it (wall time, waits for a shared batch and
    /// for a place of the gate excluded).
    pub seconds: Vec<f32>,
}

/// [`play_game_gated`], with what each move's bot proved about it and how long it thought, one
/// note per move of the game.
pub fn play_game_proved(
    start: Position,
    south: &Player,
    north: &Player,
    rng: &mut GameRng,
    gate: Option<&Gate>,
) -> PlayedGame {
    let players = [south, north];
    let mut bots = [south.build(), north.build()];
    let mut played = PlayedGame {
        game: Game::from_position(start),
        proofs: Vec::new(),
        seconds: Vec::new(),
    };
    while !played.game.position().is_over() {
        let pos = *played.game.position();
        // The player in the seat to move is the bot that started there, or the other after a swap.
        let bot = played.game.seat_of(pos.to_move()).index();
        let _place = gate.filter(|_| !players[bot].is_batched()).map(Gate::hold);
        let clock = std::time::Instant::now();
        let mv = bots[bot].choose(&pos, rng);
        played.seconds.push(clock.elapsed().as_secs_f32());
        played.proofs.push(bots[bot].last_proof());
        played.game.play(mv).expect("bots play legal moves");
    }
    played
}

/// A counting semaphore: at most `places` holders at once, the others wait.
pub struct Gate {
    free: Mutex<usize>,
    freed: Condvar,
}

/// A place held in a [`Gate`], given back when dropped.
pub struct Place<'a>(&'a Gate);

impl Gate {
    /// A gate of `places` places (at least one).
    pub fn new(places: usize) -> Gate {
        Gate {
            free: Mutex::new(places.max(1)),
            freed: Condvar::new(),
        }
    }

    /// Waits for a free place and holds it.
    pub fn hold(&self) -> Place<'_> {
        let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
        while *free == 0 {
            free = self.freed.wait(free).unwrap_or_else(|e| e.into_inner());
        }
        *free -= 1;
        Place(self)
    }
}

impl Drop for Place<'_> {
    fn drop(&mut self) {
        *self.0.free.lock().unwrap_or_else(|e| e.into_inner()) += 1;
        self.0.freed.notify_one();
    }
}

/// Games played at once when a network player's evaluations are batched across games.
pub const BATCHED_GAMES: usize = 64;

/// Runs `play(i)` for every `i` in `order` on up to `threads` plain threads of their own, each
/// taking the next index when it finishes one; none starts once `stop` is set. The results of
/// those that ran, sorted by index.
///
/// Plain threads, not a rayon pool: a player that parallelises its own move with rayon (the
/// solver) would, while waiting on its helpers, run another game from the pool, whose gated move
/// then waits for a place with one held; with every place held so, no game moves. Here a move's
/// parallel work goes to rayon's global pool, which never runs a game.
pub fn play_on_threads<T: Send>(
    order: &[usize],
    threads: usize,
    stop: &AtomicBool,
    play: impl Fn(usize) -> T + Sync,
) -> Vec<(usize, T)> {
    let next = AtomicUsize::new(0);
    let done = Mutex::new(Vec::with_capacity(order.len()));
    let work = || {
        while !stop.load(Ordering::Relaxed) {
            let Some(&i) = order.get(next.fetch_add(1, Ordering::Relaxed)) else {
                break;
            };
            let result = play(i);
            done.lock()
                .unwrap_or_else(|e| e.into_inner())
                .push((i, result));
        }
    };
    std::thread::scope(|scope| {
        let spawned = (0..threads.clamp(1, order.len().max(1)))
            .map_while(|t| {
                std::thread::Builder::new()
                    .name(format!("kalaha-game-{t}"))
                    .spawn_scoped(scope, work)
                    .ok()
            })
            .count();
        // No thread could be started: play the games here.
        if spawned == 0 {
            work();
        }
    });
    let mut done = done.into_inner().unwrap_or_else(|e| e.into_inner());
    done.sort_by_key(|d| d.0);
    done
}

/// Margin of one finished game for the bot that started South.
fn south_bot_margin(game: &Game) -> i32 {
    let m = game.position().margin();
    if game.seat_of(Side::South) == Side::South {
        m
    } else {
        -m
    }
}

/// Plays the series in parallel; `on_game` is called once per finished game (from any thread).
/// Results do not depend on the number of threads.
pub fn run_match(cfg: &MatchConfig, on_game: &(dyn Fn() + Sync)) -> MatchSummary {
    run_match_until(cfg, on_game, &AtomicBool::new(false))
}

/// Like [`run_match`], but games not yet started when `stop` is set are skipped: the summary
/// counts the games that were played (each identical to its game in an uninterrupted series).
/// With a batched network player ([`Player::batched`]), [`BATCHED_GAMES`] games are played at
/// once so that its evaluations share forward passes; the games are the same.
pub fn run_match_until(
    cfg: &MatchConfig,
    on_game: &(dyn Fn() + Sync),
    stop: &AtomicBool,
) -> MatchSummary {
    let start = Position::start(&cfg.rules);
    let play = |i: usize, gate: Option<&Gate>| {
        let mut rng = game_rng(cfg.seed, i as u64);
        let game = play_game_gated(start, &cfg.south, &cfg.north, &mut rng, gate);
        on_game();
        (south_bot_margin(&game), game.history().len())
    };
    let results: Vec<(i32, usize)> = if cfg.south.is_batched() || cfg.north.is_batched() {
        // A batched network's games wait on forward passes: many at once fill its batches, while
        // the other player's moves think one per core.
        let gate = Gate::new(rayon::current_num_threads());
        let order: Vec<usize> = (0..cfg.games as usize).collect();
        play_on_threads(&order, BATCHED_GAMES, stop, |i| play(i, Some(&gate)))
            .into_iter()
            .map(|(_, r)| r)
            .collect()
    } else {
        (0..cfg.games as usize)
            .into_par_iter()
            .filter_map(|i| (!stop.load(Ordering::Relaxed)).then(|| play(i, None)))
            .collect()
    };
    summarize(&results)
}

fn summarize(results: &[(i32, usize)]) -> MatchSummary {
    let south: Tally = results.iter().map(|r| r.0).collect();
    let games = results.len() as u32;
    MatchSummary {
        games,
        south_wins: south.wins,
        north_wins: south.losses,
        draws: south.draws,
        mean_margin: south.mean_margin(),
        mean_moves: results.iter().map(|r| r.1 as f64).sum::<f64>() / games.max(1) as f64,
    }
}
