//! `kalaha serve` against a stranger and a careless user (issue 54): game ids that tell nothing
//! about one another, hostile requests each refused with a 4xx JSON error naming the problem
//! (the server answering normally afterwards), one client unable to evict another's games or to
//! queue more than its share of heavy work, and hostile command lines each ending with exit
//! code 2 and no panic.

use std::collections::HashSet;
use std::net::{IpAddr, SocketAddr};
use std::process::Command;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use kalaha::serve::client::{Reply, request_with};
use kalaha::serve::{Limits, Running, ServeConfig, spawn};
use serde_json::{Value, json};

/// One server for the hostile requests and the ids: no network, short limits.
fn server() -> SocketAddr {
    static SERVER: OnceLock<Running> = OnceLock::new();
    SERVER
        .get_or_init(|| {
            spawn(ServeConfig {
                port: 0,
                preload: vec![],
                max_games_per_client: 5_000,
                allow_hosts: vec!["kalaha.example.org".into()],
                limits: Limits {
                    perfect_move: Duration::from_millis(200),
                    hint: Duration::from_millis(300),
                    review: Duration::from_millis(50),
                    analyse: Duration::from_millis(300),
                    heavy_per_client: 1_000,
                    heavy_queue: 1_000,
                    ..Limits::default()
                },
                ..ServeConfig::default()
            })
            .expect("the server starts")
        })
        .addr
}

fn send(
    addr: SocketAddr,
    from: Option<IpAddr>,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&[u8]>,
) -> Reply {
    request_with(addr, from, method, path, headers, body).expect("the server answers")
}

fn post(addr: SocketAddr, from: Option<IpAddr>, path: &str, body: Value) -> Reply {
    send(
        addr,
        from,
        "POST",
        path,
        &[],
        Some(body.to_string().as_bytes()),
    )
}

fn practice_game(addr: SocketAddr, from: Option<IpAddr>) -> String {
    let r = post(addr, from, "/api/games", json!({"practice": true}));
    assert_eq!(r.status, 200, "{}", r.body);
    r.json()["id"].as_str().unwrap().to_string()
}

fn ip(text: &str) -> Option<IpAddr> {
    Some(text.parse().unwrap())
}

#[test]
fn game_ids_are_128_random_bits() {
    let addr = server();
    let ids: Vec<String> = (0..1000).map(|_| practice_game(addr, None)).collect();
    let unique: HashSet<&String> = ids.iter().collect();
    assert_eq!(unique.len(), ids.len(), "ids repeat");
    let values: Vec<u128> = ids
        .iter()
        .map(|id| {
            assert!(
                id.len() >= 32 && id.chars().all(|c| c.is_ascii_hexdigit()),
                "id '{id}' is not 128 bits of hex"
            );
            u128::from_str_radix(&id[..32], 16).unwrap()
        })
        .collect();
    // Each of the 128 bits is set in about half the ids (1000 fair coins: 500 ± 16; ±100 is six
    // standard deviations): a counter, a time stamp or a 64-bit id leaves bits fixed.
    for bit in 0..128 {
        let ones = values.iter().filter(|v| (*v >> bit) & 1 == 1).count();
        assert!(
            (400..=600).contains(&ones),
            "bit {bit} is set in {ones} of 1000 ids"
        );
    }
    // Consecutive ids share no structure: about 64 bits differ, never fewer than 30, and no two
    // share their first 6 hex digits or a constant difference.
    let mut total = 0u32;
    let mut diffs = HashSet::new();
    for w in values.windows(2) {
        let d = (w[0] ^ w[1]).count_ones();
        assert!(d >= 30, "consecutive ids differ in {d} bits only");
        total += d;
        diffs.insert(w[1].wrapping_sub(w[0]));
    }
    let mean = f64::from(total) / 999.0;
    assert!((60.0..=68.0).contains(&mean), "mean distance {mean}");
    assert_eq!(diffs.len(), 999, "consecutive ids differ by a constant");
    let prefixes: HashSet<&str> = ids.iter().map(|id| &id[..6]).collect();
    assert!(prefixes.len() >= 995, "ids share prefixes");
    for id in &ids {
        let r = send(addr, None, "DELETE", &format!("/api/games/{id}"), &[], None);
        assert_eq!(r.status, 200, "{}", r.body);
    }
}

