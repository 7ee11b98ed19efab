//! Helpers for the fortune-point tests (`ledger.rs`, `stakes.rs`): a server with the admin audit on,
//! balances, waiting for a game's settlement, and the audit itself over HTTP.

use super::{test_config, Client, TestServer};
use serde_json::{json, Value};

/// The starting grant and tax rate of the default configuration.
pub const GRANT: u64 = 1_000;
pub const TAX_BP: u64 = 500;
pub const ADMIN_TOKEN: &str = "test-admin-token";

/// A bet, answered however the server answers it.
pub async fn bet(client: &mut Client, game: u64, side: &str, amount: u64) -> Value {
    client
        .request(json!({"type": "bet", "game": game, "side": side, "amount": amount}))
        .await
}

/// A bet that must be placed: its `bet_placed` reply.
pub async fn bet_placed(client: &mut Client, game: u64, side: &str, amount: u64) -> Value {
    let placed = bet(client, game, side, amount).await;
    assert_eq!(placed["type"], "bet_placed", "{placed}");
    placed
}

/// A server in `dir` whose admin routes (the audit) answer to [`ADMIN_TOKEN`].
pub async fn start_server(dir: &std::path::Path) -> TestServer {
    let mut config = test_config(dir);
    config.admin_token = Some(ADMIN_TOKEN.into());
    TestServer::start_with(config).await
}

/// What a winning bettor receives, docs/wagering.md, computed here independently of the server's math:
/// `((T / W) · s − s) · (1 − tax) + s`, rounded down.
pub fn winner_receives(pool_total: u64, winners_total: u64, bet: u64) -> u64 {
    let gain_num =
        u128::from(pool_total - winners_total) * u128::from(bet) * u128::from(10_000 - TAX_BP);
    bet + (gain_num / (u128::from(winners_total) * 10_000)) as u64
}

/// The client's balance; the reply always states the tax rate.
pub async fn balance(client: &mut Client) -> u64 {
    let reply = client.ok(json!({"type": "balance"})).await;
    assert_eq!(reply["tax_bp"], TAX_BP);
    reply["balance"].as_u64().unwrap()
}

/// Wait until `client`, who follows `game`, hears that it was settled.
pub async fn wait_settled(client: &mut Client, game: u64) -> Value {
    client
        .wait_for(|f| {
            f["type"] == "pool" && f["pool"]["game"] == game && f["pool"]["settled"] == true
        })
        .await
}

/// `GET path` with an optional bearer token; the status code and the body.
pub async fn http_get(server: &TestServer, path: &str, token: Option<&str>) -> (u16, String) {
    let response = super::http_get(server.addr, path, token).await;
    let status = response[9..12].parse().unwrap();
    let body = response
        .split("\r\n\r\n")
        .nth(1)
        .unwrap_or_default()
        .to_string();
    (status, body)
}

/// The admin audit must find the book balanced: every point granted is held somewhere.
pub async fn assert_audit_clean(server: &TestServer) -> Value {
    let (status, body) = http_get(server, "/api/admin/audit", Some(ADMIN_TOKEN)).await;
    let report: Value = serde_json::from_str(&body).unwrap_or_else(|_| panic!("{body}"));
    assert_eq!(status, 200, "{report}");
    assert_eq!(report["ok"], true, "{report}");
    assert_eq!(report["held"], report["granted"], "{report}");
    report
}
