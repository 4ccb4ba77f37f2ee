//! impact-server: Impact's JSON-RPC service. It translates requests into calls of the core
//! and schedules the solves; it computes nothing itself. `start` binds one port that
//! serves JSON-RPC over HTTP POST and WebSocket at `/` and the plain HTTP routes beside it.

pub mod config;
pub mod errors;
pub mod jobs;
pub mod routes;
pub mod rpc;
pub mod scheduler;
pub mod server;

pub use config::Config;
pub use server::{start, RunningServer, StartError};
