//! Competitions over sockets, for the event tests: players, an event created, and rounds played to
//! their end by test clients in which the player with the larger user id resigns every game.

use serde_json::{json, Value};

use super::{Client, TestServer};

/// Registers `count` players, player1 first (the smallest user id).
pub async fn players(server: &TestServer, count: usize) -> Vec<Client> {
    let mut clients = Vec::new();
    for n in 1..=count {
        clients.push(server.player(&format!("player{n}")).await);
    }
    clients
}

/// Creates the event `spec` as `director`; its id and the reply.
pub async fn create_event(director: &mut Client, spec: Value) -> (u64, Value) {
    let reply = director
        .ok(json!({"type": "create_event", "spec": spec}))
        .await;
    assert_eq!(reply["type"], "event", "{reply}");
    (reply["event"]["summary"]["event"].as_u64().unwrap(), reply)
}

/// Every one of `clients` enters the (individual) event.
pub async fn join_all(clients: &mut [Client], event: u64) {
    for client in clients.iter_mut() {
        let reply = client
            .ok(json!({"type": "join_event", "event": event}))
            .await;
        assert_eq!(reply["type"], "event", "{reply}");
    }
}

/// `loser` (one of `clients`) resigns `game` once its start has reached them.
pub async fn resign_as(clients: &mut [Client], loser: u64, game: u64) {
    let client = clients
        .iter_mut()
        .find(|c| c.user == Some(loser))
        .expect("the loser is one of the clients");
    client
        .wait_for(|f| f["type"] == "game_started" && f["game"] == game)
        .await;
    client.ok(json!({"type": "resign", "game": game})).await;
}

/// The director starts the next round, played as [`finish_round`] says.
pub async fn play_round(director: &mut Client, clients: &mut [Client], event: u64) -> Value {
    let started = director
        .ok(json!({"type": "start_round", "event": event}))
        .await;
    finish_round(director, clients, &started["event"]).await
}

/// In each game of the round just started (`view`), the player with the larger id resigns; returns
/// the event's push that shows every board of the round with its result.
pub async fn finish_round(director: &mut Client, clients: &mut [Client], view: &Value) -> Value {
    let event = view["summary"]["event"].clone();
    let round = view["rounds"].as_array().unwrap().last().unwrap().clone();
    for board in round["boards"].as_array().unwrap() {
        let game = board["game"].as_u64().expect("every board has its game");
        let (black, white) = (
            board["black"].as_u64().unwrap(),
            board["white"].as_u64().unwrap(),
        );
        resign_as(clients, black.max(white), game).await;
    }
    let number = round["number"].clone();
    let done = director
        .wait_for(|f| {
            f["type"] == "event"
                && f["event"]["summary"]["event"] == event
                && f["event"]["rounds"]
                    .as_array()
                    .and_then(|r| r.last())
                    .is_some_and(|last| {
                        last["number"] == number
                            && last["boards"]
                                .as_array()
                                .unwrap()
                                .iter()
                                .all(|b| !b["outcome"].is_null())
                    })
        })
        .await;
    done["event"].clone()
}
