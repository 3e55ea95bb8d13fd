//! kraft-rs controller layer.
