//! Report formats (placeholder, see helper).
