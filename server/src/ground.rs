//! The ground every module of the server stands on, and which imports none of them: a [`Refusal`]
//! (an expected failure with its stable code) and how actors [`Reply`], the serialized [`Frame`] every
//! push is made of, the one wall-clock reading ([`unix_now_ms`]), the stop signal ([`Shutdown`]) and
//! the live-task count ([`TaskGuard`]) shutdown waits on. The crate's root re-exports them all, so
//! `crate::Refusal` is this module's.

use std::sync::Mutex;

use tengen_protocol::ErrorCode;
use tokio::sync::{mpsc, watch};

/// One serialized text frame. It is reference-counted bytes, so a game event or hall push is
/// serialized once and the same buffer goes to every socket that receives it.
pub type Frame = axum::extract::ws::Utf8Bytes;

/// A [`Frame`] as a JSON string, for the requests and replies nodes send each other
/// (`#[serde(with = "crate::frame_text")]`).
pub mod frame_text {
    use serde::{Deserialize, Deserializer, Serializer};

    use super::Frame;

    pub fn serialize<S: Serializer>(frame: &Frame, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(frame.as_str())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Frame, D::Error> {
        String::deserialize(deserializer).map(Frame::from)
    }
}

/// Errors that stop the server from starting or running; reported by `main` and tests.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Where an actor (a game, the hall) answers a command: the result, or why it was refused.
pub type Reply<T> = tokio::sync::oneshot::Sender<Result<T, Refusal>>;

/// A request refused for an expected reason: a stable [`ErrorCode`] (itself the enum of expected
/// failures every client switches on) and a sentence for people.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Refusal {
    pub code: ErrorCode,
    pub message: String,
}

impl Refusal {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Refusal {
        Refusal {
            code,
            message: message.into(),
        }
    }

    /// The actor or hall did not answer: it is shutting down or its inbox is full.
    pub fn busy() -> Refusal {
        Refusal::new(ErrorCode::Busy, "the server is busy; try again")
    }

    /// A message handed to a handler that is not one of its own: a routing mistake (a bug), logged
    /// and answered without changing anything.
    pub fn misrouted(msg: &impl std::fmt::Debug) -> Refusal {
        tracing::error!(?msg, "a message reached the wrong handler");
        Refusal::new(
            ErrorCode::Internal,
            "the server could not route that message",
        )
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for Refusal {}

/// Refuse a request: the one shorthand for `Err(Refusal::new(..))` that every handler returns early with.
pub fn refuse<T>(code: ErrorCode, message: impl Into<String>) -> Result<T, Refusal> {
    Err(Refusal::new(code, message))
}

/// Milliseconds since the Unix epoch, the one wall-clock reading the server takes (for expiry and
/// timestamps); game logic receives it as an argument.
pub fn unix_now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// Lock a mutex that holds plain bookkeeping (counts, lists, senders): a panic while it was held
/// leaves nothing half-written that a later holder could misread, so a poisoned lock is used as is.
pub fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The one stop signal every task selects on. Cloning is cheap; `wait` returns once the trigger fires
/// (or is dropped, which also means "stop").
#[derive(Debug, Clone)]
pub struct Shutdown {
    rx: watch::Receiver<bool>,
}

/// Fires the [`Shutdown`] it was made with.
#[derive(Debug)]
pub struct ShutdownTrigger {
    tx: watch::Sender<bool>,
}

impl Shutdown {
    pub fn new() -> (ShutdownTrigger, Shutdown) {
        let (tx, rx) = watch::channel(false);
        (ShutdownTrigger { tx }, Shutdown { rx })
    }

    pub async fn wait(&self) {
        let mut rx = self.rx.clone();
        // An error means the trigger was dropped: nobody can ask us to keep running, so stop too.
        let _ = rx.wait_for(|stop| *stop).await;
    }

    pub fn is_triggered(&self) -> bool {
        *self.rx.borrow()
    }

    /// A signal that fires with this one or on its own trigger: one part of the server (a game whose
    /// lease moved to another node) can be stopped while the rest runs on.
    pub fn child(&self) -> (ShutdownTrigger, Shutdown) {
        let (trigger, child) = Shutdown::new();
        let parent = self.clone();
        let watcher = child.clone();
        let link = ShutdownTrigger {
            tx: trigger.tx.clone(),
        };
        tokio::spawn(async move {
            tokio::select! {
                _ = parent.wait() => link.trigger(),
                _ = watcher.wait() => {}
            }
        });
        (trigger, child)
    }
}

impl ShutdownTrigger {
    pub fn trigger(&self) {
        let _ = self.tx.send(true);
    }
}

/// Counts live tasks: each holds a clone of the sender, and shutdown waits until all are dropped.
#[derive(Debug, Clone)]
pub struct TaskGuard {
    _alive: mpsc::Sender<()>,
}

impl TaskGuard {
    /// A guard on `alive`: the task that waits for every guard's drop holds its receiver.
    pub fn new(alive: mpsc::Sender<()>) -> TaskGuard {
        TaskGuard { _alive: alive }
    }
}

/// The UTC day (YYYY-MM-DD, as SGF's `DT` writes it) of a Unix time in ms, by the days-to-civil algorithm (H. Hinnant).
pub fn utc_date(unix_ms: u64) -> String {
    let days = (unix_ms / 86_400_000) as i64 + 719_468;
    let era = days.div_euclid(146_097);
    let day_of_era = days.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1_460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_dates_are_civil_days() {
        assert_eq!(utc_date(0), "1970-01-01");
        // 2000-02-29 12:00 UTC, a leap day in a century leap year.
        assert_eq!(utc_date(951_825_600_000), "2000-02-29");
        // 2026-11-29 00:00 UTC.
        assert_eq!(utc_date(1_795_910_400_000), "2026-11-29");
    }
}
