//! HTTP routes: the browser client's files at `/` (compiled into the binary), the WebSocket upgrade at
//! `/ws` (with the Origin allow-list checked before upgrading), and the small JSON/SGF API under
//! `/api/`. Every request but the health check must name an allowed host (against DNS rebinding),
//! every response carries the security headers (against clickjacking and sniffing), and failed tries
//! of the admin token are throttled. What happens on a socket after the upgrade belongs to `session`;
//! connection caps and timeouts to `serve`.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use axum::body::Body;
use axum::extract::ws::WebSocketUpgrade;
use axum::extract::{ConnectInfo, Path, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, put};
use axum::Router;
use rust_embed::RustEmbed;
use tengen_protocol::GameId;

use crate::app::AppState;
use crate::config::{
    MAX_WS_MESSAGE_BYTES, WS_READ_BUFFER_BYTES, WS_WRITE_BUFFER_BYTES, WS_WRITE_BUFFER_MAX_BYTES,
};

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
        .route("/api/users/{name}", get(user_profile))
        .route("/api/users/{name}/games", get(user_games))
        .route("/api/admin/audit", get(admin_audit))
        .route("/api/admin/moderation", get(admin_moderation))
        .route("/api/admin/users/{name}/role", put(admin_set_role))
        .route("/", get(index))
        .route("/{*path}", get(static_file))
        .layer(middleware::from_fn_with_state(Arc::clone(&state), edge))
        .with_state(state)
}

/// The path exempt from the Host check: load balancers and monitors ask it by any name or address.
const HEALTH_PATH: &str = "/api/health";

/// Checks and headers for every request: a Host outside the allow-list is refused (421) before any
/// route runs, and every response, refusals included, carries the security headers.
async fn edge(State(state): State<Arc<AppState>>, request: Request, next: Next) -> Response {
    let host = request_host(&request).map(str::to_string);
    let mut response = if request.uri().path() == HEALTH_PATH
        || host_allowed(host.as_deref(), &state.config.allowed_hosts)
    {
        next.run(request).await
    } else {
        tracing::info!(?host, path = %request.uri().path(), "refused a request for a foreign host name");
        (
            StatusCode::MISDIRECTED_REQUEST,
            "this server does not answer to that host name (see --allow-host)",
        )
            .into_response()
    };
    add_security_headers(response.headers_mut(), host.as_deref());
    response
}

/// The host a request names: its `Host` header, else the authority of an absolute URI.
fn request_host(request: &Request) -> Option<&str> {
    match request.headers().get(header::HOST) {
        Some(value) => value.to_str().ok(),
        None => request
            .uri()
            .authority()
            .map(|authority| authority.as_str()),
    }
}

/// Whether a request naming `host` (`name`, `name:port`, `[v6]:port`) may be served. A page on
/// another name that resolves to this server (DNS rebinding) names its own host, so only names that
/// cannot be rebound are taken without configuration: IP literals (no DNS involved) and `localhost`
/// and `*.localhost` (browsers resolve them to loopback themselves). Any other name must be given
/// with `--allow-host`, with or without its port. No Host at all is not a browser, and is served.
pub(crate) fn host_allowed(host: Option<&str>, allowed: &[String]) -> bool {
    let Some(host) = host else {
        return true;
    };
    let name = host_name(host);
    if name.parse::<IpAddr>().is_ok() {
        return true;
    }
    let name = name.strip_suffix('.').unwrap_or(name).to_ascii_lowercase();
    if name == "localhost" || name.ends_with(".localhost") {
        return true;
    }
    allowed.iter().any(|entry| {
        entry.eq_ignore_ascii_case(host)
            || (!entry.contains(':') && entry.eq_ignore_ascii_case(name.as_str()))
    })
}

/// The name in a `Host` value, without its port (and without the brackets of an IPv6 literal).
fn host_name(host: &str) -> &str {
    match host.strip_prefix('[') {
        Some(rest) => rest.split(']').next().unwrap_or_default(),
        None => host.split(':').next().unwrap_or_default(),
    }
}

/// The Content-Security-Policy for a response to a request naming `host`: scripts, styles and
/// everything else only from this origin (no inline script can run even if markup were injected), no
/// framing by any other page (so the resign and bet buttons cannot be clickjacked), and sockets only
/// to this host. `connect-src` names the ws: and wss: origins explicitly because older browsers do not
/// count them as 'self'; a host that is not a plain name (odd characters) is left out rather than
/// written into the header. The favicon is a data: URL.
fn content_security_policy(host: Option<&str>) -> String {
    let plain = |h: &&str| {
        !h.is_empty()
            && h.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b".-:[]".contains(&b))
    };
    let sockets = host
        .filter(plain)
        .map_or(String::new(), |h| format!(" ws://{h} wss://{h}"));
    format!(
        "default-src 'self'; connect-src 'self'{sockets}; img-src 'self' data:; \
         frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'"
    )
}

