//! kraft-rs admin layer.
