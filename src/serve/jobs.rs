//! The work done off the request path: bot moves, network views and solver proofs, each on
//! tokio's blocking threads (the heavy ones behind a queue of as many places as there are cores;
//! moves of a network whose games share its batching threads behind a queue of their own, much
//! larger, since such a move mostly waits for its batch), each with the flags that cancel it.
//!
//! A job is cancelled when its game is abandoned (deleted, or dropped from the store for being
//! idle or for room), when the game moves on under a hint or a review (a move, an undo, a redo),
//! when the client that asked for a proof goes away (its request is dropped), or when the server
//! stops. Solver proofs poll these flags as they search ([`Solver::analyse_cancellable`]) and stop
//! within milliseconds; a bot's move checks them between its plies and never plays a move its
//! game no longer waits for; a network's search (at most a few hundred simulations) is not
//! interrupted and ends within its own budget. A cancelled job gives its queue place and thread
//! back as soon as it returns, writes nothing into its game, is counted, and is logged on stderr.
//!
//! [`Solver::analyse_cancellable`]: crate::solver::Solver::analyse_cancellable

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use axum::http::StatusCode;
use serde_json::{Value, json};
use tokio::sync::Semaphore;

use super::error::{ApiError, codes};

/// A new flag, not set.
pub fn flag() -> Arc<AtomicBool> {
    Arc::new(AtomicBool::new(false))
}

/// The flags of a game that cancel its jobs, taken while its lock was held.
#[derive(Clone, Debug)]
pub struct Watch {
    /// The game's id.
    pub id: String,
    /// Set when the game is deleted or dropped from the store.
    pub abandoned: Arc<AtomicBool>,
    /// Set when the game changes after the job was asked for (none for the bot's own move).
    pub moved: Option<Arc<AtomicBool>>,
}

/// What a job is and what may cancel it.
pub struct Job {
    /// What it does, in words (for the log and the errors).
    pub kind: &'static str,
    /// The queue it waits in for a place.
    pub place: Place,
    /// The game it works for, if any.
    pub game: Option<Watch>,
    /// Cancelled when the request that asked for it is dropped (its client went away).
    pub follows_request: bool,
    /// The client that asked for it (its heavy jobs are counted against its share).
    pub client: IpAddr,
}

/// The queue a job waits in before it runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// None: it runs at once (a quick bot's move, a new game without a solver).
    Free,
    /// The heavy queue, one place a core: a search, the solver, a network called alone.
    Heavy,
    /// The network queue: moves of a network whose evaluations are batched across games
    /// ([`crate::nn::batch`]); they spend most of their time waiting for their batch.
    Network,
}

/// Why a job was cancelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Why {
    /// The server is stopping.
    Stopping,
    /// The game was deleted or dropped from the store.
    Abandoned,
    /// The game changed under the job.
    MovedOn,
    /// The client went away.
    Disconnected,
}

impl Why {
    /// In words.
    pub fn text(self) -> &'static str {
        match self {
            Why::Stopping => "the server is stopping",
            Why::Abandoned => "the game was deleted or dropped",
            Why::MovedOn => "the game moved on",
            Why::Disconnected => "the client went away",
        }
    }

    fn error(self, job: &Job) -> ApiError {
        let what = job.kind;
        match (self, &job.game) {
            (Why::Stopping, _) => ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                codes::STOPPING,
                format!("the server is stopping: the {what} was cancelled"),
            ),
            (Why::Abandoned, Some(w)) => ApiError::not_found(format!(
                "game '{}' was deleted or dropped: its {what} was cancelled",
                w.id
            ))
            .with_code(codes::GAME_GONE),
            (Why::MovedOn, Some(w)) => ApiError::conflict(
                codes::GAME_CHANGED,
                format!(
                    "game '{}' changed while its {what} ran: the {what} was cancelled; ask again",
                    w.id
                ),
            ),
            (why, _) => ApiError::conflict(
                codes::CANCELLED,
                format!("the {what} was cancelled: {}", why.text()),
            ),
        }
    }
}

/// The flags that cancel one job; any one set cancels it.
#[derive(Clone, Debug)]
pub struct Cancel {
    stopping: Arc<AtomicBool>,
    abandoned: Option<Arc<AtomicBool>>,
    moved: Option<Arc<AtomicBool>>,
    request: Option<Arc<AtomicBool>>,
}

impl Cancel {
    /// Flags that are never set (for work outside a job).
    pub fn never() -> Cancel {
        Cancel {
            stopping: flag(),
            abandoned: None,
            moved: None,
            request: None,
        }
    }

    /// The flags, to hand to the solver.
    pub fn flags(&self) -> Vec<&AtomicBool> {
        std::iter::once(&self.stopping)
            .chain(&self.abandoned)
            .chain(&self.moved)
            .chain(&self.request)
            .map(|f| f.as_ref())
            .collect()
    }

