//! Fan-out at a modest scale: many anonymous watchers follow one game from its start, and every one of
//! them receives every event, in order, with no gap, while the game is played at full speed.

mod common;

use common::{point, start_table_game, test_config, Client, TestServer};
use serde_json::json;

/// Watchers in the test: enough to exercise the broadcast and the per-IP bound, quick on 2 cores.
const WATCHERS: usize = 150;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_watcher_sees_every_event_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = test_config(dir.path());
    config.connections_per_ip_max = WATCHERS + 10;
    let server = TestServer::start_with(config).await;
    let mut watchers = Vec::with_capacity(WATCHERS);
    for _ in 0..WATCHERS {
        let mut watcher: Client = server.client().await;
        watcher.hello().await;
        watcher.ok(json!({"type": "join_table", "table": 5})).await;
        watchers.push(watcher);
    }
    let mut alice = server.player("alice").await;
    let mut bob = server.player("bob").await;
    let game = start_table_game(&mut alice, &mut bob, 5).await;
    for watcher in &mut watchers {
        watcher
            .wait_for(|f| f["type"] == "game_state" && f["state"]["game"] == game)
            .await;
    }
    // Forty moves down the columns, then a resignation: 41 events.
    let moves: Vec<(u8, u8)> = (0..40u8).map(|n| (n % 9, n / 9 * 2)).collect();
    for (n, (col, row)) in moves.iter().enumerate() {
        let mover = if n % 2 == 0 { &mut alice } else { &mut bob };
        mover
            .ok(json!({"type": "play", "game": game, "point": point(*col, *row)}))
            .await;
    }
    alice.ok(json!({"type": "resign", "game": game})).await;
    let tasks: Vec<_> = watchers
        .into_iter()
        .map(|mut watcher| {
            tokio::spawn(async move {
                let mut seqs = Vec::new();
                loop {
                    let event = watcher
                        .wait_for(|f| f["type"] == "game_event" && f["game"] == game)
                        .await;
                    seqs.push(event["seq"].as_u64().unwrap());
                    if event["event"] == "ended" {
                        return seqs;
                    }
                }
            })
        })
        .collect();
    for task in tasks {
        assert_eq!(task.await.unwrap(), (1..=41).collect::<Vec<u64>>());
    }
    server.stop().await;
}
