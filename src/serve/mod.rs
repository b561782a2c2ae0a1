//! `kalaha serve`: a web board. A page embedded in the binary (one HTML file, inline CSS and
//! JavaScript, no build step; phone first, in English, Swedish, Danish and Norwegian) and a JSON
//! API over the same games as `kalaha play`: levels easy, medium, hard (the network trained for
//! the rules) and strongest (the solver guarding hard's search; `perfect` is taken as its older
//! name), practice mode, undo/redo, hints that name the pit and say what is proven, a review of
//! every move by the solver, an analysis board and game records.
//!
//! Levels and proofs. `POST /api/levels` names each level's bot as a spec other commands take
//! (`greedy`, `minimax:6`, `policy:auto:64`, `guard:0.9:policy:auto:64`; never a path of the
//! server) beside the release id of its network. Every move the strongest level plays carries
//! `"proof"`: `optimal` (proven best), `keeps_result` (proven to keep the result the position is
//! worth) or `not_proven` (the network chose among the moves not proven to change it); other
//! levels' moves and the person's carry `null`. A hint (and an analysis) names the move to play
//! as the strongest level would choose it (`hint`: the move, what it does, its proof and the
//! proven bounds of its result) and each move's proof. Errors carry a `code` besides the message
//! ([`error::codes`]): the page says the code in the player's language.
//!
//! - [`game`]: one game, its opponent, and what each move did (its sowing path).
//! - [`engine`]: networks loaded once at start (each on batching threads its games share:
//!   [`crate::nn::batch`]), a solver per rule set, the time limits.
//! - [`jobs`]: bot moves and proofs off the request path, the heavy and network queues, and the
//!   flags that cancel a job when its game is abandoned or moves on, its client goes, or the
//!   server stops.
//! - [`store`]: the games by id, bounded by number and idle time.
//! - [`solvers`]: one solver a rule set, shared by its games, within a memory budget.
//! - [`api`]: the handlers; [`error`]: `{"error": "..."}` replies.
//! - [`record`]: game records in the project's notation.
//! - [`client`]: a small blocking HTTP client for the tests and the load test.
//!
//! Routes: `GET /` the page; `GET /api/info`; `POST /api/levels` (rules → each level's bot);
//! `POST /api/games` (`{rules, level, side, practice}` or `{record, ...}`); `GET|DELETE
//! /api/games/{id}`; `POST /api/games/{id}/move` (`{move, reply}`), `/bot`, `/undo`, `/redo`;
//! `GET /api/games/{id}/hint?time=S`, `/review`, `/record`; `POST /api/analyse` (`{rules,
//! position, time_limit}`). No request reads or writes a file: the networks are read at start and
//! the solvers build their endgame databases in memory.
//!
//! # Running it for others
//!
//! By default the server listens on 127.0.0.1 and answers only requests whose `Host` header names
//! it (`localhost`, `127.0.0.1` or `[::1]` with its port), so a web page the local user visits
//! cannot read it through DNS rebinding. Every request passes [`guard`] first: a `POST` body only
//! as `application/json` (else 415), a `POST`/`PUT`/`DELETE` whose `Origin` names another site
//! refused (403), unknown JSON and query keys refused (400 naming the key), every number checked
//! against its range (400 naming the field; time limits: 0 to 366 days, cut to the server's
//! limits below). Game ids are 128 bits from the operating system's randomness: a game is reachable only
//! by whoever was given its id.
//!
//! Behind a reverse proxy (TLS, a public name): keep `--host 127.0.0.1`, give the public name with
//! `--allow-host kalaha.example.org` (repeatable; any port), and, if the proxy sets a header with
//! the client's address on every request, `--client-header X-Forwarded-For` so that the
//! per-client limits count clients, not the proxy (without it, every client behind the proxy is
//! one client; never name a header the proxy does not overwrite: a client could then be anyone).
//!
//! Which limits are whose:
//! - **Each client** (by remote address, or the proxy's header): at most `--max-games-per-client`
//!   games (1,000; past it its own least recently used goes) and `--heavy-per-client` heavy jobs
//!   (proofs, searches, level perfect's moves) waiting or running (4; past it 429 with
//!   `Retry-After`).
//! - **Everyone together**: at most `--max-games` games (10,000; past it, room is made among the
//!   games of the client holding the most, so one client cannot evict another's games unless it
//!   holds more than it), games idle for `--idle-minutes` dropped, `--heavy-queue` heavy jobs
//!   waiting for a place (64; past it 429 with `Retry-After`), one place a core, and bodies of
//!   16 KiB.
//! - **Each request**: the time limits of [`Limits`] (a hint 3 s, a review 0.3 s a move, an
//!   analysis 10 s, the strongest level's solver 0.9 s a move), whatever the request asks. A
//!   review judges each position once a game (a later review of the same game judges only the
//!   moves since), and stops within milliseconds of its client leaving, as hints and analyses do.
//!
//! **Memory.** What the server holds is bounded by its flags, not by what clients ask:
//! - the networks of level hard (and of the strongest level, which guards it), loaded once at
//!   start with their batching threads, within `--network-memory-mb` (640 MiB): each is
//!   estimated before it is read (its weights file, its endgame database at one byte a board,
//!   8 MiB for its threads: [`engine::network_memory`]) and one past the budget is not loaded
//!   (its rules' level hard then plays `mcts:2000`, said on stderr). The shipped networks of the
//!   ten presets (six networks, each with an 18-seed database of 82 MiB) estimate 556 MiB and
//!   hold about 500 MiB; `GET /api/info` lists them under `networks` (`tests/serve_memory.rs`
//!   checks that what they hold stays within the estimate and the estimate within the budget);
//!   `--no-networks`: none;
//! - the solvers, `--solver-memory-mb` in all (768 MiB; 96 MiB each, so 8 rule sets at
//!   once). Games, hints, reviews and analyses under one rule set share its solver; no game holds
//!   one between its moves, so a deleted, evicted or finished game holds nothing. A new rule set
//!   past the budget replaces the least recently used solver no job is using (it is built again,
//!   about a second, when next needed); where every solver is in use, which takes as many rule
//!   sets as heavy places, the request is refused with 503 and `Retry-After`. A solver is built
//!   outside the pool's lock: nothing else waits for it but the requests for the same rules;
//! - the games, `--max-games` of a few KiB each (a game of level hard also holds its network
//!   player's search).
//!
//! The server's resident memory is then about the networks plus the solvers' budget, under
//! 1.5 GiB with the default flags. Measured (`tests/serve_memory.rs`, which checks the 1.5 GiB):
//! 60 games at level perfect (now strongest) on 60 rule sets, one move each, with the shipped
//! networks:
//! 504 MiB at start, a peak (`VmHWM`) of 1,275 MiB with the default budget (1,287 MiB on
//! 2026-12-07 with the strongest level; 1,467 MiB with 960 MiB); without a budget the same run
//! peaked at 6,265 MiB. Give the solvers more with `--solver-memory-mb` where memory allows
//! (96 MiB more for each rule set kept warm).

