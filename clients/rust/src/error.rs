//! What a call to an Impact server can end in besides a result: the server's JSON-RPC
//! error (its code, message and `data` kept whole), a broken transport, an answer that
//! does not fit the protocol.

use impact_protocol::ErrorData;
use std::fmt;

/// The server's JSON-RPC error, whole.
#[derive(Debug, thiserror::Error)]
#[error("{method}: error {code}{}: {message}{}", Where(.data.as_ref()), Why(.message, .data.as_ref(), .raw_data.as_ref()))]
pub struct RpcError {
    pub method: String,
    pub code: i32,
    pub message: String,
    /// `data` read as Impact's error data; `None` when the server sent none or sent
    /// something else (jsonrpsee's own errors carry no Impact data).
    pub data: Option<ErrorData>,
    /// `data` as sent, for errors whose data is not Impact's.
    pub raw_data: Option<serde_json::Value>,
}

/// A failed call. The RPC variant keeps everything the server said, so a caller can
/// branch on the code and show the JSON pointer, job, element or time it names.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// Boxed: the server's answer is large beside the other variants.
    #[error(transparent)]
    Rpc(Box<RpcError>),
    #[error("{method}: {source}")]
    Transport {
        method: String,
        #[source]
        source: jsonrpsee::core::ClientError,
    },
    #[error("cannot connect to {url}: {source}")]
    Connect {
        url: String,
        #[source]
        source: jsonrpsee::core::ClientError,
    },
    #[error(
        "'{url}' is not a server address: it must start with http://, https://, ws:// or wss://"
    )]
    Scheme { url: String },
    #[error("cannot start the client's runtime: {source}")]
    Runtime {
        #[source]
        source: std::io::Error,
    },
    #[error("the params of {method} cannot be encoded: {source}")]
    Encode {
        method: String,
        #[source]
        source: serde_json::Error,
    },
    #[error("the answer to {method} does not fit the protocol: {source}")]
    Decode {
        method: String,
        #[source]
        source: serde_json::Error,
    },
}

impl ClientError {
    /// The JSON-RPC error code, when the server answered with an error.
    pub fn code(&self) -> Option<i32> {
        match self {
            ClientError::Rpc(e) => Some(e.code),
            _ => None,
        }
    }

    /// Impact's error data, when the server sent it.
    pub fn data(&self) -> Option<&ErrorData> {
        match self {
            ClientError::Rpc(e) => e.data.as_ref(),
            _ => None,
        }
    }

    /// Sort a jsonrpsee error into a server's answer or a transport failure.
    pub(crate) fn from_call(method: &str, err: jsonrpsee::core::ClientError) -> Self {
        match err {
            jsonrpsee::core::ClientError::Call(obj) => {
                let raw_data = obj
                    .data()
                    .and_then(|raw| serde_json::from_str::<serde_json::Value>(raw.get()).ok());
                let data = raw_data
                    .as_ref()
                    .and_then(|v| serde_json::from_value::<ErrorData>(v.clone()).ok());
                ClientError::Rpc(Box::new(RpcError {
                    method: method.to_string(),
                    code: obj.code(),
                    message: obj.message().to_string(),
                    data,
                    raw_data,
                }))
            }
            jsonrpsee::core::ClientError::ParseError(source) => ClientError::Decode {
                method: method.to_string(),
                source,
            },
            source => ClientError::Transport {
                method: method.to_string(),
                source,
            },
        }
    }
}

/// Where an RPC error's data says the fault is: pointer, job, step, element, time.
struct Where<'a>(Option<&'a ErrorData>);

impl fmt::Display for Where<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some(d) = self.0 else { return Ok(()) };
        if let Some(p) = &d.pointer {
            write!(
                f,
                " at {}",
                if p.is_empty() { "the params' root" } else { p }
            )?;
        }
        if let Some(j) = &d.job {
            write!(f, " (job {j})")?;
        }
        if let Some(s) = &d.step {
            write!(f, " (step '{s}')")?;
        }
        if let Some(e) = d.element {
            write!(f, " in element {e}")?;
        }
        if let Some(t) = d.time {
            write!(f, " at t = {t:e}")?;
        }
        Ok(())
    }
}

/// The data's reason when the message does not say it already, or data that is not
/// Impact's as sent.
struct Why<'a>(
    &'a str,
    Option<&'a ErrorData>,
    Option<&'a serde_json::Value>,
);

impl fmt::Display for Why<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.1, self.2) {
            (Some(d), _) if !d.reason.is_empty() && !self.0.contains(&d.reason) => {
                write!(f, ": {}", d.reason)
            }
            (Some(_), _) => Ok(()),
            (None, Some(raw)) => write!(f, " ({raw})"),
            (None, None) => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rpc(message: &str, data: Option<ErrorData>) -> String {
        ClientError::Rpc(Box::new(RpcError {
            method: "solve".into(),
            code: -32602,
            message: message.into(),
            raw_data: data.as_ref().map(|d| serde_json::to_value(d).unwrap()),
            data,
        }))
        .to_string()
    }

    #[test]
    fn an_rpc_error_says_where_and_why_once() {
        let data = ErrorData {
            pointer: Some("/model/materials/0/rho".into()),
            reason: "the density must be positive, got -1".into(),
            ..ErrorData::default()
        };
        assert_eq!(
            rpc("invalid params: the density must be positive, got -1", Some(data.clone())),
            "solve: error -32602 at /model/materials/0/rho: invalid params: the density must be positive, got -1"
        );
        assert_eq!(
            rpc("invalid params", Some(data)),
            "solve: error -32602 at /model/materials/0/rho: invalid params: the density must be positive, got -1"
        );
        assert_eq!(
            rpc("Method not found", None),
            "solve: error -32602: Method not found"
        );
    }
}
