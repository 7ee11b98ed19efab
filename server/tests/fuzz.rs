//! A bounded protocol fuzz (item 7): a real server on 127.0.0.1:0 and real WebSocket
//! clients (anonymous, before `hello`, two players in a live game, a watcher with a study open) send
//! a few thousand frames from a fixed seed: the `→` examples of `protocol/README.md`, mutated
//! (fields changed to odd values, removed, added, types swapped, ids pointed at the real game,
//! table and users), random JSON, truncated JSON, deep nesting, huge numbers, oversized text,
//! binary frames and pings. It asserts that nothing panics anywhere in the process (a panic hook
//! counts), that every frame gets its answer (a request its reply by `id`, anything else an
//! error before the next request's reply), and that afterwards the server still answers
//! `/api/health` and two fresh players can start a game and play in it.

mod common;

use std::time::Duration;

use common::raw::RawConn;
use common::{http_get, start_table_game};

use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use serde_json::{json, Map, Value};
use tengen_server::config::{MAX_FRAME_BYTES, MAX_WS_MESSAGE_BYTES};
use tokio_tungstenite::tungstenite::Message;

/// The run's seed: the same frames every run, so a failure replays. `TENGEN_FUZZ_SEED` picks
/// another for a longer hunt by hand.
const SEED: u64 = 0x7E46_E413;

/// Fuzz frames per run: a few thousand, a few seconds in CI. `TENGEN_FUZZ_FRAMES` sets more.
const FRAMES: usize = 3_000;

/// A setting from the environment, for runs by hand; CI uses the defaults.
fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(default)
}

/// The protocol's own examples, the seeds of most frames.
const README: &str = include_str!("../../protocol/README.md");

fn examples() -> Vec<Value> {
    README
        .lines()
        .filter_map(|line| line.trim().strip_prefix("→ "))
        .filter_map(|text| serde_json::from_str(text).ok())
        .collect()
}

/// What one fuzz frame is, and so what answer it must get.
enum Fuzz {
    /// A JSON object carrying a fresh `id`: its reply must carry that id.
    Request(Value),
    /// Any other text: an error without a usable id must come before the next request's reply.
    Text(String),
    /// A message whose id the server cannot echo: some answer (an error, or the reply to a
    /// message that is fine without an id) must come before the next request's reply.
    Unkeyed(String),
    /// A binary frame: answered like text that is not a message.
    Binary(Vec<u8>),
    /// A ping: answered by the WebSocket layer, nothing to check but that the socket stays.
    Ping(Vec<u8>),
}

/// Real ids the frames point at, so mutated requests reach real games, tables and users.
struct Targets {
    game: u64,
    table: u64,
    users: Vec<u64>,
}

struct Fuzzer {
    rng: StdRng,
    examples: Vec<Value>,
    targets: Targets,
    /// For a run of frames on one connection, examples come from one family only, so sequences
    /// (pass, pass, resume, undo; a study's passes and steps back) happen, not just single frames.
    focus: Option<Family>,
}

/// Kinds of message that make sense in a row.
#[derive(Debug, Clone, Copy)]
enum Family {
    Study,
    Game,
}

impl Family {
    /// How often a kind comes up in a run: the ones that change the state most, more.
    fn weight(self, kind: Option<&str>) -> u32 {
        match kind.unwrap_or_default() {
            "study_pass" | "study_back" | "study_play" | "pass" | "resume_play" => 3,
            "undo" | "accept_undo" | "study_forward" => 2,
            _ => 1,
        }
    }

    fn has(self, kind: &str) -> bool {
        match self {
            Family::Study => kind.starts_with("study_"),
            Family::Game => [
                "play",
                "pass",
                "undo",
                "accept_undo",
                "decline_undo",
                "resume_play",
                "toggle_dead",
                "accept_score",
            ]
            .contains(&kind),
        }
    }
}

impl Fuzzer {
    fn next(&mut self) -> Fuzz {
        match self.rng.random_range(0..100) {
            0..=24 => Fuzz::Request(self.retargeted()),
            25..=54 => Fuzz::Request(self.mutated()),
            55..=62 => self.random_json(),
            63..=70 => Fuzz::Unkeyed(self.broken_text()),
            71..=74 => Fuzz::Text(self.deep_nesting()),
            75..=79 => Fuzz::Unkeyed(self.odd_id()),
            80..=83 => Fuzz::Text(self.oversized()),
            84..=89 => Fuzz::Binary(self.bytes(0..512)),
            90..=92 => Fuzz::Ping(self.bytes(0..64)),
            _ => Fuzz::Request(self.swapped_type()),
        }
    }

