//! Every field of every message, arbitrary: for each `type` a client may send (`ClientMsg::types`),
//! its README example with every string replaced by arbitrary Unicode (any plane, controls, lone
//! combining marks, bidi controls and zero-width characters, JSON escapes of lone surrogates such as
//! `"\ud800"`, strings up to and past the frame limit) and every number by an arbitrary one (0, −1,
//! 2^53 − 1, 2^53, 2^64, 1e308, 1.5, −0.0, small ids that name real rooms, tables and games, random
//! ones), sent by an anonymous connection, a player in a live game and a watcher with a study open,
//! against a real server on 127.0.0.1:0. Every case must be answered with its `id`, by a correct
//! answer or an `error` with a known code (never `internal`), or, when the frame is not JSON a
//! server can read (a lone surrogate), by an `error`; the connection must answer the next request;
//! nothing may panic anywhere in the process; and afterwards two fresh players start a game.
//!
//! The cases come from a fixed seed, a few per type in CI; `TENGEN_FUZZ_CASES` sets how many in all
//! (`TENGEN_FUZZ_SEED` another seed) for a longer run by hand.

mod common;

use std::time::{Duration, Instant};

use common::raw::RawConn;
use common::{http_get, start_table_game};

use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};
use tengen_protocol::{ClientMsg, ErrorCode};
use tengen_server::config::MAX_FRAME_BYTES;
use tokio_tungstenite::tungstenite::Message;

/// The run's seed, so a failure replays.
const SEED: u64 = 0x05EE_D0FD;

/// Cases per message type in CI: every type several times, a few seconds in all.
const CASES_PER_TYPE: usize = 16;

const README: &str = include_str!("../../protocol/README.md");

/// A string value that the frame's text turns into a JSON escape of a lone surrogate (which no Rust
/// string can hold).
const SURROGATE_MARK: &str = "\u{E000}surrogate\u{E000}";

/// A setting from the environment, for runs by hand.
fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(default)
}

/// A message of type `kind` with every field the README's examples of it show (optional ones
/// too, such as `register`'s `rank`), each with the value of the first example that has it.
fn example_of(kind: &str) -> Value {
    let mut fields = serde_json::Map::new();
    let examples = README
        .lines()
        .filter_map(|line| line.trim().strip_prefix("→ "))
        .filter_map(|text| serde_json::from_str::<Value>(text).ok())
        .filter(|example| example["type"] == kind);
    for example in examples {
        for (key, value) in example.as_object().into_iter().flatten() {
            fields.entry(key.clone()).or_insert_with(|| value.clone());
        }
    }
    assert!(
        !fields.is_empty(),
        "protocol/README.md has no example of {kind:?}"
    );
    Value::Object(fields)
}

struct Cases {
    rng: StdRng,
    /// Whether this case's one long string (near or past the frame limit) is still to be placed.
    long_left: bool,
}

impl Cases {
    /// `example` with every string and number in it (except its `type`) replaced.
    fn case(&mut self, example: &Value) -> Value {
        self.long_left = self.rng.random_bool(0.08);
        let mut msg = example.clone();
        if let Some(fields) = msg.as_object_mut() {
            fields.remove("id");
            for (key, value) in fields.iter_mut() {
                if key != "type" {
                    self.replace(value);
                }
            }
        }
        msg
    }

    /// Replace `value`'s leaves, most of them: a leaf now and then keeps the example's value, so
    /// that many cases are well formed but for one field and reach the handler behind the parser.
    fn replace(&mut self, value: &mut Value) {
        let leaf = !(value.is_array() || value.is_object());
        if leaf && self.rng.random_bool(0.25) {
            return;
        }
        match value {
            Value::String(text) => *text = self.string(),
            Value::Number(_) => *value = self.number(),
            Value::Bool(flag) => *flag = self.rng.random(),
            Value::Array(items) => items.iter_mut().for_each(|item| self.replace(item)),
            Value::Object(fields) => fields.values_mut().for_each(|field| self.replace(field)),
            Value::Null => {
                if self.rng.random_bool(0.3) {
                    *value = self.number();
                }
            }
        }
    }

    fn number(&mut self) -> Value {
        let two_53 = 1u64 << 53;
        let edges = [
            json!(0),
            json!(-1),
            json!(1),
            json!(2),
            json!(two_53 - 1),
            json!(two_53),
            json!(u64::MAX),
            json!(18_446_744_073_709_551_616.0),
            json!(1e308),
            json!(1.5),
            json!(-0.0),
            json!(i64::MIN),
            json!(u32::MAX),
            json!(u32::MAX as u64 + 1),
        ];
        match self.rng.random_range(0..4) {
            0 => json!(self.rng.random::<u64>()),
            1 => json!(self.rng.random::<i64>()),
            2 => json!(self.rng.random_range(0..40)),
            _ => edges.choose(&mut self.rng).cloned().unwrap_or(json!(0)),
        }
    }