/// One hostile request: what is sent, the status expected, and words the error must hold.
struct Hostile {
    method: &'static str,
    path: String,
    headers: Vec<(&'static str, String)>,
    body: Option<Vec<u8>>,
    status: u16,
    names: &'static str,
}

fn h(
    method: &'static str,
    path: &str,
    body: Option<Value>,
    status: u16,
    names: &'static str,
) -> Hostile {
    Hostile {
        method,
        path: path.to_string(),
        headers: vec![],
        body: body.map(|b| b.to_string().into_bytes()),
        status,
        names,
    }
}

fn raw_body(
    method: &'static str,
    path: &str,
    body: &[u8],
    status: u16,
    names: &'static str,
) -> Hostile {
    Hostile {
        body: Some(body.to_vec()),
        ..h(method, path, None, status, names)
    }
}

fn with(mut x: Hostile, name: &'static str, value: &str) -> Hostile {
    x.headers.push((name, value.to_string()));
    x
}

const START: &str = "4,4,4,4,4,4,0/4,4,4,4,4,4,0 s";

fn hostile_list(addr: SocketAddr, id: &str) -> Vec<Hostile> {
    let hint = |q: &str| format!("/api/games/{id}/hint?time={q}");
    let mv = format!("/api/games/{id}/move");
    let port = addr.port();
    let analyse = |extra: Value| {
        let mut b = json!({"position": START});
        for (k, v) in extra.as_object().unwrap() {
            b[k] = v.clone();
        }
        b
    };
    let nested = format!("{}{}", "[".repeat(5000), "]".repeat(5000));
    vec![
        // Numbers out of range, each a 400 naming its field.
        h("GET", &hint("1e30"), None, 400, "'time'"),
        h("GET", &hint("NaN"), None, 400, "'time'"),
        h("GET", &hint("inf"), None, 400, "'time'"),
        h("GET", &hint("-1"), None, 400, "'time'"),
        h("GET", &hint("abc"), None, 400, "'time'"),
        h("GET", &hint("1e400"), None, 400, "'time'"),
        h("GET", &hint("%FF"), None, 400, "'time'"),
        h(
            "POST",
            "/api/analyse",
            Some(analyse(json!({"time_limit": 1e30}))),
            400,
            "'time_limit'",
        ),
        h(
            "POST",
            "/api/analyse",
            Some(analyse(json!({"time_limit": -1}))),
            400,
            "'time_limit'",
        ),
        h(
            "POST",
            "/api/analyse",
            Some(analyse(json!({"time_limit": 1e300}))),
            400,
            "'time_limit'",
        ),
        raw_body(
            "POST",
            "/api/analyse",
            format!(r#"{{"position": "{START}", "time_limit": 1e400}}"#).as_bytes(),
            400,
            "time_limit",
        ),
        h(
            "POST",
            "/api/analyse",
            Some(analyse(json!({"time_limit": "fast"}))),
            400,
            "time_limit",
        ),
        h(
            "POST",
            "/api/games",
            Some(json!({"seed": -1})),
            400,
            "'seed'",
        ),
        h(
            "POST",
            "/api/games",
            Some(json!({"seed": 1e30})),
            400,
            "'seed'",
        ),
        raw_body(
            "POST",
            "/api/games",
            b"{\"seed\": 18446744073709551616}",
            400,
            "'seed'",
        ),
        h(
            "POST",
            "/api/games",
            Some(json!({"rules": {"pits": 1000}})),
            400,
            "pits",
        ),
        h(
            "POST",
            "/api/games",
            Some(json!({"rules": {"pits": 0}})),
            400,
            "pits",
        ),
        h(
            "POST",
            "/api/games",
            Some(json!({"rules": {"seeds": 100000}})),
            400,
            "seeds",
        ),
        h(
            "POST",
            "/api/games",
            Some(json!({"rules": {"pits": -1}})),
            400,
            "'rules.pits'",
        ),
        h(
            "POST",
            "/api/games",
            Some(json!({"rules": {"pits": 4294967296u64}})),
            400,
            "'rules.pits'",
        ),
        h("POST", &mv, Some(json!({"move": 1e30})), 400, "'move'"),
        h("POST", &mv, Some(json!({"move": -3})), 400, "'move'"),
        h("POST", &mv, Some(json!({"move": 256})), 422, "pit 256"),
        h("POST", &mv, Some(json!({"move": [1]})), 400, "'move'"),
        h("POST", &mv, Some(json!({"move": "x"})), 400, "'move'"),
        h(
            "POST",
            &mv,
            Some(json!({"move": 1, "reply": "yes"})),
            400,
            "'reply'",
        ),
        // Unknown keys anywhere in a body.
        h(
            "POST",
            "/api/levels",
            Some(json!({"pits": 6, "evil": 1})),
            400,
            "evil",
        ),
        h(
            "POST",
            "/api/levels",
            Some(json!({"rules": {"pits": 6}})),
            400,
            "rules",
        ),
        h(
            "POST",
            "/api/games",
            Some(json!({"practice": true, "admin": true})),
            400,
            "admin",
        ),
        h(
            "POST",
            "/api/games",
            Some(json!({"rules": {"pits": 6, "mode": 2}})),
            400,
            "mode",
        ),
        h(
            "POST",
            "/api/analyse",
            Some(analyse(json!({"extra": 1}))),
            400,
            "extra",
        ),
        h(
            "POST",
            &mv,
            Some(json!({"move": 1, "as": "north"})),
            400,
            "as",
        ),
        // Other bad values.
        h(
            "POST",
            "/api/games",
            Some(json!({"level": "godlike"})),
            400,
            "level",
        ),
        h(
            "POST",
            "/api/games",
            Some(json!({"side": "east"})),
            400,
            "side",
        ),
        h(
            "POST",
            "/api/games",
            Some(json!({"practice": "yes"})),
            400,
            "'practice'",
        ),
        h(
            "POST",
            "/api/games",
            Some(json!({"record": "not a record at all"})),
            400,
            "record",
        ),
        h(
            "POST",
            "/api/analyse",
            Some(json!({"position": "99999999999999999999,4,4,4,4,4,0/4,4,4,4,4,4,0 s"})),
            400,
            "position",
        ),
        h(
            "POST",
            "/api/analyse",
            Some(json!({"position": "255,255,255,255,255,255,0/4,4,4,4,4,4,0 s"})),
            400,
            "position",
        ),
        h("POST", "/api/analyse", Some(json!({})), 400, "position"),
        // Bodies that are not JSON objects, or too large.
        raw_body("POST", "/api/games", b"{", 400, "JSON"),
        raw_body("POST", "/api/games", b"[]", 400, "JSON"),
        raw_body("POST", "/api/games", b"null", 400, "JSON"),
        raw_body("POST", "/api/games", b"\xff\xfe{}", 400, "JSON"),
        raw_body("POST", "/api/games", nested.as_bytes(), 400, "JSON"),
        raw_body("POST", "/api/games", &vec![b' '; 64 * 1024], 413, "body"),
        // Content-Type: only application/json.
        with(
            h("POST", "/api/games", Some(json!({})), 415, "Content-Type"),
            "Content-Type",
            "text/plain",
        ),
        with(
            h("POST", "/api/games", Some(json!({})), 415, "Content-Type"),
            "Content-Type",
            "",
        ),
        with(
            h("POST", "/api/games", Some(json!({})), 415, "Content-Type"),
            "Content-Type",
            "application/x-www-form-urlencoded",
        ),
        with(
            h(
                "POST",
                &format!("/api/games/{id}/undo"),
                None,
                415,
                "Content-Type",
            ),
            "Content-Type",
            "multipart/form-data; boundary=x",
        ),
        with(
            h("POST", "/api/levels", Some(json!({})), 415, "Content-Type"),
            "Content-Type",
            "application/jsonp",
        ),
        // Host: the bound address, or an allowed name.
        with(
            h("GET", "/api/info", None, 403, "Host"),
            "Host",
            "evil.example",
        ),
        with(
            h("GET", "/", None, 403, "Host"),
            "Host",
            &format!("rebind.example:{port}"),
        ),
        with(
            h("GET", "/api/info", None, 403, "Host"),
            "Host",
            "localhost:1",
        ),
        with(
            h("GET", "/api/info", None, 403, "Host"),
            "Host",
            "127.0.0.1",
        ),
        with(
            h("GET", &format!("/api/games/{id}"), None, 403, "Host"),
            "Host",
            "kalaha.example.org.evil.example",
        ),
        with(h("GET", "/api/info", None, 400, "Host"), "Host", ""),
        // Origin: a state-changing request from another site.
        with(
            h("POST", "/api/games", Some(json!({})), 403, "Origin"),
            "Origin",
            "http://evil.example",
        ),
        with(
            h("DELETE", &format!("/api/games/{id}"), None, 403, "Origin"),
            "Origin",
            "https://evil.example",
        ),
        with(
            h("POST", &mv, Some(json!({"move": 1})), 403, "Origin"),
            "Origin",
            "null",
        ),
        with(
            h("POST", "/api/games", Some(json!({})), 403, "Origin"),
            "Origin",
            "http://localhost:1",
        ),
        with(
            h("POST", "/api/games", Some(json!({})), 403, "Origin"),
            "Origin",
            &format!("http://127.0.0.1:{port}/path"),
        ),
        // Routes and ids that are not there.
        h(
            "GET",
            &format!("/api/games/{}", "f".repeat(4000)),
            None,
            404,
            "no game",
        ),
        h("GET", "/api/games/../../etc/passwd", None, 404, "no such"),
        h("PUT", "/api/games", Some(json!({})), 405, "method"),
    ]
}

#[test]
fn hostile_requests_are_refused_and_the_server_goes_on() {
    let addr = server();
    let id = practice_game(addr, None);
    let list = hostile_list(addr, &id);
    assert!(list.len() >= 40, "{} hostile requests", list.len());
    for x in &list {
        let headers: Vec<(&str, &str)> = x.headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let r = send(addr, None, x.method, &x.path, &headers, x.body.as_deref());
        let what = format!(
            "{} {} {:?} {}",
            x.method,
            &x.path[..x.path.len().min(80)],
            x.headers,
            x.body
                .as_ref()
                .map_or(String::new(), |b| String::from_utf8_lossy(
                    &b[..b.len().min(80)]
                )
                .to_string())
        );
        assert_eq!(r.status, x.status, "{what}: {}", r.body);
        let error = r.json()["error"].as_str().unwrap_or("").to_string();
        assert!(
            error.contains(x.names),
            "{what}: the error '{error}' does not name {}",
            x.names
        );
        // The server still answers, and the game is as it was.
        let ok = send(addr, None, "GET", &format!("/api/games/{id}"), &[], None);
        assert_eq!(ok.status, 200, "after {what}: {}", ok.body);
        assert_eq!(
            ok.json()["history"].as_array().unwrap().len(),
            0,
            "after {what}"
        );
    }
    // What is allowed still works: the allowed name, the page's own origin, a charset.
    let host = format!("localhost:{}", addr.port());
    let origin = format!("http://{host}");
    for headers in [
        vec![("Host", "kalaha.example.org")],
        vec![
            ("Host", "kalaha.example.org:443"),
            ("Origin", "https://kalaha.example.org"),
        ],
        vec![("Host", host.as_str()), ("Origin", origin.as_str())],
        vec![("Content-Type", "application/json; charset=utf-8")],
    ] {
        let r = send(
            addr,
            None,
            "POST",
            "/api/games",
            &headers,
            Some(b"{\"practice\": true}"),
        );
        assert_eq!(r.status, 200, "{headers:?}: {}", r.body);
    }
    let r = send(addr, None, "GET", &hint("1e-3", &id), &[], None);
    assert_eq!(r.status, 200, "{}", r.body);
}

fn hint(time: &str, id: &str) -> String {
    format!("/api/games/{id}/hint?time={time}")
}

#[test]
fn one_client_cannot_evict_another() {
    let running = spawn(ServeConfig {
        port: 0,
        preload: vec![],
        max_games: 10,
        max_games_per_client: 6,
        ..ServeConfig::default()
    })
    .unwrap();
    let addr = running.addr;
    let (a, b, c) = (ip("127.0.0.2"), ip("127.0.0.3"), ip("127.0.0.4"));
    let mine: Vec<String> = (0..3).map(|_| practice_game(addr, a)).collect();
    // B makes far more than its share: only its own games go.
    let theirs: Vec<String> = (0..40).map(|_| practice_game(addr, b)).collect();
    assert_eq!(running.app.store.held_by(b.unwrap()), 6);
    // C fills the store: room is made among the games of whoever holds the most (B), never A's.
    for _ in 0..6 {
        practice_game(addr, c);
    }
    assert!(running.app.store.len() <= 10);
    for id in &mine {
        let r = send(addr, a, "GET", &format!("/api/games/{id}"), &[], None);
        assert_eq!(r.status, 200, "A's game {id} was evicted: {}", r.body);
    }
    assert_eq!(running.app.store.held_by(a.unwrap()), 3);
    assert!(running.app.store.held_by(b.unwrap()) < 6);
    assert!(!running.app.store.contains(&theirs[0]));
    running.stop().unwrap();
}

#[test]
fn heavy_jobs_are_bounded_per_client_and_in_all() {
    let long = Duration::from_secs(600);
    let running = spawn(ServeConfig {
        port: 0,
        preload: vec![],
        limits: Limits {
            perfect_move: long,
            hint: long,
            review: long,
            analyse: long,
            heavy_jobs: 1,
            heavy_queue: 2,
            heavy_per_client: 2,
            network_jobs: 1,
            ..Limits::default()
        },
        ..ServeConfig::default()
    })
    .unwrap();
    let addr = running.addr;
    // Kalah(6,6)'s opening: no proof ends within minutes here.
    let slow = json!({"rules": {"pits": 6, "seeds": 6}, "position": "6,6,6,6,6,6,0/6,6,6,6,6,6,0 s", "time_limit": 600});
    let (a, b, c) = (ip("127.0.0.2"), ip("127.0.0.3"), ip("127.0.0.4"));
    let spawn_slow = |from: Option<IpAddr>| {
        let body = slow.to_string();
        std::thread::spawn(move || {
            request_with(
                addr,
                from,
                "POST",
                "/api/analyse",
                &[],
                Some(body.as_bytes()),
            )
            .unwrap()
        })
    };
    let info = || send(addr, None, "GET", "/api/info", &[], None).json()["jobs"].clone();
    let wait_for = |what: &dyn Fn(&Value) -> bool| {
        let t = Instant::now();
        loop {
            let j = info();
            if what(&j) {
                return;
            }
            assert!(t.elapsed() < Duration::from_secs(60), "jobs stuck at {j}");
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    // A: one running, one waiting.
    let a1 = spawn_slow(a);
    wait_for(&|j| j["running"] == 1 && j["waiting"] == 0);
    let a2 = spawn_slow(a);
    wait_for(&|j| j["waiting"] == 1);
    // A's third is past its share.
    let r = post(addr, a, "/api/analyse", slow.clone());
    assert_eq!(r.status, 429, "{}", r.body);
    assert!(
        r.json()["error"].as_str().unwrap().contains("this client"),
        "{}",
        r.body
    );
    assert!(r.header("retry-after").is_some(), "{:?}", r.headers);
    // B still gets its place in the queue.
    let b1 = spawn_slow(b);
    wait_for(&|j| j["waiting"] == 2);
    // C finds the queue full.
    let r = post(addr, c, "/api/analyse", slow.clone());
    assert_eq!(r.status, 429, "{}", r.body);
    assert!(
        r.json()["error"]
            .as_str()
            .unwrap()
            .contains("queue is full"),
        "{}",
        r.body
    );
    assert!(r.header("retry-after").is_some(), "{:?}", r.headers);
    // Light requests still pass.
    assert_eq!(send(addr, c, "GET", "/api/info", &[], None).status, 200);
    running.stop().unwrap();
    for t in [a1, a2, b1] {
        let r = t.join().unwrap();
        assert_eq!(r.status, 503, "{}", r.body);
    }
}

/// The binary under test.
fn kalaha(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_kalaha"))
        .args(args)
        .env(
            "KALAHA_CACHE",
            std::env::temp_dir().join("kalaha-hostile-cache"),
        )
        .output()
        .expect("kalaha runs")
}

#[test]
fn hostile_command_lines_exit_2_without_a_panic() {
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["solve", "--time-limit", "1e30"], "--time-limit"),
        (vec!["solve", "--time-limit", "inf"], "--time-limit"),
        (vec!["solve", "--time-limit", "NaN"], "--time-limit"),
        (vec!["solve", "--time-limit=-1"], "--time-limit"),
        (vec!["solve", "--time-limit", "0"], "--time-limit"),
        (vec!["solve", "--time-limit", "1e400"], "--time-limit"),
        (vec!["solve", "--time-limit", "soon"], "--time-limit"),
        (vec!["solve", "--time-limit", "1.8e308"], "--time-limit"),
        (
            vec!["analyse", "--bot", "greedy", "--time-limit", "1e30"],
            "--time-limit",
        ),
        (
            vec!["analyse", "--bot", "greedy", "--time-limit=-5"],
            "--time-limit",
        ),
        (
            vec!["analyse", "--bot", "greedy", "--time-limit", "nan"],
            "--time-limit",
        ),
        (
            vec!["analyse", "--bot", "greedy", "--time-limit=-inf"],
            "--time-limit",
        ),
        (
            vec!["analyse", "--bot", "greedy", "--time-limit", "40000000"],
            "--time-limit",
        ),
        (vec!["solve", "--pits", "1000"], "pits"),
        (vec!["solve", "--seeds", "99999999999"], "--seeds"),
        (
            vec!["solve", "--memory", "99999999999999999999999"],
            "--memory",
        ),
        (
            vec![
                "solve",
                "--position",
                "99999999999999999999,4,4,4,4,4,0/4,4,4,4,4,4,0 s",
            ],
            "position",
        ),
        (vec!["solve", "--moves", "99999"], "99999"),
        (
            vec!["serve", "--no-networks", "--max-games", "0"],
            "--max-games",
        ),
        (
            vec!["serve", "--no-networks", "--max-games", "99999999999"],
            "--max-games",
        ),
        (
            vec![
                "serve",
                "--no-networks",
                "--idle-minutes",
                "18446744073709551615",
            ],
            "--idle-minutes",
        ),
        (vec!["serve", "--no-networks", "--port", "70000"], "--port"),
        (
            vec!["serve", "--no-networks", "--heavy-per-client", "0"],
            "--heavy-per-client",
        ),
        (
            vec!["serve", "--no-networks", "--max-games-per-client=-1"],
            "--max-games-per-client",
        ),
        (
            vec![
                "serve",
                "--no-networks",
                "--allow-host",
                "evil/host",
                "--port",
                "0",
            ],
            "--allow-host",
        ),
        (
            vec![
                "serve",
                "--no-networks",
                "--client-header",
                "bad header",
                "--port",
                "0",
            ],
            "--client-header",
        ),
        (
            vec!["serve", "--no-networks", "--solver-memory-mb", "0"],
            "--solver-memory-mb",
        ),
        (
            vec!["serve", "--no-networks", "--solver-memory-mb", "1e30"],
            "--solver-memory-mb",
        ),
    ];
    // Config numbers: each refused naming its key, before the run writes anything (its folders
    // are pointed away from checkpoints/ all the same).
    let runs = std::env::temp_dir().join(format!("kalaha-hostile-runs-{}", std::process::id()));
    let dirs = [
        format!("run.checkpoint_dir={}", runs.display()),
        format!("run.experiment_dir={}", runs.display()),
    ];
    let train = |set: &'static str| -> Vec<String> {
        let mut v: Vec<String> = ["train", "--config", "configs/smoke.toml"]
            .map(String::from)
            .into();
        for s in dirs.iter().map(String::as_str).chain([set]) {
            v.push("--set".into());
            v.push(s.into());
        }
        v
    };
    let config_cases: Vec<(Vec<String>, &str)> = vec![
        (
            train("selfplay.label_time_limit=1e30"),
            "selfplay.label_time_limit",
        ),
        (
            train("selfplay.label_time_limit=inf"),
            "selfplay.label_time_limit",
        ),
        (
            train("selfplay.label_time_limit=-1"),
            "selfplay.label_time_limit",
        ),
        (
            train("eval.solver_time_limit=1e30"),
            "eval.solver_time_limit",
        ),
        (
            train("eval.solver_time_limit=nan"),
            "eval.solver_time_limit",
        ),
        (train("selfplay.no_such_key=1"), "no_such_key"),
        (train("run.iterations=1e30"), "iterations"),
    ];
    let config_cases: Vec<(Vec<&str>, &str)> = config_cases
        .iter()
        .map(|(a, n)| (a.iter().map(String::as_str).collect(), *n))
        .collect();
    let cases: Vec<(Vec<&str>, &str)> = cases.into_iter().chain(config_cases).collect();
    assert!(cases.len() >= 20);
    for (args, names) in &cases {
        let out = kalaha(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(
            stderr.contains(names),
            "{args:?}: the error does not name {names}: {stderr}"
        );
    }
    assert!(!runs.exists(), "a refused config wrote {}", runs.display());
}
