//! `tengen-loadtest`: the load generator. It will drive N real WebSocket clients (players pairing into games
//! that play legal moves chosen with `tengen-rules`, and watchers who chat and bet) against a running server,
//! open loop, and print a report beside a raw broadcast baseline (see the load-generator issue).
//!
//! Until the server speaks its protocol there is nothing to drive, so the binary says so and exits non-zero
//! rather than printing figures it did not measure.

fn main() {
    eprintln!(
        "tengen-loadtest: not built yet; it needs the server's wire protocol (version {})",
        tengen_protocol::PROTOCOL_VERSION
    );
    std::process::exit(2);
}