    fn string(&mut self) -> String {
        if self.long_left && self.rng.random_bool(0.5) {
            self.long_left = false;
            // Around the frame limit: just under it, and past it (answered `frame_too_large`).
            let bytes = [
                MAX_FRAME_BYTES - 300,
                MAX_FRAME_BYTES + 1,
                3 * MAX_FRAME_BYTES / 2,
            ]
            .choose(&mut self.rng)
            .copied()
            .unwrap_or(MAX_FRAME_BYTES);
            let unit = self.char().to_string();
            return unit.repeat(bytes / unit.len());
        }
        if self.rng.random_bool(0.05) {
            return SURROGATE_MARK.to_string();
        }
        let len = match self.rng.random_range(0..10) {
            0 => 0,
            1 => self.rng.random_range(100..600),
            _ => self.rng.random_range(1..24),
        };
        (0..len).map(|_| self.char()).collect()
    }

    fn char(&mut self) -> char {
        let pick = |rng: &mut StdRng, ranges: &[(u32, u32)]| {
            let &(low, high) = ranges.choose(rng).unwrap_or(&(0x41, 0x5A));
            char::from_u32(rng.random_range(low..=high)).unwrap_or('\u{FFFD}')
        };
        match self.rng.random_range(0..8) {
            // Any scalar value, any plane.
            0 | 1 => pick(&mut self.rng, &[(0, 0xD7FF), (0xE000, 0x10_FFFF)]),
            // Controls, C0 and C1.
            2 => pick(&mut self.rng, &[(0, 0x1F), (0x7F, 0x9F)]),
            // Lone combining marks.
            3 => pick(
                &mut self.rng,
                &[(0x300, 0x36F), (0x1AB0, 0x1AFF), (0x20D0, 0x20FF)],
            ),
            // Bidi controls and marks, zero-width characters, the BOM, Hangul fillers.
            4 => pick(
                &mut self.rng,
                &[
                    (0x200B, 0x200F),
                    (0x202A, 0x202E),
                    (0x2066, 0x2069),
                    (0xFEFF, 0xFEFF),
                    (0x3164, 0x3164),
                    (0x061C, 0x061C),
                ],
            ),
            // CJK, Cyrillic, Arabic.
            5 => pick(
                &mut self.rng,
                &[(0x4E00, 0x9FFF), (0x400, 0x4FF), (0x600, 0x6FF)],
            ),
            // JSON's own: quotes, backslashes, brackets.
            6 => *['"', '\\', ']', '[', '{', '}', '/', '<', '>', '&', '\'']
                .choose(&mut self.rng)
                .unwrap_or(&'"'),
            _ => pick(&mut self.rng, &[(0x61, 0x7A), (0x30, 0x39)]),
        }
    }

    /// The frame's text, and whether it holds a lone surrogate: a surrogate mark becomes a JSON
    /// escape of one (or, now and then, of a proper pair, which is fine JSON).
    fn text(&mut self, msg: &Value) -> (String, bool) {
        let mark = serde_json::to_string(SURROGATE_MARK).unwrap_or_default();
        let mark = mark.trim_matches('"');
        let text = msg.to_string();
        if !text.contains(mark) {
            return (text, false);
        }
        let escapes = [r"\ud800", r"\udfff", r"\ud83d", r"\ude00x", r"\ud83d\ude00"];
        let escape = escapes.choose(&mut self.rng).copied().unwrap_or(r"\ud800");
        (text.replace(mark, escape), escape != r"\ud83d\ude00")
    }
}

