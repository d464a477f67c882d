//! Loopback helpers for the tests that start servers (PostgreSQL,
//! node_exporter, Prometheus, redis): a free port, and a plain HTTP GET.

use std::io::{Read, Write};
use std::time::Duration;

/// A TCP port free on loopback a moment ago (the probe is closed at once).
pub fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

/// The body of `GET path` on a loopback port, when it answers 200.
pub fn http_get(port: u16, path: &str) -> Option<String> {
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    write!(
        stream,
        "GET {path} HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\n\r\n"
    )
    .ok()?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer).ok()?;
    let (head, body) = answer.split_once("\r\n\r\n")?;
    head.split_whitespace()
        .nth(1)
        .filter(|status| *status == "200")
        .map(|_| body.to_string())
}
