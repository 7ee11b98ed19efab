//! The network edge over real sockets, as an abusive client meets it: sockets that trickle headers or
//! never say hello are closed, connections over the caps (per address and in all) are refused while
//! the health check still answers, floods of binary frames and pings are cut off, refusals for
//! flooding name their request, the admin token cannot be guessed at speed, every response carries
//! the security headers, and a page on a foreign host name (DNS rebinding) is refused.
//!
//! Several "addresses" on one machine: Linux routes all of 127.0.0.0/8 to loopback, so a client
//! socket bound to 127.0.0.2 reaches the server on 127.0.0.1 from another address.

mod common;

use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use common::{test_config, TestServer, FRAME_TIMEOUT};
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::{Bytes, Message};

/// A TCP connection to `server` from the loopback address `from` (e.g. "127.0.0.2").
async fn connect_from(server: SocketAddr, from: &str) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    let ip: IpAddr = from.parse().unwrap();
    socket.bind(SocketAddr::new(ip, 0)).unwrap();
    socket.connect(server).await.unwrap()
}

/// Everything the server sends on `stream` until it closes (or resets) the connection.
async fn read_until_closed(stream: &mut TcpStream) -> String {
    let mut text = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let read = tokio::time::timeout(FRAME_TIMEOUT, stream.read(&mut buf))
            .await
            .expect("the server closes the connection within the timeout");
        match read {
            Ok(0) | Err(_) => return String::from_utf8_lossy(&text).into_owned(),
            Ok(n) => text.extend_from_slice(&buf[..n]),
        }
    }
}

