//! `kalaha serve`'s memory (issue 54). The networks: loaded once at start within their budget
//! (`--network-memory-mb`), their resident memory no more than the server's estimate of it.
//! The solvers, with many rule sets at the strongest level: the real binary, with
//! its networks, its default limits and its default solver budget, plays one strongest move in each
//! of 60 games on 60 rule sets, and its peak resident memory (the kernel's `VmHWM`) stays under
//! [`BUDGET_MIB`], the figure "Running it for others" in `src/serve/mod.rs` documents. Each
//! solver's table fills within one move (96 MiB), so without the solver budget the same run
//! peaks past 5 GiB: `KALAHA_SERVE_FLAGS="--solver-memory-mb 1048576" cargo test --release --test
//! serve_memory` shows it (the flags are added to the server's command line).

#![cfg(target_os = "linux")]

use std::io::{BufRead as _, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::time::Instant;

use kalaha::serve::client::request;
use serde_json::{Value, json};

/// The documented bound on the server's resident memory, in MiB.
const BUDGET_MIB: u64 = 1536;

/// The server, killed when dropped.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A field of `/proc/PID/status` in KiB (`VmRSS`, `VmHWM`).
fn status_kib(pid: u32, field: &str) -> u64 {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    text.lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or_else(|| panic!("no {field} in /proc/{pid}/status"))
}

/// 60 rule sets: Kalah(6,4) under every capture, leftover, end and pie choice (36), and
/// Kalah(6,3) under 24 of them.
fn rule_sets() -> Vec<Value> {
    let mut out = Vec::new();
    for seeds in [4, 3] {
        for capture in ["standard", "empty", "off"] {
            for leftover in ["owner", "emptier", "discard"] {
                for end in ["immediate", "on-turn"] {
                    for pie in [false, true] {
                        out.push(json!({"pits": 6, "seeds": seeds, "capture": capture,
                            "leftover": leftover, "end": end, "pie": pie}));
                    }
                }
            }
        }
    }
    out.truncate(60);
    out
}

fn call(addr: SocketAddr, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
    let text = body.map(|b| b.to_string());
    let r = request(addr, method, path, text.as_deref().map(str::as_bytes)).unwrap();
    (r.status, r.json())
}

/// Starts `kalaha serve` with `flags`; the server (killed when dropped), its pid and address.
fn start(flags: &[&str]) -> (Server, u32, SocketAddr) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kalaha"))
        .args(["serve", "--port", "0", "--json"])
        .args(flags)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("kalaha serve starts");
    let stdout = child.stdout.take().unwrap();
    let pid = child.id();
    let server = Server(child);
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line).unwrap();
    let url: Value = serde_json::from_str(&line).expect("the address as JSON");
    let addr: SocketAddr = url["url"]
        .as_str()
        .unwrap()
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .parse()
        .unwrap();
    (server, pid, addr)
}

/// The networks' memory: what the server holds for them (its resident memory at start less that
/// of a server started without networks) is no more than its own estimate (`/api/info`'s
/// `networks.memory_mb`, by which it keeps to `--network-memory-mb`) plus 5%, and the estimate
/// keeps to the budget: the default one (all the shipped networks fit) and one of 100 MiB (one
/// network, the others left out and counted).
#[test]
fn networks_are_loaded_within_their_memory_budget() {
    if !cfg!(feature = "train") {
        return;
    }
    let (_bare, bare_pid, _) = start(&["--no-networks"]);
    let bare_mib = status_kib(bare_pid, "VmRSS") / 1024;
    for (flags, budget) in [(vec![], 640u64), (vec!["--network-memory-mb", "100"], 100)] {
        let (_server, pid, addr) = start(&flags);
        let resident = status_kib(pid, "VmRSS") / 1024;
        let (_, info) = call(addr, "GET", "/api/info", None);
        let nets = &info["networks"];
        let estimate = nets["memory_mb"].as_f64().unwrap();
        let held = resident.saturating_sub(bare_mib);
        eprintln!(
            "{flags:?}: resident {resident} MiB, {bare_mib} MiB without networks: the networks hold {held} MiB, estimated {estimate} MiB within {budget} MiB; {nets}"
        );
        assert_eq!(nets["budget_mb"].as_u64(), Some(budget), "{nets}");
        assert!(
            estimate <= budget as f64,
            "the estimate passes the budget: {nets}"
        );
        assert!(
            held as f64 <= estimate * 1.05 + 16.0,
            "the networks hold {held} MiB, more than the estimate of {estimate} MiB: {nets}"
        );
        let loaded = nets["loaded"].as_array().unwrap().len();
        if budget == 100 {
            assert_eq!(loaded, 1, "{nets}");
            assert!(nets["refused"].as_u64().unwrap() >= 1, "{nets}");
        } else {
            assert!(
                loaded >= 6,
                "the shipped networks fit the default budget: {nets}"
            );
            assert_eq!(nets["refused"].as_u64(), Some(0), "{nets}");
        }
        for n in nets["loaded"].as_array().unwrap() {
            assert!(!n.to_string().contains('/'), "a path in {n}");
        }
    }
}

#[test]
fn sixty_strongest_games_on_sixty_rule_sets_stay_within_the_memory_budget() {
    let extra = std::env::var("KALAHA_SERVE_FLAGS").unwrap_or_default();
    let (_server, pid, addr) = start(&extra.split_whitespace().collect::<Vec<_>>());
    let start_mib = status_kib(pid, "VmRSS") / 1024;

    let started = Instant::now();
    let sets = rule_sets();
    assert_eq!(sets.len(), 60);
    // Four clients' worth of requests at once (one address: its share is 4 heavy jobs).
    let threads: Vec<_> = sets
        .chunks(15)
        .map(|chunk| {
            let chunk = chunk.to_vec();
            std::thread::spawn(move || {
                for rules in chunk {
                    let (status, g) = call(
                        addr,
                        "POST",
                        "/api/games",
                        Some(json!({"rules": rules, "level": "strongest", "side": "north"})),
                    );
                    assert_eq!(status, 200, "{rules}: {g}");
                    let id = g["id"].as_str().unwrap().to_string();
                    let (status, g) = call(addr, "POST", &format!("/api/games/{id}/bot"), None);
                    assert_eq!(status, 200, "{rules}: {g}");
                    assert!(!g["plies"].as_array().unwrap().is_empty(), "{g}");
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let (_, info) = call(addr, "GET", "/api/info", None);
    let solvers = &info["solvers"];
    let peak_mib = status_kib(pid, "VmHWM") / 1024;
    let now_mib = status_kib(pid, "VmRSS") / 1024;
    eprintln!(
        "60 strongest games on 60 rule sets in {:.0} s: resident {start_mib} MiB at start, {now_mib} MiB at the end, peak {peak_mib} MiB (budget {BUDGET_MIB}); solvers {solvers}",
        started.elapsed().as_secs_f64()
    );
    assert_eq!(info["games"].as_u64(), Some(60), "{info}");
    assert!(
        peak_mib < BUDGET_MIB,
        "peak resident memory {peak_mib} MiB, over the budget of {BUDGET_MIB} MiB; solvers {solvers}"
    );
    let most = solvers["most"].as_u64().unwrap();
    assert!(solvers["held"].as_u64().unwrap() <= most, "{solvers}");
    // Every rule set got its solver; all but the last `most` were dropped for room.
    assert!(solvers["built"].as_u64().unwrap() >= 60, "{solvers}");
    assert!(
        solvers["dropped"].as_u64().unwrap() >= 60 - most,
        "{solvers}"
    );
}
