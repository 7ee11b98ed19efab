//! The protocol README is the reference clients are written against, so every example in it must parse
//! into the Rust types and serialize back to the same JSON, and every message type and error code must
//! appear in it at least once.

use std::collections::BTreeSet;

use tengen_protocol::{ClientMsg, ConnectionServerMsg, ErrorCode, Request, ServerMsg};

const README: &str = include_str!("../README.md");

/// The example lines: `→ ` client frames and `← ` server frames, in order.
fn example_lines() -> Vec<(bool, &'static str)> {
    README
        .lines()
        .filter_map(|line| {
            if let Some(rest) = line.strip_prefix("→ ") {
                Some((true, rest))
            } else {
                line.strip_prefix("← ").map(|rest| (false, rest))
            }
        })
        .collect()
}

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|err| panic!("not JSON: {text}: {err}"))
}

#[test]
fn every_example_round_trips() {
    let lines = example_lines();
    assert!(lines.len() > 80, "found only {} example lines", lines.len());
    for (index, (from_client, text)) in lines.iter().enumerate() {
        if *from_client {
            match Request::parse(text) {
                Ok(request) => {
                    let back = serde_json::to_value(&request).unwrap();
                    assert_eq!(
                        back,
                        json(text),
                        "client example does not round-trip: {text}"
                    );
                }
                Err(err) => {
                    // A deliberately bad frame: the next server line must be the error it earns.
                    let (next_from_client, reply) = lines[index + 1];
                    assert!(!next_from_client, "bad frame without a reply: {text}");
                    match serde_json::from_str::<ServerMsg>(reply).unwrap() {
                        ServerMsg::Connection(ConnectionServerMsg::Error { code, id, .. }) => {
                            assert_eq!(code, err.code, "{text}");
                            assert_eq!(id, err.id, "{text}");
                        }
                        other => panic!("bad frame {text} answered by {other:?}"),
                    }
                }
            }
        } else {
            let msg: ServerMsg = serde_json::from_str(text)
                .unwrap_or_else(|err| panic!("server example does not parse: {text}: {err}"));
            let back = serde_json::to_value(&msg).unwrap();
            assert_eq!(
                back,
                json(text),
                "server example does not round-trip: {text}"
            );
        }
    }
}

/// Each server example is the frame the server sends, byte for byte (the round trip above compares
/// JSON values, which would not see fields reordered): a client that reads the page sees the wire.
#[test]
fn every_server_example_is_the_exact_frame() {
    for (from_client, text) in example_lines() {
        if from_client {
            continue;
        }
        let msg: ServerMsg = serde_json::from_str(text)
            .unwrap_or_else(|err| panic!("server example does not parse: {text}: {err}"));
        assert_eq!(
            msg.to_json(),
            text,
            "the server sends this example otherwise"
        );
    }
}

#[test]
fn every_message_type_has_an_example() {
    let mut client_seen = BTreeSet::new();
    let mut server_seen = BTreeSet::new();
    for (from_client, text) in example_lines() {
        let Ok(value) = serde_json::from_str::<serde_json::Value>(text) else {
            continue;
        };
        let kind = value["type"].as_str().unwrap_or_default().to_string();
        if from_client {
            client_seen.insert(kind);
        } else {
            server_seen.insert(kind);
        }
    }
    for kind in ClientMsg::types() {
        assert!(
            client_seen.contains(kind),
            "no example of client message {kind}"
        );
    }
    for kind in ServerMsg::types() {
        assert!(
            server_seen.contains(kind),
            "no example of server message {kind}"
        );
    }
}

#[test]
fn every_error_code_is_documented() {
    for code in ErrorCode::ALL {
        let cell = format!("| `{code}` |");
        assert!(
            README.contains(&cell),
            "error code {code} is not in the README's table"
        );
    }
}
