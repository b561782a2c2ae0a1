//! A bounded load test of `kalaha serve` on loopback: a server started in-process, then for each
//! level N games at once, each played to the end by a client thread that picks random legal
//! moves (with a think time between them, like a person), timing every request. Prints latency
//! percentiles per level, failed requests, and the process's memory after.
//!
//! `cargo run --release --example serve_load -- --games 200 --think-ms 300 [--json]`

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use kalaha::env::rng::stream;
use kalaha::rules::Rules;
use kalaha::serve::client::request;
use kalaha::serve::{ServeConfig, spawn};
use rand::RngExt;
use serde_json::{Value, json};

struct Args {
    games: usize,
    think: Duration,
    levels: Vec<String>,
    json: bool,
}

fn args() -> Args {
    let mut a = Args {
        games: 200,
        think: Duration::from_millis(300),
        levels: ["easy", "medium", "hard", "strongest"]
            .map(String::from)
            .to_vec(),
        json: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().expect("a value after the flag");
        match flag.as_str() {
            "--games" => a.games = value().parse().expect("--games N"),
            "--think-ms" => {
                a.think = Duration::from_millis(value().parse().expect("--think-ms MS"))
            }
            "--levels" => a.levels = value().split(',').map(String::from).collect(),
            "--json" => a.json = true,
            other => panic!("unknown flag {other} (--games N --think-ms MS --levels a,b --json)"),
        }
    }
    a
}

/// One game to the end: the latencies of the person's moves (each with the bot's reply), and
/// the requests that failed.
fn play(addr: SocketAddr, level: &str, seed: u64, think: Duration) -> (Vec<f64>, Vec<f64>, usize) {
    let mut rng = stream(seed, 0);
    let (mut moves, mut others, mut failed) = (Vec::new(), Vec::new(), 0);
    let send = |method: &str, path: &str, body: Option<Value>, lat: &mut Vec<f64>| {
        let b = body.map(|b| b.to_string());
        let t = Instant::now();
        let r = request(addr, method, path, b.as_deref().map(str::as_bytes));
        lat.push(t.elapsed().as_secs_f64() * 1000.0);
        match r {
            Ok(r) if r.status == 200 => Some(r.json()),
            _ => None,
        }
    };
    let side = if seed.is_multiple_of(2) {
        "south"
    } else {
        "north"
    };
    let Some(mut g) = send(
        "POST",
        "/api/games",
        Some(json!({"level": level, "side": side, "seed": seed})),
        &mut others,
    ) else {
        return (moves, others, 1);
    };
    let id = g["id"].as_str().unwrap_or_default().to_string();
    for _ in 0..500 {
        if g["position"]["over"].as_bool().unwrap_or(true) {
            break;
        }
        std::thread::sleep(think.mul_f64(0.5 + rng.random::<f64>()));
        let next = if g["bot_to_move"].as_bool().unwrap_or(false) {
            send("POST", &format!("/api/games/{id}/bot"), None, &mut moves)
        } else {
            let legal = g["position"]["legal"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            let mv = legal[rng.random_range(0..legal.len())].clone();
            send(
                "POST",
                &format!("/api/games/{id}/move"),
                Some(json!({"move": mv})),
                &mut moves,
            )
        };
        match next {
            Some(v) => g = v,
            None => {
                failed += 1;
                break;
            }
        }
    }
    (moves, others, failed)
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn rss_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

fn main() -> anyhow::Result<()> {
    let a = args();
    let server = spawn(ServeConfig {
        port: 0,
        preload: vec![Rules::kalah64()],
        ..ServeConfig::default()
    })?;
    let addr = server.addr;
    let rss_start = rss_mib();
    let mut rows = Vec::new();
    for level in &a.levels {
        let started = Instant::now();
        let handles: Vec<_> = (0..a.games)
            .map(|i| {
                let level = level.clone();
                let think = a.think;
                std::thread::spawn(move || play(addr, &level, i as u64 + 1, think))
            })
            .collect();
        let (mut moves, mut others, mut failed) = (Vec::new(), Vec::new(), 0);
        for h in handles {
            let (m, o, f) = h.join().expect("a client thread");
            moves.extend(m);
            others.extend(o);
            failed += f;
        }
        moves.sort_by(f64::total_cmp);
        others.sort_by(f64::total_cmp);
        let row = json!({
            "level": level,
            "games": a.games,
            "moves": moves.len(),
            "failed": failed,
            "p50_ms": percentile(&moves, 0.5),
            "p90_ms": percentile(&moves, 0.9),
            "p95_ms": percentile(&moves, 0.95),
            "p99_ms": percentile(&moves, 0.99),
            "max_ms": moves.last().copied().unwrap_or(f64::NAN),
            "create_p50_ms": percentile(&others, 0.5),
            "seconds": started.elapsed().as_secs_f64(),
            "rss_mib_after": rss_mib(),
            "games_held": server.app.store.len(),
            // Cumulative over the levels run so far (only `hard` adds to them).
            "network_evaluations": server.app.engines.evaluations_json(),
        });
        if !a.json {
            println!(
                "{level:>8}: {} games, {} moves, {} failed; move p50 {:.1} ms, p90 {:.1}, p95 {:.1}, p99 {:.1}, max {:.1}; {:.0} s; RSS {:.0} MiB; network batches so far {} (mean {:.1} positions)",
                a.games,
                moves.len(),
                failed,
                row["p50_ms"].as_f64().unwrap_or(f64::NAN),
                row["p90_ms"].as_f64().unwrap_or(f64::NAN),
                row["p95_ms"].as_f64().unwrap_or(f64::NAN),
                row["p99_ms"].as_f64().unwrap_or(f64::NAN),
                row["max_ms"].as_f64().unwrap_or(f64::NAN),
                row["seconds"].as_f64().unwrap_or(0.0),
                row["rss_mib_after"].as_f64().unwrap_or(f64::NAN),
                row["network_evaluations"]["batches"],
                row["network_evaluations"]["mean_batch"]
                    .as_f64()
                    .unwrap_or(0.0),
            );
        }
        rows.push(row);
    }
    let out = json!({
        "hard": server.app.engines.spec(kalaha::play::Level::Hard, &Rules::kalah64()),
        "games_per_level": a.games,
        "think_ms": a.think.as_millis() as u64,
        "rss_mib_at_start": rss_start,
        "rss_mib_after": rss_mib(),
        "levels": rows,
    });
    if a.json {
        println!("{out}");
    } else {
        println!(
            "RSS at start {:.0} MiB, after {:.0} MiB, games held {}",
            rss_start,
            rss_mib(),
            server.app.store.len()
        );
    }
    server.stop()
}
