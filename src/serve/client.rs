//! A small blocking HTTP/1.1 client over one connection per request, enough for the API tests and
//! the load test on loopback (no TLS, no redirects).

use std::io::{Read, Write};
use std::net::{IpAddr, SocketAddr, TcpStream};
use std::time::Duration;

/// A reply: its status, headers and body.
#[derive(Clone, Debug)]
pub struct Reply {
    /// HTTP status code.
    pub status: u16,
    /// The headers, names in lower case, in order.
    pub headers: Vec<(String, String)>,
    /// The body as text.
    pub body: String,
}

impl Reply {
    /// The body as JSON (`null` if it is not JSON).
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or(serde_json::Value::Null)
    }

    /// The first header named `name` (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Sends `method path` with an optional body (sent as JSON) and reads the whole reply.
pub fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: Option<&[u8]>,
) -> std::io::Result<Reply> {
    request_with(addr, None, method, path, &[], body)
}

/// Sends `method path` from the local address `from` (any when `None`; on loopback, any
/// 127.x.y.z names another client) with `headers` (each replacing the default of its name:
/// `Host` the server's address, `Content-Type: application/json`; an empty value leaves the
/// header out) and reads the whole reply.
pub fn request_with(
    addr: SocketAddr,
    from: Option<IpAddr>,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&[u8]>,
) -> std::io::Result<Reply> {
    let body = body.unwrap_or(b"");
    let mut head = format!("{method} {path} HTTP/1.1\r\n");
    let defaults = [
        ("Host", addr.to_string()),
        ("Content-Type", "application/json".to_string()),
    ];
    for (k, v) in &defaults {
        if !headers.iter().any(|(h, _)| h.eq_ignore_ascii_case(k)) {
            head += &format!("{k}: {v}\r\n");
        }
    }
    for (k, v) in headers {
        if !v.is_empty() {
            head += &format!("{k}: {v}\r\n");
        }
    }
    head += &format!(
        "Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let mut raw = head.into_bytes();
    raw.extend_from_slice(body);
    send_raw(addr, from, &raw)
}

/// Sends `raw` bytes as they are (a whole request, however malformed) from `from` and reads the
/// reply.
pub fn send_raw(addr: SocketAddr, from: Option<IpAddr>, raw: &[u8]) -> std::io::Result<Reply> {
    let mut s = connect(addr, from)?;
    s.set_read_timeout(Some(Duration::from_secs(120)))?;
    s.set_nodelay(true)?;
    // A server may refuse an oversized body before reading it: the reply still counts.
    let _ = s.write_all(raw);
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    let text = String::from_utf8_lossy(&raw);
    let (head, rest) = text.split_once("\r\n\r\n").ok_or_else(|| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "no HTTP header in the reply",
        )
    })?;
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::InvalidData, "no status"))?;
    let chunked = head.lines().any(|l| {
        l.to_ascii_lowercase()
            .starts_with("transfer-encoding: chunked")
    });
    let body = if chunked {
        dechunk(rest)
    } else {
        rest.to_string()
    };
    let headers = head
        .lines()
        .skip(1)
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    Ok(Reply {
        status,
        headers,
        body,
    })
}

/// A connection to `addr` from the local address `from` (bound before connecting).
fn connect(addr: SocketAddr, from: Option<IpAddr>) -> std::io::Result<TcpStream> {
    let Some(ip) = from else {
        return TcpStream::connect(addr);
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()?;
    let s = rt.block_on(async {
        let socket = if ip.is_ipv4() {
            tokio::net::TcpSocket::new_v4()?
        } else {
            tokio::net::TcpSocket::new_v6()?
        };
        socket.bind(SocketAddr::new(ip, 0))?;
        socket.connect(addr).await?.into_std()
    })?;
    s.set_nonblocking(false)?;
    Ok(s)
}

/// Joins a chunked body.
fn dechunk(mut rest: &str) -> String {
    let mut out = String::new();
    while let Some((size, after)) = rest.split_once("\r\n") {
        let Ok(n) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        if n == 0 || after.len() < n {
            break;
        }
        out += &after[..n];
        rest = after[n..].trim_start_matches("\r\n");
    }
    out
}
