//! HTTP routes: the browser client's files at `/` (compiled into the binary), the WebSocket upgrade at
//! `/ws` (with the Origin allow-list and the per-IP connection cap checked before upgrading), and the
//! small JSON/SGF API under `/api/`. What happens on a socket after the upgrade belongs to `session`.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::ws::WebSocketUpgrade;
use axum::extract::{ConnectInfo, Path, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use rust_embed::RustEmbed;
use tengen_protocol::GameId;

use crate::config::{
    MAX_WS_MESSAGE_BYTES, WS_READ_BUFFER_BYTES, WS_WRITE_BUFFER_BYTES, WS_WRITE_BUFFER_MAX_BYTES,
};
use crate::AppState;

/// The browser client, embedded at build time. Test output and installed node modules stay out.
#[derive(RustEmbed)]
#[folder = "../client-web/"]
#[exclude = "node_modules/*"]
#[exclude = "test-output/*"]
#[exclude = "tests/*"]
#[exclude = "package*.json"]
struct ClientFiles;

pub(crate) fn router(state: Arc<AppState>) -> Router {
    Router::new()
        .route("/ws", get(ws_upgrade))
        .route("/api/health", get(health))
        .route("/api/games/{game}/sgf", get(game_sgf))
        .route("/", get(index))
        .route("/{*path}", get(static_file))
        .with_state(state)
}

async fn health() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "application/json")],
        r#"{"status":"ok"}"#,
    )
}

async fn index() -> Response {
    serve_file("index.html")
}

async fn static_file(Path(path): Path<String>) -> Response {
    serve_file(&path)
}

fn serve_file(path: &str) -> Response {
    match ClientFiles::get(path) {
        Some(file) => {
            let mime = file.metadata.mimetype().to_string();
            (
                [(header::CONTENT_TYPE, mime)],
                Body::from(file.data.into_owned()),
            )
                .into_response()
        }
        None => (StatusCode::NOT_FOUND, "not found").into_response(),
    }
}

/// A finished game's record, for download.
async fn game_sgf(State(state): State<Arc<AppState>>, Path(game): Path<u64>) -> Response {
    let game = GameId(game);
    match state.store.call(move |store| store.game_sgf(game)).await {
        Ok(Some(sgf)) => (
            [
                (header::CONTENT_TYPE, "application/x-go-sgf".to_string()),
                (
                    header::CONTENT_DISPOSITION,
                    format!("attachment; filename=\"tengen-{game}.sgf\""),
                ),
            ],
            sgf,
        )
            .into_response(),
        Ok(None) => (StatusCode::NOT_FOUND, "no finished game with that id").into_response(),
        Err(err) => {
            tracing::error!(%err, "reading an SGF failed");
            (StatusCode::INTERNAL_SERVER_ERROR, "store failure").into_response()
        }
    }
}

/// Whether a browser at `origin` may open a socket here: no Origin (not a browser), the same origin as
/// the `Host` it asked for, localhost on any port, or an operator-configured origin.
pub(crate) fn origin_allowed(origin: Option<&str>, host: Option<&str>, extra: &[String]) -> bool {
    let Some(origin) = origin else {
        return true;
    };
    if extra.iter().any(|allowed| allowed == origin) {
        return true;
    }
    let Some(authority) = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"))
    else {
        return false;
    };
    if host == Some(authority) {
        return true;
    }
    let hostname = match authority.strip_prefix('[') {
        // An IPv6 literal: `[::1]:8080`.
        Some(rest) => rest.split(']').next().unwrap_or_default(),
        None => authority.split(':').next().unwrap_or_default(),
    };
    matches!(hostname, "localhost" | "127.0.0.1" | "::1")
}

async fn ws_upgrade(
    State(state): State<Arc<AppState>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    upgrade: WebSocketUpgrade,
) -> Response {
    let origin = headers
        .get(header::ORIGIN)
        .and_then(|value| value.to_str().ok());
    let host = headers
        .get(header::HOST)
        .and_then(|value| value.to_str().ok());
    if !origin_allowed(origin, host, &state.config.allowed_origins) {
        tracing::info!(?origin, %peer, "refused a WebSocket from a foreign origin");
        return (StatusCode::FORBIDDEN, "origin not allowed").into_response();
    }
    let Some(permit) = state
        .conns
        .try_acquire(peer.ip(), state.config.connections_per_ip_max)
    else {
        return (
            StatusCode::TOO_MANY_REQUESTS,
            "too many connections from this address",
        )
            .into_response();
    };
    upgrade
        .max_frame_size(MAX_WS_MESSAGE_BYTES)
        .max_message_size(MAX_WS_MESSAGE_BYTES)
        .read_buffer_size(WS_READ_BUFFER_BYTES)
        .write_buffer_size(WS_WRITE_BUFFER_BYTES)
        .max_write_buffer_size(WS_WRITE_BUFFER_MAX_BYTES)
        .on_upgrade(move |socket| crate::session::run(state, socket, permit))
}

#[cfg(test)]
mod tests {
    use super::origin_allowed;

    #[test]
    fn origins() {
        let extra = vec!["https://go.example.org".to_string()];
        assert!(origin_allowed(None, None, &[]));
        assert!(origin_allowed(
            Some("http://localhost:3000"),
            Some("x:1"),
            &[]
        ));
        assert!(origin_allowed(Some("http://127.0.0.1"), None, &[]));
        assert!(origin_allowed(Some("http://[::1]:80"), None, &[]));
        assert!(origin_allowed(
            Some("https://tengen.example:8443"),
            Some("tengen.example:8443"),
            &[]
        ));
        assert!(origin_allowed(Some("https://go.example.org"), None, &extra));
        assert!(!origin_allowed(
            Some("https://evil.example"),
            Some("tengen.example"),
            &extra
        ));
        assert!(!origin_allowed(
            Some("http://localhost.evil.example"),
            None,
            &[]
        ));
        assert!(!origin_allowed(Some("null"), None, &[]));
    }
}
