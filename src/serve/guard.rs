//! What every request passes before its handler: the Host header checked against the bound
//! address (and the names allowed with `--allow-host`), the Origin header of a state-changing
//! request checked the same way, a POST body accepted only as `application/json`, the query
//! string's keys (an API route takes only those it reads: [`query_keys`]), and the client named
//! (its remote address, or a proxy's header naming it) for the per-client limits.
//!
//! Why: a web page that a local user visits can send requests to a server on localhost. With the
//! Host check, a DNS-rebinding page (its own name resolving to 127.0.0.1) gets 403 for every
//! route; with the Origin check, a cross-site form or `fetch` cannot change a game; with the
//! Content-Type check, a "simple" cross-site POST (`text/plain`, no preflight) is refused with 415.

use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, OnceLock};

use axum::extract::{ConnectInfo, Query, Request, State};
use axum::http::{HeaderMap, Method, StatusCode, Uri, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::api::App;
use super::error::{ApiError, codes};

/// The client a request counts for: its remote address, or the address a trusted proxy's
/// header names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Client(pub IpAddr);

/// The checks' settings: the names allowed besides the bound address, and the header, if any,
/// that names the client behind a proxy.
#[derive(Debug, Default)]
pub struct Guard {
    /// Host names allowed besides the bound address (lower case, no port).
    allow: Vec<String>,
    /// The header naming the client's address (set by a trusted reverse proxy).
    client_header: Option<header::HeaderName>,
    /// The address listened on, once bound.
    bound: OnceLock<SocketAddr>,
}

impl Guard {
    /// A guard allowing `allow` (host names, each matched with any port) besides the bound
    /// address, and reading the client from `client_header` when given.
    pub fn new(allow: &[String], client_header: Option<&str>) -> anyhow::Result<Guard> {
        let client_header = client_header
            .map(|h| {
                header::HeaderName::from_bytes(h.as_bytes())
                    .map_err(|_| anyhow::anyhow!("--client-header: '{h}' is not a header name"))
            })
            .transpose()?;
        let mut names = Vec::new();
        for a in allow {
            let name = a.trim().trim_end_matches('.').to_ascii_lowercase();
            if name.is_empty()
                || !name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-.:[]".contains(c))
            {
                anyhow::bail!("--allow-host: '{a}' is not a host name");
            }
            names.push(name);
        }
        Ok(Guard {
            allow: names,
            client_header,
            bound: OnceLock::new(),
        })
    }

    /// Records the address listened on (the port the Host header must name).
    pub fn bind(&self, addr: SocketAddr) {
        let _ = self.bound.set(addr);
    }

    /// Whether `host` (a Host header, or an Origin's host and port) names this server: an
    /// allowed name (any port), or with the bound port: a loopback name when bound to loopback or
    /// to every address, any address literal when bound to every address, else the bound
    /// address itself.
    pub fn host_allowed(&self, host: &str) -> bool {
        let host = host.trim().to_ascii_lowercase();
        let (name, port) = split_host(&host);
        let name = name.trim_end_matches('.');
        if self.allow.iter().any(|a| a == name || *a == host) {
            return true;
        }
        let Some(bound) = self.bound.get() else {
            return false;
        };
        let port_ok = match port {
            Some(p) => p.parse::<u16>().ok() == Some(bound.port()),
            None => bound.port() == 80,
        };
        if !port_ok {
            return false;
        }
        let literal: Option<IpAddr> = name
            .strip_prefix('[')
            .and_then(|n| n.strip_suffix(']'))
            .unwrap_or(name)
            .parse()
            .ok();
        let ip = bound.ip();
        let loopback_name = name == "localhost" || literal.is_some_and(|l| l.is_loopback());
        if ip.is_loopback() {
            loopback_name
        } else if ip.is_unspecified() {
            loopback_name || literal.is_some()
        } else {
            literal == Some(ip)
        }
    }

    /// The checks, in order: Host, Origin (state-changing methods), Content-Type (POST, PUT,
    /// PATCH); the client the request counts for.
    pub fn check(
        &self,
        method: &Method,
        headers: &HeaderMap,
        peer: Option<SocketAddr>,
    ) -> Result<Client, ApiError> {
        let host = headers
            .get(header::HOST)
            .ok_or_else(|| ApiError::bad("missing Host header"))?
            .to_str()
            .map_err(|_| ApiError::bad("Host header: not text"))?;
        if !self.host_allowed(host) {
            return Err(ApiError::new(
                StatusCode::FORBIDDEN,
                codes::FORBIDDEN,
                format!(
                    "Host header: '{host}' is not this server's address (start it with --allow-host NAME to allow a name)"
                ),
            ));
        }
        let changes = matches!(
            *method,
            Method::POST | Method::PUT | Method::DELETE | Method::PATCH
        );
        if changes && let Some(origin) = headers.get(header::ORIGIN) {
            let text = origin.to_str().unwrap_or("");
            let allowed = text
                .strip_prefix("http://")
                .or_else(|| text.strip_prefix("https://"))
                .is_some_and(|h| !h.contains('/') && self.host_allowed(h));
            if !allowed {
                return Err(ApiError::new(
                    StatusCode::FORBIDDEN,
                    codes::FORBIDDEN,
                    format!(
                        "Origin header: '{}' is not this server: cross-site requests may not change games",
                        text.escape_default()
                    ),
                ));
            }
        }
        if matches!(*method, Method::POST | Method::PUT | Method::PATCH) {
            let ct = headers
                .get(header::CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .unwrap_or("");
            let mime = ct.split(';').next().unwrap_or("").trim();
            if !mime.eq_ignore_ascii_case("application/json") {
                return Err(ApiError::new(
                    StatusCode::UNSUPPORTED_MEDIA_TYPE,
                    codes::BAD_REQUEST,
                    format!(
                        "Content-Type header: '{}' refused: a body must be sent as application/json",
                        ct.escape_default()
                    ),
                ));
            }
        }
        let named = self.client_header.as_ref().and_then(|h| {
            let v = headers.get(h)?.to_str().ok()?;
            // A proxy may append: the last address is the one it saw.
            v.rsplit(',').next()?.trim().parse::<IpAddr>().ok()
        });
        let ip = named
            .or(peer.map(|p| p.ip()))
            .unwrap_or(IpAddr::from([0, 0, 0, 0]));
        Ok(Client(ip))
    }
}

/// Splits `host[:port]` or `[v6][:port]` into the name and the port.
fn split_host(host: &str) -> (&str, Option<&str>) {
    if host.starts_with('[') {
        return match host.find(']') {
            Some(i) => {
                let (name, rest) = host.split_at(i + 1);
                (name, rest.strip_prefix(':'))
            }
            None => (host, None),
        };
    }
    match host.rsplit_once(':') {
        Some((name, port)) if !name.contains(':') => (name, Some(port)),
        _ => (host, None),
    }
}

/// The query keys an API route reads: `time` for a hint, none elsewhere. The page's own query
/// (`?lang=`, read by its script) is not the server's business.
fn route_keys(path: &str) -> Option<&'static [&'static str]> {
    match path {
        p if !p.starts_with("/api/") => None,
        p if p.starts_with("/api/games/") && p.ends_with("/hint") => Some(&["time"]),
        _ => Some(&[]),
    }
}

/// Refuses an API request whose query names a key its route does not read (400 naming the key):
/// a misspelled `?tme=0` would otherwise be the default, silently.
pub fn query_keys(uri: &Uri) -> Result<(), ApiError> {
    let (Some(allowed), Some(_)) = (route_keys(uri.path()), uri.query()) else {
        return Ok(());
    };
    let Query(pairs) = Query::<Vec<(String, String)>>::try_from_uri(uri)
        .map_err(|e| ApiError::bad(format!("bad query: {}", e.body_text())))?;
    for (key, _) in pairs {
        if !allowed.contains(&key.as_str()) {
            let expected = match allowed {
                [] => "this route takes no query".to_string(),
                keys => format!("expected {}", keys.join(", ")),
            };
            return Err(ApiError::bad(format!(
                "unknown query key '{}' ({expected})",
                key.escape_default()
            )));
        }
    }
    Ok(())
}

/// The middleware: refuses what [`Guard::check`] and [`query_keys`] refuse, else hands the
/// request on with its [`Client`].
pub async fn check(State(app): State<Arc<App>>, mut req: Request, next: Next) -> Response {
    let peer = req
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0);
    let checked = app
        .guard
        .check(req.method(), req.headers(), peer)
        .and_then(|client| query_keys(req.uri()).map(|()| client));
    match checked {
        Ok(client) => {
            req.extensions_mut().insert(client);
            next.run(req).await
        }
        Err(e) => e.into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guard(bound: &str, allow: &[&str]) -> Guard {
        let g = Guard::new(
            &allow.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
            None,
        )
        .unwrap();
        g.bind(bound.parse().unwrap());
        g
    }

    #[test]
    fn query_keys_are_those_the_route_reads() {
        let q = |u: &str| query_keys(&u.parse().unwrap()).map_err(|e| e.message);
        assert!(q("/api/games/ab/hint?time=0").is_ok());
        assert!(q("/api/games/ab/hint").is_ok());
        assert!(q("/?lang=sv&speed=0").is_ok());
        assert!(q("/api/games/ab/hint?tme=0").unwrap_err().contains("'tme'"));
        assert!(
            q("/api/games/ab?x=1")
                .unwrap_err()
                .contains("takes no query")
        );
        assert!(q("/api/info?time=1").unwrap_err().contains("'time'"));
    }

    #[test]
    fn hosts() {
        let g = guard("127.0.0.1:8080", &["kalaha.example.org"]);
        for ok in [
            "localhost:8080",
            "127.0.0.1:8080",
            "[::1]:8080",
            "LOCALHOST:8080",
            "kalaha.example.org",
            "kalaha.example.org:443",
        ] {
            assert!(g.host_allowed(ok), "{ok}");
        }
        for bad in [
            "localhost",
            "localhost:8081",
            "evil.example:8080",
            "127.0.0.1:80",
            "192.168.1.2:8080",
            "",
            ":8080",
            "localhost:99999",
        ] {
            assert!(!g.host_allowed(bad), "{bad}");
        }
        let any = guard("0.0.0.0:80", &[]);
        assert!(any.host_allowed("192.168.1.2"));
        assert!(!any.host_allowed("rebind.example"));
    }
}
