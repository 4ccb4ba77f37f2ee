//! impact-server: Impact's JSON-RPC service. It translates requests into calls of the core
//! and schedules the solves; it computes nothing itself. `start` binds one port that
//! serves JSON-RPC over HTTP POST and WebSocket at `/` and the plain HTTP routes beside it.

pub mod cache;
pub mod config;
pub mod discover;
pub mod errors;
pub mod export;
pub mod jobs;
pub mod limits;
pub mod mesh_import;
pub mod metrics;
pub mod observe;
pub mod pages;
pub mod results;
pub mod routes;
pub mod rpc;
pub mod rpc_jobs;
pub mod scheduler;
pub mod server;
pub mod store;

pub use config::Config;
pub use server::{start, RunningServer, StartError};
