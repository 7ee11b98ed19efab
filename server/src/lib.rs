//! The Tengen server library: everything `tengen` runs.
//!
//! # Layout
//! - `gtp`: a GTP version 2 referee over `tengen-rules`, for driving the engine from any Go tool.

pub mod gtp;
