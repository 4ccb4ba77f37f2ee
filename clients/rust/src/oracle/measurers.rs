//! The two real measurers: a server reached by the typed client (blocking on a private
//! runtime, since the harness itself is plain sequential code), and the core in-process.

use super::evaluate::{MeasureError, Measurer};
use crate::client::Client;
use crate::error::ClientError;
use crate::local::Local;
use impact_protocol::METHOD_SOLVE;
use serde_json::Value;
use tokio::runtime::Runtime;

/// Measures through a running server.
pub struct RemoteMeasurer {
    runtime: Runtime,
    client: Client,
}

impl RemoteMeasurer {
    /// Connect to the server at `url` (http:// or ws://).
    pub fn connect(url: &str) -> Result<Self, ClientError> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|source| ClientError::Runtime { source })?;
        let client = runtime.block_on(Client::connect(url))?;
        Ok(RemoteMeasurer { runtime, client })
    }
}

impl Measurer for RemoteMeasurer {
    fn solve(&mut self, params: &Value) -> Result<Value, MeasureError> {
        self.call(METHOD_SOLVE, params.clone())
    }

    fn call(&mut self, method: &str, params: Value) -> Result<Value, MeasureError> {
        self.runtime
            .block_on(self.client.call(method, params))
            .map_err(|e| MeasureError(e.to_string()))
    }
}

/// Measures with the core in this process (`--local`).
#[derive(Default)]
pub struct LocalMeasurer {
    local: Local,
}

impl LocalMeasurer {
    pub fn new() -> Self {
        Self::default()
    }
}

impl Measurer for LocalMeasurer {
    fn solve(&mut self, params: &Value) -> Result<Value, MeasureError> {
        self.call(METHOD_SOLVE, params.clone())
    }

    fn call(&mut self, method: &str, params: Value) -> Result<Value, MeasureError> {
        self.local
            .call(method, params)
            .map_err(|e| MeasureError(e.to_string()))
    }
}
