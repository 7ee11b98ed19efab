//! `tengen-loadtest`: the load generator. It drives real WebSocket clients (tokio-tungstenite) against a
//! running Tengen server: players register, pair into 9x9 and 19x19 games by challenge and play legal
//! moves chosen with `tengen-rules` on a fixed schedule under a real clock setting, and watchers follow
//! each game and chat. Open loop: every message is sent at its intended time and latency is measured
//! from that time. The same scenario then drives a minimal broadcast server (the baseline) so the
//! report shows Tengen's figures as ratios to it. A second mode holds idle logged-in connections and
//! reads the server's memory per connection. A third (`hot-game`) drives one game with thousands of
//! watchers betting in a burst beside the everyday load.
//!
//! # Layout
//! - `scenario`: set up slots (players, watchers, a game each), drive them, return the figures.
//! - `client`: one connection's task: send at the intended time, read and time everything received.
//! - `metrics`: HdrHistogram latencies, counters and errors by code, recorded only in the window.
//! - `hot`: the title match: one game with thousands of watchers who bet in a burst, beside the
//!   everyday background.
//! - `hot_report`: the hot-game run's text and JSON, against the hot-game targets of PERFORMANCE.md.
//! - `event`: a Swiss event of many rounds: entrants who find their games in the event's
//!   pushes, watchers who bet, a director; `event_player` is one entrant, `event_check` the checks
//!   (standings recomputed with `tengen-pairing`), `event_report` the text and JSON.
//! - `idle`: many idle logged-in connections, and the server's RSS before and after.
//! - `baseline`: the minimal broadcast server with no game logic.
//! - `rss`: the server's resident memory, and finding its pid from its port.
//! - `nodes`: which node each client talks to when a run spreads over several.
//! - `report`: text and JSON, ratios to the baseline, targets met or missed.

pub mod baseline;
pub mod client;
pub mod event;
pub mod event_check;
pub mod event_player;
pub mod event_report;
pub mod hot;
pub mod hot_report;
pub mod idle;
pub mod metrics;
pub mod nodes;
pub mod report;
pub mod rss;
pub mod scenario;
