//! Fan-out at a modest scale: many anonymous watchers follow one game from its start, and every one of
//! them receives every event, in order, with no gap, while the game is played at full speed. They
//! are more than one slice of followers (`FOLLOWERS_PER_SLICE`), so most of them hear the game
//! through its crowd's relay; one who joins mid-game hears each event after its snapshot once.

mod common;

use common::{point, start_table_game, test_config, Client, TestServer};
use serde_json::json;

/// Watchers in the test: enough to fill the first slice and two more (128 followers each, the
/// players among the first), quick on 2 cores.
const WATCHERS: usize = 300;

/// Moves played before a late watcher joins.
const MOVES_BEFORE_LATE: usize = 20;

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
    let mut late = None;
    for (n, (col, row)) in moves.iter().enumerate() {
        if n == MOVES_BEFORE_LATE {
            let mut watcher: Client = server.client().await;
            watcher.hello().await;
            watcher.ok(json!({"type": "watch", "game": game})).await;
            late = Some(watcher);
        }
        let mover = if n % 2 == 0 { &mut alice } else { &mut bob };
        mover
            .ok(json!({"type": "play", "game": game, "point": point(*col, *row)}))
            .await;
    }
    alice.ok(json!({"type": "resign", "game": game})).await;
    let tasks: Vec<_> = watchers
        .into_iter()
        .map(|mut watcher| {
            tokio::spawn(async move { seqs_until_the_end(&mut watcher, game).await })
        })
        .collect();
    for task in tasks {
        assert_eq!(task.await.unwrap(), (1..=41).collect::<Vec<u64>>());
    }
    // The late watcher's snapshot holds the first moves; every later event comes once, in order.
    let mut late = late.unwrap();
    let snapshot = late
        .wait_for(|f| f["type"] == "game_state" && f["state"]["game"] == game)
        .await;
    let in_snapshot = snapshot["state"]["seq"].as_u64().unwrap();
    assert!(in_snapshot >= MOVES_BEFORE_LATE as u64);
    assert_eq!(
        seqs_until_the_end(&mut late, game).await,
        (in_snapshot + 1..=41).collect::<Vec<u64>>()
    );
    server.stop().await;
}

/// The `seq` of every event of `game` the watcher receives, up to its end.
async fn seqs_until_the_end(watcher: &mut Client, game: u64) -> Vec<u64> {
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
}
