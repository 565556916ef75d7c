//! `cuecard health`: asks a running server whether it answers (`GET /_cuecard/health`) and exits 0 when it does,
//! 1 when it does not. An image `FROM scratch` has no curl: this is its `HEALTHCHECK`, and a CI script's wait
//! for `cuecard serve` to come up.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::time::Duration;

/// Checks the server at `url` (`http://HOST:PORT`, any path after it ignored), sending `token` as the admin token
/// when given. Prints what it found; `Ok(0)` when the server answered 200 `{"ok": true, ...}`.
pub fn check(url: &str, token: Option<&str>, timeout: Duration) -> Result<u8, String> {
    let authority = url
        .strip_prefix("http://")
        .ok_or_else(|| format!("{url:?} is not an http:// URL (the server's base URL, http://127.0.0.1:8080)"))?
        .split('/')
        .next()
        .unwrap_or_default();
    let address: SocketAddr = authority
        .to_socket_addrs()
        .map_err(|e| format!("cannot resolve {authority:?}: {e}"))?
        .next()
        .ok_or_else(|| format!("{authority:?} resolves to no address"))?;
    let unhealthy = |why: String| {
        let _ = writeln!(std::io::stdout(), "unhealthy: {why}");
        Ok(1)
    };
    let mut stream = match TcpStream::connect_timeout(&address, timeout) {
        Ok(stream) => stream,
        Err(e) => return unhealthy(format!("cannot connect to {address}: {e}")),
    };
    let _ = stream.set_read_timeout(Some(timeout));
    let _ = stream.set_write_timeout(Some(timeout));
    let token = token.map(|t| format!("x-cuecard-admin-token: {t}\r\n")).unwrap_or_default();
    let request = format!("GET /_cuecard/health HTTP/1.1\r\nhost: {authority}\r\nconnection: close\r\n{token}\r\n");
    let mut reply = Vec::new();
    let sent = stream.write_all(request.as_bytes()).and_then(|()| stream.take(64 * 1024).read_to_end(&mut reply));
    if let Err(e) = sent {
        return unhealthy(format!("no answer from {address}: {e}"));
    }
    let reply = String::from_utf8_lossy(&reply);
    let status = reply.get(9..12).unwrap_or_default();
    let body = reply.split_once("\r\n\r\n").map_or("", |(_, body)| body);
    if status == "200" && body.contains(r#""ok":true"#) {
        let _ = writeln!(std::io::stdout(), "healthy: {address} {}", body.trim());
        Ok(0)
    } else {
        unhealthy(format!("{address} answered {status}: {}", body.trim()))
    }
}
