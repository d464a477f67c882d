//! Result store (placeholder, see helper).
