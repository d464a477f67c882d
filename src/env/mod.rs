//! Environment fingerprint (placeholder, see helper).