    /// Why the job is cancelled, if it is.
    pub fn why(&self) -> Option<Why> {
        let set =
            |f: &Option<Arc<AtomicBool>>| f.as_ref().is_some_and(|f| f.load(Ordering::Relaxed));
        if self.stopping.load(Ordering::Relaxed) {
            Some(Why::Stopping)
        } else if set(&self.abandoned) {
            Some(Why::Abandoned)
        } else if set(&self.moved) {
            Some(Why::MovedOn)
        } else if set(&self.request) {
            Some(Why::Disconnected)
        } else {
            None
        }
    }

    /// Whether the job is cancelled.
    pub fn is_set(&self) -> bool {
        self.why().is_some()
    }
}

/// Sets its flag when dropped: held by the request's future, so that a request dropped by the
/// server (its client gone) cancels its job.
struct SetOnDrop(Arc<AtomicBool>);

impl Drop for SetOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// A job waiting for its place, counted in `waiting`; counted cancelled if dropped before it
/// `started` (its request went away, or the server stopped; from then on its thread counts it).
struct Queued {
    counts: Arc<Counts>,
    kind: &'static str,
    started: bool,
}

impl Queued {
    fn new(counts: &Arc<Counts>, kind: &'static str) -> Queued {
        counts.waiting.fetch_add(1, Ordering::Relaxed);
        Queued {
            counts: Arc::clone(counts),
            kind,
            started: false,
        }
    }

    /// The job has its place: no longer waiting, and not cancelled here.
    fn start(mut self) {
        self.started = true;
    }
}

impl Drop for Queued {
    fn drop(&mut self) {
        self.counts.waiting.fetch_sub(1, Ordering::Relaxed);
        if !self.started {
            self.counts.cancelled.fetch_add(1, Ordering::Relaxed);
            eprintln!(
                "kalaha serve: {} cancelled before it started: it waited for a place",
                self.kind
            );
        }
    }
}

/// The job runner: the heavy and network queues, the server's stop flag and the counts.
pub struct Jobs {
    heavy: Arc<Semaphore>,
    network: Arc<Semaphore>,
    stopping: Arc<AtomicBool>,
    counts: Arc<Counts>,
    shares: Arc<Shares>,
}

/// The heavy queue's bounds: jobs waiting for a place (all clients), and jobs waiting or running
/// of each client.
struct Shares {
    max_waiting: usize,
    per_client: usize,
    /// Heavy jobs waiting now and, by client, waiting or running.
    held: Mutex<(usize, HashMap<IpAddr, usize>)>,
}

/// A heavy job's share, taken before it queues: given back (the client's count) when dropped.
struct Share {
    shares: Arc<Shares>,
    client: IpAddr,
    waiting: bool,
}

impl Share {
    /// Takes a share for `client`'s heavy job, or says why not (429).
    fn take(shares: &Arc<Shares>, client: IpAddr, kind: &str) -> Result<Share, ApiError> {
        let mut held = shares
            .held
            .lock()
            .map_err(|_| ApiError::internal("the job shares are poisoned"))?;
        let mine = held.1.get(&client).copied().unwrap_or(0);
        if mine >= shares.per_client {
            return Err(ApiError::busy(format!(
                "too many heavy jobs: this client has {mine} waiting or running (at most {} a client); the {kind} was not queued",
                shares.per_client
            )));
        }
        if held.0 >= shares.max_waiting {
            return Err(ApiError::busy(format!(
                "the heavy-job queue is full ({} waiting); the {kind} was not queued",
                held.0
            )));
        }
        held.0 += 1;
        *held.1.entry(client).or_default() += 1;
        Ok(Share {
            shares: Arc::clone(shares),
            client,
            waiting: true,
        })
    }

    /// The job has its place: no longer waiting (still counted for its client).
    fn started(&mut self) {
        if self.waiting {
            self.waiting = false;
            if let Ok(mut held) = self.shares.held.lock() {
                held.0 = held.0.saturating_sub(1);
            }
        }
    }
}

impl Drop for Share {
    fn drop(&mut self) {
        self.started();
        if let Ok(mut held) = self.shares.held.lock()
            && let Some(n) = held.1.get_mut(&self.client)
        {
            *n = n.saturating_sub(1);
            if *n == 0 {
                held.1.remove(&self.client);
            }
        }
    }
}

#[derive(Default)]
struct Counts {
    waiting: AtomicU64,
    running: AtomicU64,
    finished: AtomicU64,
    cancelled: AtomicU64,
}