    fn example(&mut self) -> Value {
        match self.focus {
            Some(family) => {
                let kinds = self
                    .examples
                    .iter()
                    .filter(|e| e["type"].as_str().is_some_and(|kind| family.has(kind)));
                let chosen: Vec<&Value> = kinds.collect();
                let weight = |example: &&Value| family.weight(example["type"].as_str());
                (*chosen.choose_weighted(&mut self.rng, weight).unwrap()).clone()
            }
            None => self.examples.choose(&mut self.rng).cloned().unwrap(),
        }
    }

    /// An example pointed at the real game, table or users.
    fn retargeted(&mut self) -> Value {
        let mut msg = self.example();
        if let Some(fields) = msg.as_object_mut() {
            for (key, value) in fields.iter_mut() {
                match key.as_str() {
                    "game" => *value = json!(self.targets.game),
                    "table" => *value = json!(self.targets.table),
                    "user" => *value = json!(self.targets.users.choose(&mut self.rng)),
                    _ => {}
                }
            }
        }
        msg
    }

    /// An example with one field (anywhere in it) changed to an odd value, removed, or added.
    fn mutated(&mut self) -> Value {
        let mut msg = self.retargeted();
        for _ in 0..self.rng.random_range(1..=3) {
            let odd = self.odd_value();
            let rng = &mut self.rng;
            let Some(fields) = pick_object(&mut msg, rng) else {
                continue;
            };
            let keys: Vec<String> = fields.keys().cloned().collect();
            match (rng.random_range(0..4), keys.choose(rng)) {
                (0, Some(key)) if key != "type" => {
                    fields.remove(key);
                }
                (1, _) => {
                    let key = ["point", "amount", "settings", "size", "dead", "x"].choose(rng);
                    fields.insert(key.unwrap().to_string(), odd);
                }
                (_, Some(key)) => {
                    fields.insert(key.clone(), odd);
                }
                _ => {}
            }
        }
        msg
    }

    /// An example with another (or no known) message type.
    fn swapped_type(&mut self) -> Value {
        let mut msg = self.mutated();
        let kind = self.example()["type"].clone();
        let kind = if self.rng.random_bool(0.8) {
            kind
        } else {
            json!(self.word())
        };
        msg["type"] = kind;
        msg
    }

    fn odd_value(&mut self) -> Value {
        let big: u128 = 1 << 70;
        let choices = [
            json!(null),
            json!(-1),
            json!(0),
            json!(255),
            json!(256),
            json!(u32::MAX),
            json!(u64::MAX),
            json!(i64::MIN),
            json!(1.5),
            json!(1e300),
            serde_json::from_str(&big.to_string()).unwrap_or(json!(0)),
            json!(""),
            json!("x".repeat(600)),
            json!(self.word()),
            json!([]),
            json!([1, 2, 3]),
            json!({}),
            json!({"col": 255, "row": 255}),
            json!({"col": 30, "row": 0}),
            json!({"col": -1, "row": 2}),
            json!(true),
            json!(self.targets.game),
            json!(self.targets.game + 1),
            self.example(),
        ];
        choices.choose(&mut self.rng).cloned().unwrap()
    }

    fn word(&mut self) -> String {
        let len = self.rng.random_range(0..12);
        (0..len)
            .map(|_| {
                *b"abcdefghijklmnopqrstuvwxyz_"
                    .choose(&mut self.rng)
                    .unwrap() as char
            })
            .collect()
    }

    fn bytes(&mut self, len: std::ops::Range<usize>) -> Vec<u8> {
        let len = self.rng.random_range(len);
        (0..len).map(|_| self.rng.random()).collect()
    }

    /// Random JSON: an object is a request (given an id), anything else is plain text.
    fn random_json(&mut self) -> Fuzz {
        let value = self.random_value(3);
        match value {
            Value::Object(_) => Fuzz::Request(value),
            other => Fuzz::Text(other.to_string()),
        }
    }

