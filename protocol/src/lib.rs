//! Every message on Tengen's wire: `ClientMsg` (client to server) and `ServerMsg` (server to client),
//! serde JSON tagged by `type`, with newtype ids and stable error codes. No I/O lives here, so the server,
//! the load generator and the bot bridge all share one definition of the protocol.
//!
//! The messages themselves arrive with the server issue; for now the crate holds the version number that
//! `hello` will negotiate.

/// The protocol version a client announces in `hello`; the server refuses versions it does not speak.
pub const PROTOCOL_VERSION: u32 = 1;
