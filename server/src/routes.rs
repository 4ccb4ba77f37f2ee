//! Plain HTTP routes beside JSON-RPC on the same port (`GET /healthz`; `/metrics` goes
//! here too). A tower layer in front of jsonrpsee answers them; every other request
//! passes through to JSON-RPC.

use axum::http::{header, Method, StatusCode};
use jsonrpsee::core::BoxError;
use jsonrpsee::server::{HttpBody, HttpRequest, HttpResponse};
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use tower::{Layer, Service};

/// Adds the plain routes in front of a JSON-RPC service.
#[derive(Clone, Copy, Debug, Default)]
pub struct PlainRoutesLayer;

impl<S> Layer<S> for PlainRoutesLayer {
    type Service = PlainRoutes<S>;

    fn layer(&self, inner: S) -> Self::Service {
        PlainRoutes { inner }
    }
}

#[derive(Clone, Debug)]
pub struct PlainRoutes<S> {
    inner: S,
}

/// A plain route's answer, or None when the request is JSON-RPC's.
fn route(method: &Method, path: &str) -> Option<HttpResponse> {
    let (status, body) = match (method, path) {
        (&Method::GET, "/healthz") => (StatusCode::OK, "ok"),
        (_, "/healthz") => (StatusCode::METHOD_NOT_ALLOWED, "use GET"),
        _ => return None,
    };
    let mut response = HttpResponse::new(HttpBody::from(body));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    Some(response)
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
        match route(req.method(), req.uri().path()) {
            Some(response) => Box::pin(async move { Ok(response) }),
            None => {
                let fut = self.inner.call(req);
                Box::pin(async move { fut.await.map_err(Into::into) })
            }
        }
    }
}
