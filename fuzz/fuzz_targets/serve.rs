//! `kalaha serve`'s handlers at the request level, through the whole router and its guard (no
//! socket): the input is a request in HTTP's shape, `METHOD PATH` on the first line, headers
//! (`Name: value`) to an empty line, then the body; `{id}` in the path is a game the server
//! holds. Every request gets an answer with a status below 500 (or 503/429 for load), JSON
//! naming the problem where refused, and never a panic.
#![no_main]

use std::net::SocketAddr;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{Method, Request};
use http_body_util::BodyExt;
use kalaha::serve::{Limits, ServeConfig, api::App, router};
use libfuzzer_sys::fuzz_target;
use tower::ServiceExt;

struct Server {
    rt: tokio::runtime::Runtime,
    app: Arc<App>,
    ids: Mutex<Vec<String>>,
    addr: SocketAddr,
}

/// The games every input may address (`{id}`): a practice game, one at level easy with moves
/// played, one at level perfect with the bot to move.
const GAMES: [&str; 3] = [
    r#"{"practice": true}"#,
    r#"{"record": "rules: pits=4 seeds=3\nmoves: 1,2", "level": "easy"}"#,
    r#"{"rules": {"pits": 3, "seeds": 2}, "level": "perfect", "side": "north"}"#,
];

fn server() -> &'static Server {
    static SERVER: OnceLock<Server> = OnceLock::new();
    SERVER.get_or_init(|| {
        let quick = Duration::from_millis(2);
        let config = ServeConfig {
            preload: vec![],
            max_games: 64,
            limits: Limits {
                perfect_move: quick,
                hint: quick,
                review: quick,
                analyse: quick,
                heavy_jobs: 1,
                heavy_per_client: 1_000,
                heavy_queue: 1_000,
                // Two small solvers at once: the fuzzer's rule sets come and go.
                solver_memory_mb: 192,
                ..Limits::default()
            },
            ..ServeConfig::default()
        };
        let app = kalaha::serve::load(&config).unwrap();
        let addr: SocketAddr = "127.0.0.1:8080".parse().unwrap();
        app.guard.bind(addr);
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        Server {
            rt,
            app,
            ids: Mutex::new(Vec::new()),
            addr,
        }
    })
}

impl Server {
    /// The id of game `i` of [`GAMES`], made again if it went (deleted by an input, or evicted).
    fn id(&self, i: usize) -> String {
        let mut ids = self.ids.lock().unwrap();
        if ids.len() < GAMES.len() {
            ids.resize(GAMES.len(), String::new());
        }
        if !self.app.store.contains(&ids[i]) {
            let (status, v) = self.call("POST", "/api/games", &[], GAMES[i].as_bytes());
            assert_eq!(status, 200, "{v}");
            ids[i] = v["id"].as_str().unwrap().to_string();
        }
        ids[i].clone()
    }

    fn call(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> (u16, serde_json::Value) {
        let Ok(method) = Method::from_bytes(method.as_bytes()) else {
            return (0, serde_json::Value::Null);
        };
        let mut req = Request::builder()
            .method(method)
            .uri(path)
            .header("host", self.addr.to_string());
        if !body.is_empty() {
            req = req.header("content-type", "application/json");
        }
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        let Ok(mut req) = req.body(Body::from(body.to_vec())) else {
            return (0, serde_json::Value::Null);
        };
        req.extensions_mut().insert(ConnectInfo(self.addr));
        let app = router(Arc::clone(&self.app), 16 * 1024);
        self.rt.block_on(async move {
            let r = app.oneshot(req).await.expect("the router answers");
            let status = r.status().as_u16();
            let is_json = r
                .headers()
                .get("content-type")
                .is_some_and(|t| t.as_bytes().starts_with(b"application/json"));
            let bytes = r.into_body().collect().await.unwrap().to_bytes();
            let v = if is_json {
                serde_json::from_slice(&bytes).expect("a JSON answer is JSON")
            } else {
                serde_json::Value::Null
            };
            (status, v)
        })
    }
}

fuzz_target!(|data: &[u8]| {
    let s = server();
    let text = kalaha_fuzz::text(data);
    let (head, body) = text.split_once("\n\n").unwrap_or((&text, ""));
    let mut lines = head.lines();
    let Some((method, path)) = lines.next().and_then(|l| l.split_once(' ')) else {
        return;
    };
    let path = if path.contains("{id}") {
        path.replace("{id}", &s.id(data.len() % GAMES.len()))
    } else {
        path.to_string()
    };
    let headers: Vec<(&str, &str)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim(), v.trim()))
        .collect();
    let (status, v) = s.call(method, &path, &headers, body.as_bytes());
    if status == 0 {
        return; // not a request http can even build
    }
    assert!(
        status < 500 || status == 503,
        "{method} {path} {headers:?} {body:?}: {status} {v}"
    );
    if status >= 400 {
        assert!(
            v["error"].is_string(),
            "{method} {path}: {status} without an error: {v}"
        );
    }
});
