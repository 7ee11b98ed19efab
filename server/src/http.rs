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
        .route("/api/games/{file}", get(game_sgf_file))
        .route("/api/users/{name}/games", get(user_games))
        .route("/api/admin/audit", get(admin_audit))
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
/// `GET /api/games/{id}.sgf`: the same record under the file name people expect.
async fn game_sgf_file(state: State<Arc<AppState>>, Path(file): Path<String>) -> Response {
    match file
        .strip_suffix(".sgf")
        .and_then(|id| id.parse::<u64>().ok())
    {
        Some(game) => game_sgf(state, Path(game)).await,
        None => (StatusCode::NOT_FOUND, "ask for /api/games/{id}.sgf").into_response(),
    }
}

/// `GET /api/users/{name}/games`: a player's games, newest first, as JSON.
async fn user_games(State(state): State<Arc<AppState>>, Path(name): Path<String>) -> Response {
    match crate::game::list_games(&state.store, &name).await {
        Ok(games) => axum::Json(games).into_response(),
        Err(refusal) if refusal.code == tengen_protocol::ErrorCode::NoSuchUser => {
            (StatusCode::NOT_FOUND, refusal.message).into_response()
        }
        Err(refusal) => (StatusCode::INTERNAL_SERVER_ERROR, refusal.message).into_response(),
    }
}

/// The SGF of a game: live games give the record so far, finished ones the stored record.
async fn game_sgf(State(state): State<Arc<AppState>>, Path(game): Path<u64>) -> Response {
    let game = GameId(game);
    match crate::game::record(&state.games, &state.store, game).await {
        Ok(sgf) => (
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
        Err(refusal) if refusal.code == tengen_protocol::ErrorCode::NoSuchGame => {
            (StatusCode::NOT_FOUND, "no game with that id").into_response()
        }
        Err(refusal) => {
            tracing::error!(%refusal, "reading an SGF failed");
            (StatusCode::INTERNAL_SERVER_ERROR, "store failure").into_response()
        }
    }
}

/// Whether `headers` carry `Authorization: Bearer <token>` for the configured admin token. The
/// digests are compared rather than the tokens, so the comparison's time says nothing about how
/// much of a guess was right.
fn admin_authorized(headers: &HeaderMap, token: &str) -> bool {
    use sha2::{Digest, Sha256};
    let Some(offered) = headers
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "))
    else {
        return false;
    };
    Sha256::digest(offered.as_bytes()) == Sha256::digest(token.as_bytes())
}

/// The ledger audit as JSON, for operators: 200 when the book balances, 500 when it does not.
/// Without a configured admin token the route does not exist (404).
async fn admin_audit(State(state): State<Arc<AppState>>, headers: HeaderMap) -> Response {
    let Some(token) = &state.config.admin_token else {
        return (StatusCode::NOT_FOUND, "not found").into_response();
    };
    if !admin_authorized(&headers, token) {
        return (StatusCode::UNAUTHORIZED, "admin token required").into_response();
    }
    match state.store.call(crate::ledger::audit).await {
        Ok(report) => {
            let status = if report.ok {
                StatusCode::OK
            } else {
                StatusCode::INTERNAL_SERVER_ERROR
            };
            let body = serde_json::to_string(&report).expect("an audit report serializes");
            (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
        }
        Err(err) => {
            tracing::error!(%err, "the audit could not read the store");
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
    let client = crate::throttle::client_address(
        peer.ip(),
        headers.get("x-forwarded-for"),
        &state.config.trusted_proxies,
    );
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
        .on_upgrade(move |socket| crate::session::run(state, socket, permit, client))
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
