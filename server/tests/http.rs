//! The plain HTTP side over a real socket: the embedded browser client at `/`, the health check, the
//! SGF download of a game that does not exist, and unknown paths.

mod common;

use common::{http_get, TestServer};

async fn get(server: &TestServer, path: &str) -> String {
    http_get(server.addr, path, None).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serves_the_client_health_and_clear_not_founds() {
    let server = TestServer::start().await;
    let index = get(&server, "/").await;
    assert!(index.starts_with("HTTP/1.1 200"), "{index}");
    assert!(index
        .to_ascii_lowercase()
        .contains("content-type: text/html"));
    let on_disk = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../client-web/index.html"
    ))
    .unwrap();
    assert!(index.ends_with(&on_disk), "/ is not client-web/index.html");
    let same = get(&server, "/index.html").await;
    assert!(same.ends_with(&on_disk));

    let health = get(&server, "/api/health").await;
    assert!(health.starts_with("HTTP/1.1 200"), "{health}");
    assert!(health.ends_with(r#"{"status":"ok"}"#));

    assert!(get(&server, "/api/games/12345/sgf")
        .await
        .starts_with("HTTP/1.1 404"));
    assert!(get(&server, "/no/such/file.js")
        .await
        .starts_with("HTTP/1.1 404"));
    assert!(get(&server, "/../Cargo.toml")
        .await
        .starts_with("HTTP/1.1 404"));
    server.stop().await;
}