pub mod api;
pub mod client;
pub mod engine;
pub mod error;
pub mod game;
pub mod guard;
pub mod jobs;
pub mod record;
pub mod solvers;
pub mod store;

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};

pub use engine::{Engines, Limits, preset_rules};

use crate::rules::Rules;

/// How the server is set up.
#[derive(Clone, Debug)]
pub struct ServeConfig {
    /// Address to bind (localhost unless told otherwise).
    pub host: String,
    /// Port (0: any free port).
    pub port: u16,
    /// Most games held at once; past it the least recently used game of the client holding the
    /// most goes.
    pub max_games: usize,
    /// Most games one client (by address) holds at once; past it its own least recently used
    /// goes.
    pub max_games_per_client: usize,
    /// Host names allowed in the Host and Origin headers besides the bound address (a reverse
    /// proxy's public name).
    pub allow_hosts: Vec<String>,
    /// A header naming the client's address, set by a trusted reverse proxy (e.g.
    /// `X-Forwarded-For`); none: the remote address.
    pub client_header: Option<String>,
    /// A game with no request for this long is dropped.
    pub idle: Duration,
    /// Largest request body, in bytes.
    pub max_body: usize,
    /// Time limits and the heavy-job queue.
    pub limits: Limits,
    /// Rule sets whose network (level hard) is loaded at start.
    pub preload: Vec<Rules>,
}

impl Default for ServeConfig {
    fn default() -> ServeConfig {
        ServeConfig {
            host: "127.0.0.1".into(),
            port: 8080,
            max_games: 10_000,
            max_games_per_client: 1_000,
            allow_hosts: Vec::new(),
            client_header: None,
            idle: Duration::from_secs(6 * 3600),
            max_body: 16 * 1024,
            limits: Limits::default(),
            preload: preset_rules(),
        }
    }
}

