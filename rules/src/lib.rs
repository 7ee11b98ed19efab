//! The Go engine (in progress).
