//! A connection spoken to at the frame level, for the tests that send frames a client library would
//! not (fuzzed and arbitrary ones) and read every answer by its request id; and the count of panics
//! those tests assert is zero.

use std::sync::atomic::{AtomicUsize, Ordering};

use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use super::FRAME_TIMEOUT;

/// One connection, named for the messages of a failing test.
pub struct RawConn {
    pub ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
    pub name: &'static str,
}

impl RawConn {
    pub async fn open(url: &str, name: &'static str) -> RawConn {
        let (ws, _) = tokio_tungstenite::connect_async(url).await.unwrap();
        RawConn { ws, name }
    }

    pub async fn send(&mut self, message: Message) {
        self.ws.send(message).await.unwrap();
    }

    /// The next text frame as JSON (pongs and other frames skipped); fails the test when the server
    /// closes the socket or says nothing within [`FRAME_TIMEOUT`].
    pub async fn read(&mut self, context: &str) -> Value {
        loop {
            let next = tokio::time::timeout(FRAME_TIMEOUT, self.ws.next()).await;
            let name = self.name;
            match next {
                Err(_) => panic!("{name}: no answer within the timeout to {context}"),
                Ok(Some(Ok(Message::Text(text)))) => {
                    return serde_json::from_str(text.as_str()).unwrap();
                }
                Ok(Some(Ok(Message::Close(_)))) | Ok(None) | Ok(Some(Err(_))) => {
                    panic!("{name}: the server closed the socket after {context}")
                }
                Ok(Some(Ok(_))) => continue,
            }
        }
    }

    /// Read until the reply to request `id`: the frames before it, and the reply.
    pub async fn until_reply(&mut self, id: u64, context: &str) -> (Vec<Value>, Value) {
        let mut before = Vec::new();
        loop {
            let frame = self.read(context).await;
            if frame["id"] == json!(id) {
                return (before, frame);
            }
            before.push(frame);
        }
    }

    /// Send `text` and read until the reply to request `id`.
    pub async fn exchange(&mut self, text: String, id: u64, context: &str) -> (Vec<Value>, Value) {
        self.send(Message::text(text)).await;
        self.until_reply(id, context).await
    }

    /// A setup request that must succeed, with the next of `ids`.
    pub async fn ok(&mut self, ids: &mut u64, mut msg: Value) {
        *ids += 1;
        msg["id"] = json!(*ids);
        let text = msg.to_string();
        let (_, reply) = self.exchange(text.clone(), *ids, &text).await;
        assert_ne!(reply["type"], "error", "{}: {text}: {reply}", self.name);
    }
}

/// Panics anywhere in the test's process, the server's tasks included, once [`count_panics`] ran.
static PANICS: AtomicUsize = AtomicUsize::new(0);

/// Count every panic from now on (still printed as usual), for a test that sends what no client
/// would and must see the server never panic; [`panics`] reads the count.
pub fn count_panics() {
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        PANICS.fetch_add(1, Ordering::SeqCst);
        default_hook(info);
    }));
}

/// Panics counted since [`count_panics`].
pub fn panics() -> usize {
    PANICS.load(Ordering::SeqCst)
}