/// The router over a shared [`api::App`].
pub fn router(app: Arc<api::App>, max_body: usize) -> Router {
    Router::new()
        .route("/", get(api::page))
        .route("/api/info", get(api::info))
        .route("/api/levels", post(api::levels))
        .route("/api/games", post(api::create))
        .route("/api/games/{id}", get(api::state).delete(api::delete))
        .route("/api/games/{id}/move", post(api::play))
        .route("/api/games/{id}/bot", post(api::bot))
        .route("/api/games/{id}/undo", post(api::undo))
        .route("/api/games/{id}/redo", post(api::redo))
        .route("/api/games/{id}/hint", get(api::hint))
        .route("/api/games/{id}/review", get(api::review))
        .route("/api/games/{id}/record", get(api::record_text))
        .route("/api/analyse", post(api::analyse))
        .fallback(api::not_found)
        .method_not_allowed_fallback(api::method_not_allowed)
        .layer(DefaultBodyLimit::max(max_body))
        .layer(axum::middleware::from_fn_with_state(
            Arc::clone(&app),
            guard::check,
        ))
        .with_state(app)
}

/// Loads the networks (blocking: reads the checkpoints) and makes the shared state; fails on a
/// bad `--allow-host` or `--client-header`.
pub fn load(config: &ServeConfig) -> anyhow::Result<Arc<api::App>> {
    let guard = guard::Guard::new(&config.allow_hosts, config.client_header.as_deref())?;
    let l = &config.limits;
    Ok(Arc::new(api::App {
        engines: Engines::load(&config.preload, l.clone()),
        store: store::Store::new(config.max_games, config.max_games_per_client, config.idle),
        jobs: jobs::Jobs::new(
            l.heavy_jobs,
            l.heavy_queue,
            l.heavy_per_client,
            l.network_jobs,
        ),
        guard,
    }))
}

/// Serves `app` on `listener` until `shutdown` completes, then cancels the jobs in flight (their
/// requests answer 503 at once) and finishes the requests.
pub async fn serve(
    app: Arc<api::App>,
    listener: tokio::net::TcpListener,
    max_body: usize,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    // Idle games go even when nobody creates new ones.
    let sweeper = {
        let app = Arc::clone(&app);
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(Duration::from_secs(60)).await;
                app.store.sweep();
            }
        })
    };
    let stop = {
        let app = Arc::clone(&app);
        async move {
            shutdown.await;
            app.jobs.stop_all();
        }
    };
    app.guard.bind(listener.local_addr()?);
    let service =
        router(Arc::clone(&app), max_body).into_make_service_with_connect_info::<SocketAddr>();
    let r = axum::serve(listener, service)
        .with_graceful_shutdown(stop)
        .await;
    sweeper.abort();
    Ok(r?)
}

/// Runs the server until Ctrl-C: loads the networks, binds, calls `ready` with the address, then
/// serves.
pub fn run(config: ServeConfig, ready: impl FnOnce(SocketAddr)) -> anyhow::Result<()> {
    let app = load(&config)?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind((config.host.as_str(), config.port))
            .await
            .with_context(|| format!("cannot listen on {}:{}", config.host, config.port))?;
        ready(listener.local_addr()?);
        serve(app, listener, config.max_body, async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await
    })
}

/// A server running on its own thread (for tests and the load test).
pub struct Running {
    /// The address it listens on.
    pub addr: SocketAddr,
    /// The shared state (games, engines).
    pub app: Arc<api::App>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<anyhow::Result<()>>>,
}

impl Running {
    /// Stops the server gracefully and waits for its thread.
    pub fn stop(mut self) -> anyhow::Result<()> {
        self.shutdown()
    }

    fn shutdown(&mut self) -> anyhow::Result<()> {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        match self.thread.take() {
            Some(t) => t
                .join()
                .map_err(|_| anyhow::anyhow!("the server thread panicked"))?,
            None => Ok(()),
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.shutdown();
    }
}

/// Starts a server on its own thread and runtime; returns once it listens.
pub fn spawn(config: ServeConfig) -> anyhow::Result<Running> {
    let app = load(&config)?;
    let listener = std::net::TcpListener::bind((config.host.as_str(), config.port))
        .with_context(|| format!("cannot listen on {}:{}", config.host, config.port))?;
    listener.set_nonblocking(true)?;
    let addr = listener.local_addr()?;
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let shared = Arc::clone(&app);
    let max_body = config.max_body;
    let thread = std::thread::spawn(move || -> anyhow::Result<()> {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()?;
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener)?;
            serve(shared, listener, max_body, async {
                let _ = rx.await;
            })
            .await
        })
    });
    Ok(Running {
        addr,
        app,
        stop: Some(tx),
        thread: Some(thread),
    })
}
