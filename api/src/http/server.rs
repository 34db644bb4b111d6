//! The HTTP server: our own accept loop serving the poem endpoint over hyper, with TCP_NODELAY and a graceful
//! shutdown that lets in-flight requests finish.
//!
//! Why not `poem::Server`: it always boxes its acceptor, and the boxed IO (`tokio::io::split` halves, a lock
//! per read and write) does not report vectored writes, so hyper falls back to copying every response body
//! into its header buffer before writing. Serving the socket itself lets hyper write headers and body with
//! one `writev` (BENCHMARKS.md, "The accept loop over hyper").

use std::{convert::Infallible, future::Future, io, sync::Arc, time::Duration};

use bytes::Bytes;
use hyper::{body::Incoming, service::service_fn};
use hyper_util::{
    rt::{TokioExecutor, TokioIo, TokioTimer},
    server::{conn::auto, graceful::GracefulShutdown},
};
use poem::{
    Endpoint, EndpointExt,
    http::uri::Scheme,
    web::{LocalAddr, RemoteAddr},
};
use tokio::net::TcpListener;

/// The body type poem converts its responses into.
type ResponseBody = http_body_util::combinators::BoxBody<Bytes, io::Error>;

/// How long a client may take to send a request's headers (slow-header attacks hold connections open).
const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(30);

/// Serves `endpoint` on `listener` until `shutdown` resolves; then stops accepting, lets every open
/// connection finish its in-flight requests (closing idle keep-alive connections), and returns once they
/// have, or after `grace`.
pub async fn serve<E>(
    listener: TcpListener,
    endpoint: E,
    shutdown: impl Future<Output = ()>,
    grace: Duration,
) -> io::Result<()>
where
    E: Endpoint + 'static,
{
    let endpoint = Arc::new(endpoint.map_to_response());
    let local = LocalAddr(listener.local_addr()?.into());
    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder.http1().timer(TokioTimer::new()).header_read_timeout(HEADER_READ_TIMEOUT);
    let connections = GracefulShutdown::new();
    tokio::pin!(shutdown);

    loop {
        let (stream, remote) = tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of file descriptors or a connection reset before accept: wait a moment rather than
                    // spin, and keep serving the connections already open.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        // Without TCP_NODELAY a body sent in several writes (a streamed original) ends in a small segment
        // that Nagle's algorithm holds back until the client's delayed ACK: 40 ms per response on Linux.
        if let Err(e) = stream.set_nodelay(true) {
            tracing::debug!(error = %e, "could not set TCP_NODELAY");
        }
        let service = {
            let (endpoint, local, remote) = (endpoint.clone(), local.clone(), RemoteAddr(remote.into()));
            service_fn(move |request: hyper::Request<Incoming>| {
                let (endpoint, local, remote) = (endpoint.clone(), local.clone(), remote.clone());
                async move {
                    let request = poem::Request::from((request, local, remote, Scheme::HTTP));
                    let response: hyper::Response<ResponseBody> = endpoint.get_response(request).await.into();
                    Ok::<_, Infallible>(response)
                }
            })
        };
        let connection = builder.serve_connection_with_upgrades(TokioIo::new(stream), service).into_owned();
        let connection = connections.watch(connection);
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::debug!(error = %e, "connection ended with an error");
            }
        });
    }

    drop(listener);
    tokio::select! {
        () = connections.shutdown() => {}
        () = tokio::time::sleep(grace) => {
            tracing::warn!(grace_secs = grace.as_secs(), "connections still open after the grace period; stopping");
        }
    }
    Ok(())
}
