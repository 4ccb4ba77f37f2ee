//! Plain HTTP beside JSON-RPC on the same port, as a tower layer in front of jsonrpsee:
//! `GET /healthz` (always open), the bearer-token check every other request passes (401
//! with a JSON-RPC error body when it fails), and `GET /metrics`. Everything else goes on
//! to JSON-RPC (HTTP POST and the WebSocket upgrade alike).

use crate::errors::RpcError;
use crate::metrics::Metrics;
use axum::http::{header, HeaderMap, Method, StatusCode};
use jsonrpsee::core::BoxError;
use jsonrpsee::server::{HttpBody, HttpRequest, HttpResponse};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use tower::{Layer, Service};

/// What the plain routes need: the token, if any, and the metrics page.
pub struct RouteState {
    pub token: Option<String>,
    pub metrics: Arc<Metrics>,
    /// Renders `/metrics` (it reads the job table, the queue and the cache).
    pub render_metrics: Box<dyn Fn() -> String + Send + Sync>,
    /// Serves `GET /export/{job}/{name}` (crate::export).
    pub exports: Arc<crate::export::ExportRoutes>,
    /// Serves `GET /jobs`, `/jobs/{id}` and the plots (crate::pages).
    pub pages: Arc<crate::pages::Pages>,
}

/// Adds the plain routes and the token check in front of a JSON-RPC service.
#[derive(Clone)]
pub struct PlainRoutesLayer {
    state: Arc<RouteState>,
}

impl PlainRoutesLayer {
    pub fn new(state: RouteState) -> Self {
        PlainRoutesLayer {
            state: Arc::new(state),
        }
    }
}

impl<S> Layer<S> for PlainRoutesLayer {
    type Service = PlainRoutes<S>;

    fn layer(&self, inner: S) -> Self::Service {
        PlainRoutes {
            inner,
            state: Arc::clone(&self.state),
        }
    }
}

#[derive(Clone)]
pub struct PlainRoutes<S> {
    inner: S,
    state: Arc<RouteState>,
}

fn text(status: StatusCode, content_type: &'static str, body: String) -> HttpResponse {
    let mut response = HttpResponse::new(HttpBody::from(body));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static(content_type),
    );
    response
}

/// Compare without an early exit, so the time taken says nothing about the token.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// None when the request may pass, else why not.
fn refused(token: &str, headers: &HeaderMap) -> Option<&'static str> {
    let Some(value) = headers.get(header::AUTHORIZATION) else {
        return Some("this server needs 'Authorization: Bearer <token>'");
    };
    let given = value
        .to_str()
        .ok()
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim);
    match given {
        Some(t) if same(t.as_bytes(), token.as_bytes()) => None,
        _ => Some("the bearer token is wrong"),
    }
}

fn unauthorized(reason: &str) -> HttpResponse {
    let err = RpcError::unauthorized(reason);
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {"code": err.code, "message": err.message, "data": *err.data},
    });
    let mut response = text(
        StatusCode::UNAUTHORIZED,
        "application/json",
        body.to_string(),
    );
    response.headers_mut().insert(
        header::WWW_AUTHENTICATE,
        header::HeaderValue::from_static("Bearer"),
    );
    response
}

impl<S> PlainRoutes<S> {
    /// A plain answer, or None when the request is JSON-RPC's.
    fn route(&self, method: &Method, path: &str, headers: &HeaderMap) -> Option<HttpResponse> {
        const PLAIN: &str = "text/plain; charset=utf-8";
        match (method, path) {
            (&Method::GET, "/healthz") => return Some(text(StatusCode::OK, PLAIN, "ok".into())),
            (_, "/healthz") => {
                return Some(text(
                    StatusCode::METHOD_NOT_ALLOWED,
                    PLAIN,
                    "use GET".into(),
                ))
            }
            _ => {}
        }
        if let Some(token) = &self.state.token {
            if let Some(reason) = refused(token, headers) {
                self.state.metrics.unauthorized();
                return Some(unauthorized(reason));
            }
        }
        match (method, path) {
            (&Method::GET, "/metrics") => Some(text(
                StatusCode::OK,
                "text/plain; version=0.0.4; charset=utf-8",
                (self.state.render_metrics)(),
            )),
            (_, "/metrics") => Some(text(
                StatusCode::METHOD_NOT_ALLOWED,
                PLAIN,
                "use GET".into(),
            )),
            _ => None,
        }
    }
}

impl<S, B> Service<HttpRequest<B>> for PlainRoutes<S>
where
    S: Service<HttpRequest<B>, Response = HttpResponse>,
    S::Error: Into<BoxError> + 'static,
    S::Future: Send + 'static,
{
    type Response = HttpResponse;
    type Error = BoxError;
    type Future = Pin<Box<dyn Future<Output = Result<HttpResponse, BoxError>> + Send + 'static>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx).map_err(Into::into)
    }

    fn call(&mut self, req: HttpRequest<B>) -> Self::Future {
        match self.route(req.method(), req.uri().path(), req.headers()) {
            Some(response) => Box::pin(async move { Ok(response) }),
            // The token check in `route` has passed: an export's file (crate::export).
            None if req.method() == Method::GET && req.uri().path().starts_with("/export/") => {
                match self.state.exports.serve(req.uri().path()) {
                    Some(answer) => Box::pin(async move { Ok(answer.await) }),
                    None => {
                        let fut = self.inner.call(req);
                        Box::pin(async move { fut.await.map_err(Into::into) })
                    }
                }
            }
            // The token check in `route` has passed: a job page or a plot (crate::pages).
            None if req.method() == Method::GET && req.uri().path().starts_with("/jobs") => {
                match self.state.pages.serve(req.uri().path(), req.uri().query()) {
                    Some(answer) => Box::pin(async move { Ok(answer.await) }),
                    None => {
                        let fut = self.inner.call(req);
                        Box::pin(async move { fut.await.map_err(Into::into) })
                    }
                }
            }
            None => {
                let fut = self.inner.call(req);
                Box::pin(async move { fut.await.map_err(Into::into) })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_exact_bearer_token_passes() {
        let mut h = HeaderMap::new();
        assert!(refused("s3cret", &h).is_some());
        h.insert(
            header::AUTHORIZATION,
            "Bearer s3cret".parse().expect("header"),
        );
        assert!(refused("s3cret", &h).is_none());
        h.insert(
            header::AUTHORIZATION,
            "Bearer s3cre".parse().expect("header"),
        );
        assert!(refused("s3cret", &h).is_some());
        h.insert(
            header::AUTHORIZATION,
            "Basic s3cret".parse().expect("header"),
        );
        assert!(refused("s3cret", &h).is_some());
    }
}