fn add_security_headers(headers: &mut HeaderMap, host: Option<&str>) {
    if let Ok(csp) = HeaderValue::from_str(&content_security_policy(host)) {
        headers.insert(header::CONTENT_SECURITY_POLICY, csp);
    }
    // For browsers without frame-ancestors.
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    // Game and user ids in the page's address are nobody else's business.
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
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

/// `GET /api/users/{name}`: a player's profile as JSON, the same as the `profile` message's.
async fn user_profile(State(state): State<Arc<AppState>>, Path(name): Path<String>) -> Response {
    let anyone = crate::relations::Screen::default();
    match crate::people::profile(&state.store, &state.hall, &name, &anyone).await {
        Ok(profile) => axum::Json(profile).into_response(),
        Err(refusal) => refusal_response(refusal),
    }
}

/// A refusal as an HTTP answer: an unknown user is 404, an overloaded hall 503, anything else 500.
fn refusal_response(refusal: crate::Refusal) -> Response {
    use tengen_protocol::ErrorCode;
    let status = match refusal.code {
        ErrorCode::NoSuchUser => StatusCode::NOT_FOUND,
        ErrorCode::Busy | ErrorCode::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    };
    (status, refusal.message).into_response()
}

/// `GET /api/users/{name}/games`: a player's games, newest first, as JSON.
async fn user_games(State(state): State<Arc<AppState>>, Path(name): Path<String>) -> Response {
    match crate::game::list_games(&state.store, &name, None).await {
        Ok(games) => axum::Json(games).into_response(),
        Err(refusal) => refusal_response(refusal),
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

/// Whether `peer` may try the admin token now; a wrong token counts against it. Logged, since every
/// failure is someone holding a wrong token or guessing.
fn admin_check(
    state: &AppState,
    peer: IpAddr,
    headers: &HeaderMap,
    token: &str,
) -> Result<(), (StatusCode, &'static str)> {
    let now_ms = crate::unix_now_ms();
    let mut throttle = state
        .admin_throttle
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    if throttle.is_throttled(peer, now_ms) {
        return Err((
            StatusCode::TOO_MANY_REQUESTS,
            "too many wrong admin tokens; try again later",
        ));
    }
    if admin_authorized(headers, token) {
        return Ok(());
    }
    throttle.record_failure(peer, now_ms);
    tracing::warn!(%peer, "a request with a wrong admin token");
    Err((StatusCode::UNAUTHORIZED, "admin token required"))
}

/// The ledger audit as JSON, for operators: 200 when the book balances, 500 when it does not.
/// Without a configured admin token the route does not exist (404).
async fn admin_audit(
    State(state): State<Arc<AppState>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
) -> Response {
    let Some(token) = &state.config.admin_token else {
        return (StatusCode::NOT_FOUND, "not found").into_response();
    };
    // Behind a trusted proxy, each client its own count (the overall bound holds either way).
    let client = crate::throttle::client_address(
        peer.ip(),
        headers.get("x-forwarded-for"),
        &state.config.trusted_proxies,
    );
    if let Err(refusal) = admin_check(&state, client, &headers, token) {
        return refusal.into_response();
    }
    match state.store.call(|store| crate::ledger::audit(store)).await {
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

/// The admin token's check for any admin route: `None` when the request may go on, else the
/// response (404 without a configured token, as if the route did not exist).
fn admin_gate(state: &AppState, peer: SocketAddr, headers: &HeaderMap) -> Option<Response> {
    let Some(token) = &state.config.admin_token else {
        return Some((StatusCode::NOT_FOUND, "not found").into_response());
    };
    let client = crate::throttle::client_address(
        peer.ip(),
        headers.get("x-forwarded-for"),
        &state.config.trusted_proxies,
    );
    admin_check(state, client, headers, token)
        .err()
        .map(IntoResponse::into_response)
}

fn json_response(status: StatusCode, body: &serde_json::Value) -> Response {
    let body = body.to_string();
    (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

/// Grant a role: `PUT /api/admin/users/{name}/role` with the body `user`, `moderator` or `admin`.
/// Answers the account and its new role; 404 for an unknown user, 400 for an unknown role.
async fn admin_set_role(
    State(state): State<Arc<AppState>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    Path(name): Path<String>,
    headers: HeaderMap,
    body: String,
) -> Response {
    if let Some(refused) = admin_gate(&state, peer, &headers) {
        return refused;
    }
    let Some(role) = tengen_protocol::Role::parse(body.trim()) else {
        return (
            StatusCode::BAD_REQUEST,
            "the body is user, moderator or admin",
        )
            .into_response();
    };
    let lookup = name.clone();
    let granted = state
        .store
        .call(move |store| crate::moderation::grant(store, &lookup, role))
        .await;
    match granted {
        Ok(Some(user)) => json_response(
            StatusCode::OK,
            &serde_json::json!({"user": user.id, "username": user.username, "role": role}),
        ),
        Ok(None) => (StatusCode::NOT_FOUND, format!("no user {name}")).into_response(),
        Err(err) => {
            tracing::error!(%err, "a role could not be stored");
            (StatusCode::INTERNAL_SERVER_ERROR, "store failure").into_response()
        }
    }
}

/// Moderation at a glance, for operators: this node's counters since it started and the open
/// reports waiting in the queue.
async fn admin_moderation(
    State(state): State<Arc<AppState>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
) -> Response {
    if let Some(refused) = admin_gate(&state, peer, &headers) {
        return refused;
    }
    let open = state
        .store
        .call(|store| store.open_reports(tengen_protocol::REPORTS_LISTED_MAX))
        .await;
    match open {
        Ok(open) => {
            let mut body = state.moderation.snapshot();
            body["open_reports_count"] = serde_json::json!(open.len());
            json_response(StatusCode::OK, &body)
        }
        Err(err) => {
            tracing::error!(%err, "the moderation counters could not read the store");
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
    upgrade
        .max_frame_size(MAX_WS_MESSAGE_BYTES)
        .max_message_size(MAX_WS_MESSAGE_BYTES)
        .read_buffer_size(WS_READ_BUFFER_BYTES)
        .write_buffer_size(WS_WRITE_BUFFER_BYTES)
        .max_write_buffer_size(WS_WRITE_BUFFER_MAX_BYTES)
        .on_upgrade(move |socket| crate::session::run(state, socket, client))
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
