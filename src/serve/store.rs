//! The games in play, by id: a bounded map where the least recently used game goes first when it
//! is full, and games idle longer than a limit are dropped. A game that goes (deleted, idle, or
//! pushed out) has its abandoned flag set, which cancels its jobs (see [`super::jobs`]).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::error::ApiError;
use super::game::GameState;
use crate::env::rng::derive;

/// One game behind its own lock: a request that finds it held (a bot thinking) is refused.
pub type Shared = Arc<tokio::sync::Mutex<GameState>>;

struct Entry {
    game: Shared,
    /// The game's abandoned flag (also in the game, reachable here without its lock, which a
    /// thinking bot holds).
    abandoned: Arc<AtomicBool>,
    last: Instant,
}

impl Drop for Entry {
    /// A game leaving the store for any reason is abandoned: its jobs stop.
    fn drop(&mut self) {
        self.abandoned.store(true, Ordering::Relaxed);
    }
}

/// The games, bounded in number and idle time.
pub struct Store {
    games: Mutex<HashMap<String, Entry>>,
    max_games: usize,
    idle: Duration,
    counter: AtomicU64,
    salt: u64,
}

impl Store {
    /// A store of at most `max_games` games, each dropped after `idle` without a request.
    pub fn new(max_games: usize, idle: Duration) -> Store {
        let salt = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        Store {
            games: Mutex::new(HashMap::new()),
            max_games: max_games.max(1),
            idle,
            counter: AtomicU64::new(0),
            salt,
        }
    }

    fn lock(&self) -> Result<std::sync::MutexGuard<'_, HashMap<String, Entry>>, ApiError> {
        self.games
            .lock()
            .map_err(|_| ApiError::internal("the game store is poisoned"))
    }

    /// Adds a game and returns its id: first drops idle games, then, if still full, the least
    /// recently used one.
    pub fn insert(&self, game: GameState) -> Result<(String, Shared), ApiError> {
        let n = self.counter.fetch_add(1, Ordering::Relaxed);
        // Game `n` of the salt's stream: ids hard to guess from one another.
        let id = format!("{:016x}", derive(self.salt, n));
        let abandoned = game.abandoned_flag();
        let shared = Arc::new(tokio::sync::Mutex::new(game));
        let mut games = self.lock()?;
        if games.len() >= self.max_games {
            let now = Instant::now();
            games.retain(|_, e| now.duration_since(e.last) < self.idle);
        }
        while games.len() >= self.max_games {
            let Some(oldest) = games
                .iter()
                .min_by_key(|(_, e)| e.last)
                .map(|(k, _)| k.clone())
            else {
                break;
            };
            games.remove(&oldest);
        }
        games.insert(
            id.clone(),
            Entry {
                game: Arc::clone(&shared),
                abandoned,
                last: Instant::now(),
            },
        );
        Ok((id, shared))
    }

    /// The game `id`, marked as used now.
    pub fn get(&self, id: &str) -> Result<Shared, ApiError> {
        let mut games = self.lock()?;
        let idle = self.idle;
        match games.get_mut(id) {
            Some(e) if e.last.elapsed() < idle => {
                e.last = Instant::now();
                Ok(Arc::clone(&e.game))
            }
            Some(_) => {
                games.remove(id);
                Err(ApiError::not_found(format!(
                    "game '{id}' was dropped after {} s without a move",
                    idle.as_secs()
                )))
            }
            None => Err(ApiError::not_found(format!("there is no game '{id}'"))),
        }
    }

    /// Drops the game `id`.
    pub fn remove(&self, id: &str) -> Result<(), ApiError> {
        match self.lock()?.remove(id) {
            Some(_) => Ok(()),
            None => Err(ApiError::not_found(format!("there is no game '{id}'"))),
        }
    }

    /// Drops every game idle past the limit; the number left.
    pub fn sweep(&self) -> usize {
        let Ok(mut games) = self.lock() else {
            return 0;
        };
        let now = Instant::now();
        games.retain(|_, e| now.duration_since(e.last) < self.idle);
        games.len()
    }

    /// Games held now.
    pub fn len(&self) -> usize {
        self.lock().map_or(0, |g| g.len())
    }

    /// Whether no game is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