impl Jobs {
    /// A runner with `heavy_places` places for heavy jobs (at most `heavy_queue` more waiting
    /// for one, at most `heavy_per_client` of one client waiting or running) and
    /// `network_places` for batched network moves.
    pub fn new(
        heavy_places: usize,
        heavy_queue: usize,
        heavy_per_client: usize,
        network_places: usize,
    ) -> Jobs {
        Jobs {
            heavy: Arc::new(Semaphore::new(heavy_places.max(1))),
            network: Arc::new(Semaphore::new(network_places.max(1))),
            stopping: flag(),
            counts: Arc::default(),
            shares: Arc::new(Shares {
                max_waiting: heavy_queue,
                per_client: heavy_per_client.max(1),
                held: Mutex::new((0, HashMap::new())),
            }),
        }
    }

    /// Cancels every job, running or queued, and refuses new ones: the server is stopping.
    pub fn stop_all(&self) {
        self.stopping.store(true, Ordering::Relaxed);
        self.heavy.close();
        self.network.close();
    }

    /// Jobs cancelled so far.
    pub fn cancelled(&self) -> u64 {
        self.counts.cancelled.load(Ordering::Relaxed)
    }

    /// The counts as JSON: jobs waiting for a place, running, finished, cancelled, and the heavy
    /// and network queues' free places.
    pub fn json(&self) -> Value {
        let c = &self.counts;
        json!({
            "waiting": c.waiting.load(Ordering::Relaxed),
            "running": c.running.load(Ordering::Relaxed),
            "finished": c.finished.load(Ordering::Relaxed),
            "cancelled": c.cancelled.load(Ordering::Relaxed),
            "heavy_places_free": self.heavy.available_permits(),
            "network_places_free": self.network.available_permits(),
        })
    }

    /// Runs `f` on a blocking thread (after waiting for a place in `job.place`'s queue), handing it
    /// the flags that cancel it. A job cancelled before it starts does not run; one cancelled
    /// while it runs returns an error, never its result. A heavy job past its client's share or
    /// a full heavy queue is refused at once (429).
    pub async fn run<T: Send + 'static>(
        &self,
        job: Job,
        f: impl FnOnce(&Cancel) -> T + Send + 'static,
    ) -> Result<T, ApiError> {
        let mut share = match job.place {
            Place::Heavy => Some(Share::take(&self.shares, job.client, job.kind)?),
            _ => None,
        };
        let request = job.follows_request.then(flag);
        let _guard = request.clone().map(SetOnDrop);
        let cancel = Cancel {
            stopping: Arc::clone(&self.stopping),
            abandoned: job.game.as_ref().map(|w| Arc::clone(&w.abandoned)),
            moved: job.game.as_ref().and_then(|w| w.moved.clone()),
            request,
        };
        // A request dropped while its job waits for a place cancels the job before it starts.
        let queued = Queued::new(&self.counts, job.kind);
        let queue = match job.place {
            Place::Free => None,
            Place::Heavy => Some(&self.heavy),
            Place::Network => Some(&self.network),
        };
        let permit = match queue {
            Some(q) => Some(
                Arc::clone(q)
                    .acquire_owned()
                    .await
                    .map_err(|_| Why::Stopping.error(&job))?,
            ),
            None => None,
        };
        queued.start();
        if let Some(s) = &mut share {
            s.started();
        }
        let counts = Arc::clone(&self.counts);
        let kind = job.kind;
        let id = job.game.as_ref().map(|w| w.id.clone());
        let (out, why) = tokio::task::spawn_blocking(move || {
            // The queue place and the client's share go back when the work does, even if the
            // request was dropped.
            let _permit = permit;
            let _share = share;
            let started = Instant::now();
            let out = match cancel.why() {
                Some(_) => None,
                None => {
                    counts.running.fetch_add(1, Ordering::Relaxed);
                    let out = f(&cancel);
                    counts.running.fetch_sub(1, Ordering::Relaxed);
                    Some(out)
                }
            };
            let why = cancel.why();
            match why {
                Some(why) => {
                    counts.cancelled.fetch_add(1, Ordering::Relaxed);
                    eprintln!(
                        "kalaha serve: {kind}{} cancelled after {:.3} s: {}",
                        id.map_or(String::new(), |id| format!(" of game {id}")),
                        started.elapsed().as_secs_f64(),
                        why.text()
                    );
                }
                None => {
                    counts.finished.fetch_add(1, Ordering::Relaxed);
                }
            }
            (out, why)
        })
        .await
        .map_err(|e| ApiError::internal(format!("the {kind} failed: {e}")))?;
        match (out, why) {
            (Some(out), None) => Ok(out),
            (_, Some(why)) => Err(why.error(&job)),
            (None, None) => Err(ApiError::internal(format!("the {kind} did not run"))),
        }
    }
}
