//! `kalaha serve`: parses the flags and runs the web board (module [`crate::serve`]).

use std::time::Duration;

use clap::Args;

use super::{emit, emit_json};
use crate::serve::{ServeConfig, run};

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address to listen on (localhost by default; 0.0.0.0 opens it to the network).
    #[arg(long, default_value = "127.0.0.1")]
    host: String,
    /// Port (0: any free port; the address to open is printed).
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// Most games held at once (the least recently used goes first).
    #[arg(long, default_value_t = 10_000)]
    max_games: usize,
    /// Minutes without a request after which a game is dropped.
    #[arg(long, default_value_t = 360)]
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
        max_games: a.max_games,
        idle: Duration::from_secs(a.idle_minutes.max(1) * 60),
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