/// An error frame is well formed: a known code, never `internal`, and a message.
fn assert_clear_error(frame: &Value, context: &str) {
    let codes: Vec<Value> = ErrorCode::ALL
        .iter()
        .map(|code| serde_json::to_value(code).unwrap())
        .collect();
    assert!(codes.contains(&frame["code"]), "{context}: {frame}");
    assert_ne!(frame["code"], "internal", "{context}: {frame}");
    let message = frame["message"].as_str().unwrap_or_default();
    assert!(!message.is_empty(), "{context}: {frame}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_field_of_every_message_takes_arbitrary_values() {
    common::raw::count_panics();
    let dir = tempfile::tempdir().unwrap();
    let mut config = common::test_config(dir.path());
    // The test is about what frames say, not how fast they come, nor how many logins fail (the
    // players log in again after a case logged them out, after any number of failed guesses).
    config.messages_per_second = 1_000_000;
    config.messages_burst = 1_000_000;
    for login in [
        &mut config.throttles.login_pair,
        &mut config.throttles.login_account,
        &mut config.throttles.login_address,
    ] {
        login.free = u32::MAX;
    }
    let server = common::TestServer::start_with(config).await;
    let url = server.ws_url();

    let mut alice = server.player("alice").await;
    let mut bob = server.player("bob").await;
    let game = start_table_game(&mut alice, &mut bob, 1).await;
    let mut id = 1_000_000;
    let mut conns = Vec::new();
    for (name, login) in [("guest", None), ("alice", Some("alice")), ("carol", None)] {
        let mut conn = RawConn::open(&url, name).await;
        conn.ok(&mut id, json!({"type": "hello", "version": 1}))
            .await;
        if let Some(username) = login {
            let login = json!({"type": "login", "username": username, "password": "password123"});
            conn.ok(&mut id, login).await;
        }
        if name == "carol" {
            let register =
                json!({"type": "register", "username": "carol", "password": "password123"});
            conn.ok(&mut id, register).await;
            let study =
                json!({"type": "study_open", "size": 9, "komi_half_points": 15, "handicap": 0});
            conn.ok(&mut id, study).await;
        }
        conn.ok(&mut id, json!({"type": "watch", "game": game}))
            .await;
        conns.push(conn);
    }

    let types: Vec<&str> = ClientMsg::types().collect();
    let examples: Vec<Value> = types.iter().map(|kind| example_of(kind)).collect();
    let total = env_or("TENGEN_FUZZ_CASES", CASES_PER_TYPE * types.len());
    let mut cases = Cases {
        rng: StdRng::seed_from_u64(env_or("TENGEN_FUZZ_SEED", SEED)),
        long_left: false,
    };
    let started = Instant::now();
    let (mut answered, mut unreadable) = (0, 0);
    let mut refused = std::collections::BTreeMap::<String, usize>::new();
    for n in 0..total {
        let example = &examples[n % examples.len()];
        let mut msg = cases.case(example);
        id += 1;
        let case_id = id;
        msg["id"] = json!(case_id);
        let (text, lone_surrogate) = cases.text(&msg);
        let who = cases.rng.random_range(0..conns.len());
        let conn = &mut conns[who];
        let context = format!("{}: {:.300}", conn.name, text);
        conn.send(Message::text(text)).await;
        // The next request's reply comes after the case's answer: so the case was answered, and
        // the connection still serves.
        id += 1;
        let next = json!({"type": "hello", "version": 1, "id": id}).to_string();
        let (before, reply) = conn.exchange(next, id, &context).await;
        assert_eq!(
            reply["type"], "welcome",
            "{context}: the next request: {reply}"
        );
        let answer = before.iter().find(|frame| frame["id"] == json!(case_id));
        match answer {
            Some(frame) if frame["type"] == "error" => {
                assert_clear_error(frame, &context);
                let code = frame["code"].as_str().unwrap_or_default().to_string();
                *refused.entry(code).or_default() += 1;
            }
            Some(frame) => {
                answered += 1;
                // The guest stays anonymous, so account messages keep reaching what they check.
                if conn.name == "guest" && frame["type"] == "session" {
                    conn.ok(&mut id, json!({"type": "logout"})).await;
                }
                // A player logged out by a case logs in again, so later cases reach further than
                // `not_logged_in`.
                let kind = example["type"].as_str().unwrap_or_default();
                if conn.name != "guest" && kind.starts_with("logout") {
                    let login =
                        json!({"type": "login", "username": conn.name, "password": "password123"});
                    conn.ok(&mut id, login).await;
                }
            }
            None => {
                // Only a frame no JSON reader takes (a lone surrogate before its `id`) may be
                // answered without its id, and then by an error.
                let error = before
                    .iter()
                    .find(|frame| frame["type"] == "error" && frame["id"].is_null());
                match error {
                    Some(frame) if lone_surrogate => {
                        assert_clear_error(frame, &context);
                        unreadable += 1;
                    }
                    _ => panic!("{context}: no answer: {before:?}"),
                }
            }
        }
        assert_eq!(common::raw::panics(), 0, "{context}: a panic");
    }
    println!(
        "{total} cases over {} message types in {:.1} s: {answered} answered, {} refused with a code, {unreadable} unreadable frames refused; codes: {refused:?}",
        types.len(),
        started.elapsed().as_secs_f64(),
        refused.values().sum::<usize>(),
    );
    // The cases got past the parser into the handlers, not only refused as malformed.
    assert!(answered > 0, "no case was answered");
    assert!(refused.len() > 10, "too few kinds of refusal: {refused:?}");

    // Still serving: health, and two fresh players start a game and play.
    let health = http_get(server.addr, "/api/health", None).await;
    assert!(health.starts_with("HTTP/1.1 200"), "{health}");
    let mut dave = server.player("dave").await;
    let mut erin = server.player("erin").await;
    let fresh = start_table_game(&mut dave, &mut erin, 2).await;
    common::play(&mut dave, fresh, 4, 4).await;
    common::play(&mut erin, fresh, 2, 2).await;
    drop(conns);
    tokio::time::timeout(Duration::from_secs(10), server.stop())
        .await
        .unwrap();
    assert_eq!(common::raw::panics(), 0, "the server panicked");
}