    fn random_value(&mut self, depth: u32) -> Value {
        match self.rng.random_range(0..if depth == 0 { 4 } else { 6 }) {
            0 => json!(null),
            1 => json!(self.rng.random::<i64>()),
            2 => json!(self.word()),
            3 => json!(self.rng.random_bool(0.5)),
            4 => Value::Array((0..3).map(|_| self.random_value(depth - 1)).collect()),
            _ => {
                let mut fields = Map::new();
                for _ in 0..self.rng.random_range(0..4) {
                    fields.insert(self.word(), self.random_value(depth - 1));
                }
                if self.rng.random_bool(0.5) {
                    fields.insert("type".into(), self.example()["type"].clone());
                }
                Value::Object(fields)
            }
        }
    }

    /// An example's text cut short or with bytes replaced: not JSON, or not a message.
    fn broken_text(&mut self) -> String {
        let mut text: Vec<char> = self.retargeted().to_string().chars().collect();
        if self.rng.random_bool(0.5) {
            let cut = self.rng.random_range(0..text.len());
            text.truncate(cut);
        } else {
            for _ in 0..self.rng.random_range(1..4) {
                let at = self.rng.random_range(0..text.len());
                text[at] = *['{', '"', '\\', '\u{0}', '€', ']', ':']
                    .choose(&mut self.rng)
                    .unwrap();
            }
        }
        // Keep the id out of reach: a broken frame is answered without one.
        text.into_iter()
            .collect::<String>()
            .replace("\"id\"", "\"di\"")
    }

    /// Arrays or objects nested far deeper than any message.
    fn deep_nesting(&mut self) -> String {
        let depth = self.rng.random_range(100..20_000);
        if self.rng.random_bool(0.5) {
            format!("{}{}", "[".repeat(depth), "]".repeat(depth))
        } else {
            format!(
                "{}1{}",
                "{\"type\":\"hello\",\"a\":".repeat(depth),
                "}".repeat(depth)
            )
        }
    }

    /// A message whose `id` is not one the server can echo (negative, fractional, a string).
    fn odd_id(&mut self) -> String {
        let mut msg = self.retargeted();
        msg["id"] = [json!(-1), json!(1.5), json!("7"), json!(null), json!(1e30)]
            .choose(&mut self.rng)
            .cloned()
            .unwrap();
        msg.to_string()
    }

    /// Text over the frame limit (and under the WebSocket layer's hard cap).
    fn oversized(&mut self) -> String {
        let len = self
            .rng
            .random_range(MAX_FRAME_BYTES + 1..MAX_WS_MESSAGE_BYTES / 2);
        format!("{{\"type\":\"chat\",\"text\":\"{}\"}}", "x".repeat(len))
    }
}

