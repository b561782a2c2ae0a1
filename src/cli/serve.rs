//! `kalaha serve`: parses the flags and runs the web board (module [`crate::serve`]; its
//! "Running it for others" section says which limit is whose).

use std::time::Duration;

use clap::Args;

use super::{emit, emit_json};
use crate::serve::{Limits, ServeConfig, run};

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address to listen on (localhost by default; 0.0.0.0 opens it to the network).
    #[arg(long, default_value = "127.0.0.1")]
    host: String,
    /// Port (0: any free port; the address to open is printed).
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// A host name the Host and Origin headers may name besides the bound address (the public
    /// name of a reverse proxy in front); repeatable.
    #[arg(long, value_name = "NAME")]
    allow_host: Vec<String>,
    /// A header naming the client's address, set by a trusted reverse proxy (e.g.
    /// X-Forwarded-For): the per-client limits then count by it, not by the proxy's address.
    /// Only with a proxy that sets it on every request: a client could write it otherwise.
    #[arg(long, value_name = "HEADER")]
    client_header: Option<String>,
    /// Most games held at once, 1 to 1,000,000 (past it, the least recently used game of the
    /// client holding the most goes).
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    max_games: u32,
    /// Most games one client (by address) holds at once, 1 to 1,000,000 (past it, its own least
    /// recently used goes).
    #[arg(long, default_value_t = 1_000, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    max_games_per_client: u32,
    /// Heavy jobs (proofs, searches) waiting for a place, all clients together, 0 to 100,000
    /// (past it: 429 with Retry-After).
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(0..=100_000))]
    heavy_queue: u32,
    /// Heavy jobs of one client waiting or running, 1 to 10,000 (past it: 429 with Retry-After).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    heavy_per_client: u32,
    /// The solvers' memory in MiB, 96 to 1,048,576: one solver a rule set in play, 96 MiB each
    /// (past it a new rule set replaces a solver no job is using, or is refused with 503).
    #[arg(long, default_value_t = crate::serve::solvers::DEFAULT_BUDGET_MB as u32, value_parser = clap::value_parser!(u32).range(crate::serve::solvers::SOLVER_MEMORY_MB as i64..=1_048_576))]
    solver_memory_mb: u32,
    /// The networks' memory in MiB, 0 to 1,048,576: the networks of level hard (each with its
    /// endgame database) loaded at start while their estimated memory fits (past it a rule set's
    /// level hard plays mcts:2000, said on stderr).
    #[arg(long, default_value_t = crate::serve::engine::DEFAULT_NETWORK_BUDGET_MB as u32, value_parser = clap::value_parser!(u32).range(0..=1_048_576))]
    network_memory_mb: u32,
    /// Minutes without a request after which a game is dropped, 1 to 527,040 (a year).
    #[arg(long, default_value_t = 360, value_parser = clap::value_parser!(u64).range(1..=527_040))]
    idle_minutes: u64,
    /// Load no network at start (level hard then plays mcts:2000).
    #[arg(long)]
    no_networks: bool,
    /// Print the address as one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn run_args(a: ServeArgs) -> anyhow::Result<()> {
    let mut config = ServeConfig {
        host: a.host,
        port: a.port,
        max_games: a.max_games as usize,
        max_games_per_client: a.max_games_per_client as usize,
        allow_hosts: a.allow_host,
        client_header: a.client_header,
        idle: Duration::from_secs(a.idle_minutes * 60),
        limits: Limits {
            heavy_queue: a.heavy_queue as usize,
            heavy_per_client: a.heavy_per_client as usize,
            solver_memory_mb: a.solver_memory_mb as usize,
            network_memory_mb: a.network_memory_mb as usize,
            ..Limits::default()
        },
        ..ServeConfig::default()
    };
    if a.no_networks {
        config.preload.clear();
    }
    let json = a.json;
    run(config, move |addr| {
        let url = format!("http://{addr}/");
        let _ = if json {
            emit_json(&serde_json::json!({"url": url}))
        } else {
            emit(&format!(
                "kalaha: serving the board at {url} (Ctrl-C stops)\n"
            ))
        };
    })?;
    eprintln!("kalaha: stopped");
    Ok(())
}
