//! End-to-end test support: locating and starting the real binaries.
