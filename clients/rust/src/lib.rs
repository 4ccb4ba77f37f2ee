//! impact-client: a typed client of Impact's JSON-RPC protocol (HTTP and WebSocket), an
//! in-process stand-in for `--local`, a way to start a private server, and the oracle
//! harness that checks verification cases against any of them.

pub mod client;
pub mod error;
pub mod local;
pub mod oracle;
pub mod plot;
pub mod progress;
pub mod spawn;

pub use client::Client;
pub use error::{ClientError, RpcError};
pub use local::{Local, LocalError};
pub use spawn::{SpawnError, SpawnedServer};
