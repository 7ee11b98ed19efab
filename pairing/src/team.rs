//! Team events (placeholder).