/// An object somewhere in `value` (itself, or one nested in its fields).
fn pick_object<'a>(value: &'a mut Value, rng: &mut StdRng) -> Option<&'a mut Map<String, Value>> {
    let nested = value
        .as_object()
        .map(|fields| {
            fields
                .iter()
                .filter(|(_, v)| v.is_object())
                .map(|(k, _)| k.clone())
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    match nested.choose(rng) {
        Some(key) if rng.random_bool(0.4) => value.get_mut(key)?.as_object_mut(),
        _ => value.as_object_mut(),
    }
}

/// Send one fuzz frame on `conn` and check it got its answer.
async fn exchange(conn: &mut RawConn, fuzz: Fuzz, ids: &mut u64) {
    *ids += 1;
    let id = *ids;
    let (message, wants) = match fuzz {
        Fuzz::Request(mut msg) => {
            msg["id"] = json!(id);
            let text = msg.to_string();
            conn.send(Message::text(text.clone())).await;
            let (_, reply) = conn.until_reply(id, &text).await;
            // Bad input is refused with its reason; `internal` would mean the server broke.
            assert_ne!(reply["code"], "internal", "{}: {text}: {reply}", conn.name);
            return;
        }
        Fuzz::Text(text) => (Message::text(text), Wants::Error),
        Fuzz::Unkeyed(text) => (Message::text(text), Wants::Answer),
        Fuzz::Binary(bytes) => (Message::binary(bytes), Wants::Error),
        Fuzz::Ping(bytes) => (Message::Ping(bytes.into()), Wants::Nothing),
    };
    let context = format!("{:.200}", format!("{message:?}"));
    conn.send(message).await;
    // A known request after it: its reply comes after the fuzz frame's answer.
    conn.send(Message::text(
        json!({"type": "balance", "id": id}).to_string(),
    ))
    .await;
    let (before, _) = conn.until_reply(id, &context).await;
    let answered = match wants {
        Wants::Error => before
            .iter()
            .any(|frame| frame["type"] == "error" && frame["id"].is_null()),
        Wants::Answer => before.iter().any(|frame| frame["id"].is_null()),
        Wants::Nothing => true,
    };
    assert!(
        answered,
        "{}: no answer to {context}: {before:?}",
        conn.name
    );
}

/// The answer a frame without a usable id must get.
enum Wants {
    Error,
    Answer,
    Nothing,
}

#[tokio::test]
async fn the_server_answers_every_fuzzed_frame_and_never_panics() {
    common::raw::count_panics();
    let dir = tempfile::tempdir().unwrap();
    let mut config = common::test_config(dir.path());
    // The fuzz is about what frames say, not how fast they come: no frame is rate limited.
    config.messages_per_second = 1_000_000;
    config.messages_burst = 1_000_000;
    let server = common::TestServer::start_with(config).await;
    let url = server.ws_url();

    // Two players in a live game, a watcher, a guest, and a connection that never says hello.
    let mut alice = server.player("alice").await;
    let mut bob = server.player("bob").await;
    let game = start_table_game(&mut alice, &mut bob, 1).await;
    let users = vec![alice.user.unwrap(), bob.user.unwrap()];
    let mut ids = 1_000_000;
    let mut conns = Vec::new();
    for (name, login) in [
        ("alice", Some("alice")),
        ("bob", Some("bob")),
        ("carol", None),
        ("guest", None),
        ("silent", None),
    ] {
        let mut conn = RawConn::open(&url, name).await;
        if name != "silent" {
            conn.ok(&mut ids, json!({"type": "hello", "version": 1}))
                .await;
        }
        if let Some(username) = login {
            let login = json!({"type": "login", "username": username, "password": "password123"});
            conn.ok(&mut ids, login).await;
            conn.ok(&mut ids, json!({"type": "watch", "game": game}))
                .await;
        }
        if name == "carol" {
            let register =
                json!({"type": "register", "username": "carol", "password": "password123"});
            conn.ok(&mut ids, register).await;
            let study =
                json!({"type": "study_open", "size": 9, "komi_half_points": 15, "handicap": 0});
            conn.ok(&mut ids, study).await;
        }
        conns.push(conn);
    }

    let mut fuzzer = Fuzzer {
        rng: StdRng::seed_from_u64(env_or("TENGEN_FUZZ_SEED", SEED)),
        examples: examples(),
        targets: Targets {
            game,
            table: 1,
            users,
        },
        focus: None,
    };
    assert!(
        fuzzer.examples.len() > 50,
        "the README's examples were not found"
    );
    let (mut sent, frames) = (0, env_or("TENGEN_FUZZ_FRAMES", FRAMES));
    while sent < frames {
        let index = fuzzer.rng.random_range(0..conns.len());
        // Now and then a run of one family on one connection, mostly well-formed.
        let run = if fuzzer.rng.random_bool(0.1) {
            fuzzer.focus = [Family::Study, Family::Game]
                .choose(&mut fuzzer.rng)
                .copied();
            fuzzer.rng.random_range(4..24)
        } else {
            1
        };
        for step in 0..run {
            // A game's run alternates between its two players (Alice and Bob), a study's stays
            // mostly with Carol, who has one open.
            let index = match fuzzer.focus {
                Some(Family::Game) => step % 2,
                Some(Family::Study) if index % 2 == 0 => 2,
                _ => index,
            };
            let fuzz = match fuzzer.focus {
                Some(_) if fuzzer.rng.random_bool(0.8) => Fuzz::Request(fuzzer.retargeted()),
                _ => fuzzer.next(),
            };
            exchange(&mut conns[index], fuzz, &mut ids).await;
            sent += 1;
        }
        fuzzer.focus = None;
    }
    assert_eq!(common::raw::panics(), 0, "the server panicked");

    // Still serving: health, and two fresh players start a game and play.
    let health = http_get(server.addr, "/api/health", None).await;
    assert!(health.starts_with("HTTP/1.1 200"), "{health}");
    let mut dave = server.player("dave").await;
    let mut erin = server.player("erin").await;
    let fresh = start_table_game(&mut dave, &mut erin, 2).await;
    common::play(&mut dave, fresh, 4, 4).await;
    common::play(&mut erin, fresh, 2, 2).await;
    for conn in conns {
        drop(conn);
    }
    tokio::time::timeout(Duration::from_secs(10), server.stop())
        .await
        .unwrap();
    assert_eq!(common::raw::panics(), 0, "the server panicked");
}