/// `GET path` from address `from` with extra header lines; the whole response.
async fn get_from(server: SocketAddr, from: &str, path: &str, headers: &str) -> String {
    let mut stream = connect_from(server, from).await;
    let request = format!("GET {path} HTTP/1.1\r\n{headers}Connection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    read_until_closed(&mut stream).await
}

async fn health(server: SocketAddr) -> String {
    get_from(server, "127.0.0.1", "/api/health", "").await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_trickling_its_headers_is_closed_after_the_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = test_config(dir.path());
    config.header_read_timeout_ms = 300;
    let server = TestServer::start_with(config).await;
    let stream = TcpStream::connect(server.addr).await.unwrap();
    let (mut reader, mut writer) = stream.into_split();
    // One header byte every 50 ms, for up to a minute, as a slowloris client does.
    let trickle = tokio::spawn(async move {
        let _ = writer
            .write_all(b"GET /api/health HTTP/1.1\r\nX-Slow: ")
            .await;
        for _ in 0..1200 {
            if writer.write_all(b"a").await.is_err() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    });
    let mut buf = [0u8; 256];
    let read = tokio::time::timeout(FRAME_TIMEOUT, reader.read(&mut buf))
        .await
        .expect("the trickling connection was still open after 10 s");
    // Closed without an answer (an end of stream, or a reset if a byte was in flight).
    assert!(matches!(read, Ok(0) | Err(_)), "{read:?}");
    trickle.abort();
    // A connection that says nothing at all is closed the same way.
    let mut silent = TcpStream::connect(server.addr).await.unwrap();
    assert_eq!(read_until_closed(&mut silent).await, "");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_websocket_that_never_says_hello_is_closed_after_the_deadline() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = test_config(dir.path());
    config.hello_deadline_ms = 300;
    let server = TestServer::start_with(config).await;
    let (mut silent, _) = tokio_tungstenite::connect_async(server.ws_url())
        .await
        .unwrap();
    let mut polite = server.client().await;
    polite.hello().await;
    let frame = tokio::time::timeout(FRAME_TIMEOUT, silent.next())
        .await
        .expect("the silent socket was still open after 10 s");
    match frame {
        Some(Ok(Message::Close(Some(close)))) => assert_eq!(close.code, CloseCode::Policy),
        other => panic!("expected a policy close, got {other:?}"),
    }
    // The socket that said hello is served long past the deadline.
    tokio::time::sleep(Duration::from_millis(600)).await;
    polite.ok(json!({"type": "enter_hall"})).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_over_the_caps_are_refused_while_health_answers() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = test_config(dir.path());
    config.connections_per_ip_max = 3;
    config.connections_max = 5;
    let server = TestServer::start_with(config).await;
    // Three idle connections from 127.0.0.2 (plain TCP: HTTP connections count, not only WebSockets).
    let mut held = Vec::new();
    for _ in 0..3 {
        held.push(connect_from(server.addr, "127.0.0.2").await);
    }
    let mut fourth = connect_from(server.addr, "127.0.0.2").await;
    let refused = read_until_closed(&mut fourth).await;
    assert!(refused.starts_with("HTTP/1.1 429"), "{refused}");
    // Another address is served.
    assert!(health(server.addr).await.starts_with("HTTP/1.1 200"));
    // A WebSocket counts as a connection too: 127.0.0.3 takes the last two slots with one of each.
    let ws = connect_from(server.addr, "127.0.0.3").await;
    let (_ws, _) = tokio_tungstenite::client_async(server.ws_url(), ws)
        .await
        .unwrap();
    held.push(connect_from(server.addr, "127.0.0.3").await);
    // Full: any address, health included, is refused at once with 503.
    let full = get_from(server.addr, "127.0.0.4", "/", "").await;
    assert!(full.starts_with("HTTP/1.1 503"), "{full}");
    assert!(health(server.addr).await.starts_with("HTTP/1.1 503"));
    // A slot freed is a slot for the health check.
    held.pop();
    let mut answered = false;
    for _ in 0..100 {
        if health(server.addr).await.starts_with("HTTP/1.1 200") {
            answered = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(answered, "health never answered after a slot was freed");
    server.stop().await;
}

/// A WebSocket client with the raw stream, for frames the test harness does not send.
async fn raw_socket(
    server: &TestServer,
) -> tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<TcpStream>> {
    let (mut ws, _) = tokio_tungstenite::connect_async(server.ws_url())
        .await
        .unwrap();
    ws.send(Message::text(r#"{"type":"hello","version":1,"id":1}"#))
        .await
        .unwrap();
    match ws.next().await {
        Some(Ok(Message::Text(text))) => assert!(text.contains("welcome"), "{text}"),
        other => panic!("no welcome: {other:?}"),
    }
    ws
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_binary_frames_and_pings_is_cut_off() {
    use tengen_server::config::RATE_LIMIT_STRIKES_MAX;
    let dir = tempfile::tempdir().unwrap();
    let mut config = test_config(dir.path());
    // A burst of ten frames and no refill, so what is allowed does not depend on timing.
    config.messages_per_second = 0;
    config.messages_burst = 10;
    let server = TestServer::start_with(config).await;
    let mut ws = raw_socket(&server).await;
    // The hello took one frame of the burst; nine more are allowed, and after them the server takes
    // RATE_LIMIT_STRIKES_MAX frames over the limit before it closes. Binary frames with a ping after
    // every ten, exactly as many as that, so the server reads every one before closing.
    let frames = 9 + RATE_LIMIT_STRIKES_MAX;
    for n in 0..frames {
        let frame = if n % 10 == 9 {
            Message::Ping(Bytes::from_static(b"p"))
        } else {
            Message::Binary(Bytes::from_static(b"\x00\x01"))
        };
        ws.send(frame).await.unwrap();
    }
    let mut answered = 0;
    let close = loop {
        let frame = tokio::time::timeout(FRAME_TIMEOUT, ws.next())
            .await
            .expect("the flooding socket was still open after 10 s");
        match frame {
            Some(Ok(Message::Text(_))) => answered += 1,
            Some(Ok(Message::Close(close))) => break close.map(|c| c.code),
            Some(Ok(_)) => {}
            other => panic!("the socket ended without a close frame: {other:?}"),
        }
    };
    // Of the nine allowed frames, the binary ones were answered (bad_message); none after them.
    assert_eq!(answered, 9, "{answered} of {frames} frames were answered");
    assert_eq!(close, Some(CloseCode::Policy));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refusals_for_flooding_and_size_carry_the_request_id() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = test_config(dir.path());
    config.messages_per_second = 1;
    config.messages_burst = 5;
    let server = TestServer::start_with(config).await;
    let mut ws = raw_socket(&server).await;
    // Ids 2..=21: the first four fit in the burst, the rest are refused.
    for id in 2..=21u64 {
        let request = json!({"type": "leave_hall", "id": id}).to_string();
        ws.send(Message::text(request)).await.unwrap();
    }
    let mut limited = Vec::new();
    let mut answered = Vec::new();
    while answered.len() < 20 {
        let frame = tokio::time::timeout(FRAME_TIMEOUT, ws.next())
            .await
            .unwrap();
        let Some(Ok(Message::Text(text))) = frame else {
            panic!("expected a text frame, got {frame:?}");
        };
        let reply: Value = serde_json::from_str(text.as_str()).unwrap();
        let id = reply["id"]
            .as_u64()
            .unwrap_or_else(|| panic!("a reply without its id: {reply}"));
        if reply["code"] == "rate_limited" {
            limited.push(id);
        }
        answered.push(id);
    }
    answered.sort_unstable();
    assert_eq!(answered, (2..=21).collect::<Vec<_>>());
    assert!(limited.len() >= 10, "only {limited:?} were rate limited");
    // A frame over the size cap names its request too, wherever its id stands. Past 64 KiB a frame
    // costs two messages of the rate (one per 64 KiB it holds): two seconds refill them.
    tokio::time::sleep(Duration::from_millis(2100)).await;
    let big = format!(
        r#"{{"type":"chat","text":"{}","id":77}}"#,
        "x".repeat(70_000)
    );
    ws.send(Message::text(big)).await.unwrap();
    let frame = tokio::time::timeout(FRAME_TIMEOUT, ws.next())
        .await
        .unwrap();
    let Some(Ok(Message::Text(text))) = frame else {
        panic!("expected a text frame, got {frame:?}");
    };
    let reply: Value = serde_json::from_str(text.as_str()).unwrap();
    assert_eq!(reply["code"], "frame_too_large", "{reply}");
    assert_eq!(reply["id"], 77, "{reply}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_admin_tokens_are_throttled_per_address_and_in_all() {
    use tengen_server::config::{ADMIN_FAILURES_MAX, ADMIN_FAILURES_PER_IP_MAX};
    let dir = tempfile::tempdir().unwrap();
    let mut config = test_config(dir.path());
    config.admin_token = Some("the-right-token".into());
    let server = TestServer::start_with(config).await;
    let audit = |from: &'static str, token: &'static str| {
        let auth = format!("Authorization: Bearer {token}\r\n");
        let addr = server.addr;
        async move { get_from(addr, from, "/api/admin/audit", &auth).await }
    };
    for _ in 0..ADMIN_FAILURES_PER_IP_MAX {
        assert!(audit("127.0.0.2", "guess")
            .await
            .starts_with("HTTP/1.1 401"));
    }
    // That address is refused now, the right token included; another address is not.
    assert!(audit("127.0.0.2", "guess")
        .await
        .starts_with("HTTP/1.1 429"));
    assert!(audit("127.0.0.2", "the-right-token")
        .await
        .starts_with("HTTP/1.1 429"));
    assert!(audit("127.0.0.1", "the-right-token")
        .await
        .starts_with("HTTP/1.1 200"));
    // Guesses spread over addresses stop at the overall bound, for everyone.
    let others = ["127.0.0.3", "127.0.0.4", "127.0.0.5", "127.0.0.6"];
    let mut failures = ADMIN_FAILURES_PER_IP_MAX;
    for from in others.iter().cycle().take(60) {
        if failures >= ADMIN_FAILURES_MAX {
            break;
        }
        let answer = audit(from, "guess").await;
        if answer.starts_with("HTTP/1.1 401") {
            failures += 1;
        }
    }
    assert_eq!(failures, ADMIN_FAILURES_MAX);
    assert!(audit("127.0.0.7", "guess")
        .await
        .starts_with("HTTP/1.1 429"));
    assert!(audit("127.0.0.1", "the-right-token")
        .await
        .starts_with("HTTP/1.1 429"));
    server.stop().await;
}

/// The value of `name` in a whole HTTP response, if present (case-insensitive name).
fn header<'a>(response: &'a str, name: &str) -> Option<&'a str> {
    let head = response.split("\r\n\r\n").next()?;
    head.lines().find_map(|line| {
        let (key, value) = line.split_once(':')?;
        key.eq_ignore_ascii_case(name).then_some(value.trim())
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_response_carries_the_security_headers() {
    let server = TestServer::start().await;
    let host = format!("Host: {}\r\n", server.addr);
    for path in [
        "/",
        "/js/app.js",
        "/api/health",
        "/api/games/99/sgf",
        "/nothing",
    ] {
        let response = get_from(server.addr, "127.0.0.1", path, &host).await;
        let csp = header(&response, "content-security-policy")
            .unwrap_or_else(|| panic!("{path}: no CSP in {response}"));
        assert!(csp.contains("default-src 'self'"), "{path}: {csp}");
        assert!(csp.contains("frame-ancestors 'none'"), "{path}: {csp}");
        assert!(
            csp.contains(&format!("ws://{}", server.addr)),
            "{path}: {csp}"
        );
        assert_eq!(header(&response, "x-content-type-options"), Some("nosniff"));
        assert_eq!(header(&response, "referrer-policy"), Some("no-referrer"));
        assert_eq!(header(&response, "x-frame-options"), Some("DENY"));
    }
    server.stop().await;
}

/// A WebSocket upgrade naming `host` with the Origin of a page there; the HTTP status it gets.
async fn upgrade_status(server: &TestServer, host: &str) -> u16 {
    let mut request = server.ws_url().into_client_request().unwrap();
    let headers = request.headers_mut();
    headers.insert("Host", HeaderValue::from_str(host).unwrap());
    let origin = format!("http://{host}");
    headers.insert("Origin", HeaderValue::from_str(&origin).unwrap());
    match tokio_tungstenite::connect_async(request).await {
        Ok((_, response)) => response.status().as_u16(),
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => response.status().as_u16(),
        Err(other) => panic!("the upgrade failed without an answer: {other}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_foreign_host_name_is_refused_on_the_websocket_and_the_api() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = test_config(dir.path());
    config.allowed_hosts = vec!["go.example.org".into()];
    let server = TestServer::start_with(config).await;
    let port = server.addr.port();
    // A rebinding page: its Origin and the Host it asks for are both its own name.
    assert_eq!(
        upgrade_status(&server, &format!("evil.example:{port}")).await,
        421
    );
    let evil = format!("Host: evil.example:{port}\r\n");
    let api = get_from(server.addr, "127.0.0.1", "/api/users/alice/games", &evil).await;
    assert!(api.starts_with("HTTP/1.1 421"), "{api}");
    let page = get_from(server.addr, "127.0.0.1", "/", &evil).await;
    assert!(page.starts_with("HTTP/1.1 421"), "{page}");
    // Health answers any name, for load balancers.
    let health = get_from(server.addr, "127.0.0.1", "/api/health", &evil).await;
    assert!(health.starts_with("HTTP/1.1 200"), "{health}");
    // The listen address, localhost and the configured name are served.
    for host in [
        server.addr.to_string(),
        format!("localhost:{port}"),
        format!("go.example.org:{port}"),
        "GO.example.org".to_string(),
    ] {
        assert_eq!(upgrade_status(&server, &host).await, 101, "{host}");
    }
    server.stop().await;
}
