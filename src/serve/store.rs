//! The games in play, by id: a bounded map where games idle longer than a limit are dropped, and
//! where room is made among the games of the client that holds the most (its least recently used
//! first), so that one client can push out only its own games while it holds more than anyone
//! else; each client (by remote address) also holds at most `max_per_client` games, its own least
//! recently used going first. A game that goes (deleted, idle, or pushed out) has its abandoned
//! flag set, which cancels its jobs (see [`super::jobs`]).
//!
//! Ids are 128 bits from the operating system's randomness ([`new_id`]): nothing about one id
//! tells anything about another.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::error::{ApiError, codes};
use super::game::GameState;

/// Bytes of randomness in a game id (128 bits, written as 32 hex digits).
pub const ID_BYTES: usize = 16;

/// A new game id: [`ID_BYTES`] bytes from the operating system's randomness, in hex.
pub fn new_id() -> Result<String, ApiError> {
    let mut bytes = [0u8; ID_BYTES];
    getrandom::fill(&mut bytes)
        .map_err(|e| ApiError::internal(format!("no randomness for a game id: {e}")))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// One game behind its own lock: a request that finds it held (a bot thinking) is refused.
pub type Shared = Arc<tokio::sync::Mutex<GameState>>;

struct Entry {
    game: Shared,
    /// The game's abandoned flag (also in the game, reachable here without its lock, which a
    /// thinking bot holds).
    abandoned: Arc<AtomicBool>,
    last: Instant,
    /// The client that made it.
    owner: IpAddr,
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
    max_per_client: usize,
    idle: Duration,
}

impl Store {
    /// A store of at most `max_games` games, at most `max_per_client` of one client, each dropped
    /// after `idle` without a request.
    pub fn new(max_games: usize, max_per_client: usize, idle: Duration) -> Store {
        Store {
            games: Mutex::new(HashMap::new()),
            max_games: max_games.max(1),
            max_per_client: max_per_client.max(1),
            idle,
        }
    }

    fn lock(&self) -> Result<std::sync::MutexGuard<'_, HashMap<String, Entry>>, ApiError> {
        self.games
            .lock()
            .map_err(|_| ApiError::internal("the game store is poisoned"))
    }

    /// Adds a game made by `owner` and returns its id: first drops idle games; then, while the
    /// owner holds its most, its own least recently used game; then, while the store is full,
    /// the least recently used game of the client holding the most games (the owner's own
    /// whenever it holds as many as anyone).
    pub fn insert(&self, game: GameState, owner: IpAddr) -> Result<(String, Shared), ApiError> {
        let abandoned = game.abandoned_flag();
        let shared = Arc::new(tokio::sync::Mutex::new(game));
        let mut games = self.lock()?;
        let mut id = new_id()?;
        while games.contains_key(&id) {
            id = new_id()?;
        }
        let owned =
            |games: &HashMap<String, Entry>| games.values().filter(|e| e.owner == owner).count();
        if games.len() >= self.max_games || owned(&games) >= self.max_per_client {
            let now = Instant::now();
            games.retain(|_, e| now.duration_since(e.last) < self.idle);
        }
        while owned(&games) >= self.max_per_client {
            if !remove_oldest(&mut games, owner) {
                break;
            }
        }
        while games.len() >= self.max_games {
            let mut counts: HashMap<IpAddr, usize> = HashMap::new();
            for e in games.values() {
                *counts.entry(e.owner).or_default() += 1;
            }
            let most = counts.values().copied().max().unwrap_or(0);
            // The owner first among those holding the most.
            let victim = if counts.get(&owner) == Some(&most) {
                owner
            } else {
                match counts
                    .iter()
                    .filter(|(_, n)| **n == most)
                    .min_by_key(|(ip, _)| **ip)
                {
                    Some((ip, _)) => *ip,
                    None => break,
                }
            };
            if !remove_oldest(&mut games, victim) {
                break;
            }
        }
        games.insert(
            id.clone(),
            Entry {
                game: Arc::clone(&shared),
                abandoned,
                last: Instant::now(),
                owner,
            },
        );
        Ok((id, shared))
    }

    /// Games held now by `owner`.
    pub fn held_by(&self, owner: IpAddr) -> usize {
        self.lock()
            .map_or(0, |g| g.values().filter(|e| e.owner == owner).count())
    }

    /// Whether the game `id` is held (without marking it used).
    pub fn contains(&self, id: &str) -> bool {
        self.lock().is_ok_and(|g| g.contains_key(id))
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
                ))
                .with_code(codes::GAME_GONE))
            }
            None => {
                Err(ApiError::not_found(format!("there is no game '{id}'"))
                    .with_code(codes::GAME_GONE))
            }
        }
    }

    /// Drops the game `id`.
    pub fn remove(&self, id: &str) -> Result<(), ApiError> {
        match self.lock()?.remove(id) {
            Some(_) => Ok(()),
            None => {
                Err(ApiError::not_found(format!("there is no game '{id}'"))
                    .with_code(codes::GAME_GONE))
            }
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

    /// The most games one client holds at once.
    pub fn max_per_client(&self) -> usize {
        self.max_per_client
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

/// Drops `owner`'s least recently used game; false if it holds none.
fn remove_oldest(games: &mut HashMap<String, Entry>, owner: IpAddr) -> bool {
    let oldest = games
        .iter()
        .filter(|(_, e)| e.owner == owner)
        .min_by_key(|(_, e)| e.last)
        .map(|(k, _)| k.clone());
    match oldest {
        Some(k) => games.remove(&k).is_some(),
        None => false,
    }
}
