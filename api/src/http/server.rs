//! The HTTP server: our own accept loop serving the poem endpoint over hyper, with TCP_NODELAY, bounded
//! connections and a graceful shutdown that lets in-flight requests finish.
//!
//! Why not `poem::Server`: it always boxes its acceptor, and the boxed IO (`tokio::io::split` halves, a lock
//! per read and write) does not report vectored writes, so hyper falls back to copying every response body
//! into its header buffer before writing. Serving the socket itself lets hyper write headers and body with
//! one `writev` (BENCHMARKS.md, "The accept loop over hyper").
//!
//! What a client can hold is bounded (`ConnectionLimits`): how many connections are open at once (past the
//! cap a connection gets a `503` and is closed), how long a connection may go without a request (from the
//! accept, through the HTTP/1-or-2 sniff, and between requests, on both protocols), how many streams an
//! HTTP/2 connection runs, and how slowly a request body may arrive.

use std::{
    convert::Infallible,
    future::Future,
    io,
    pin::Pin,
    sync::{
        Arc,
        atomic::{AtomicU64, AtomicUsize, Ordering},
    },
    task::{Context, Poll},
    time::Duration,
};

use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::{
    body::{Body as HttpBody, Frame, Incoming, SizeHint},
    service::service_fn,
};
use hyper_util::{
    rt::{TokioExecutor, TokioIo, TokioTimer},
    server::conn::auto,
};
use poem::{
    Endpoint, EndpointExt,
    http::uri::Scheme,
    web::{LocalAddr, RemoteAddr},
};
use tokio::{
    net::{TcpListener, TcpStream},
    sync::{Semaphore, watch},
    time::{Instant, Sleep},
};

/// The body type poem converts its responses into.
type ResponseBody = http_body_util::combinators::BoxBody<Bytes, io::Error>;

/// What one client can hold of the server.
#[derive(Debug, Clone, Copy)]
pub struct ConnectionLimits {
    /// Connections open at once; one more is answered `503` and closed.
    pub max_connections: usize,
    /// How long a connection may go without a request: from its accept to its first request's headers
    /// (slow-header attacks, silent sockets), and idle between requests.
    pub idle: Duration,
    /// A request body must end or send 16 KiB in every window this long, else the request fails (408).
    pub body_stall: Duration,
}

impl ConnectionLimits {
    pub const DEFAULT_MAX_CONNECTIONS: usize = 4096;
    pub const DEFAULT_IDLE_SECS: u64 = 30;
    pub const DEFAULT_BODY_STALL_SECS: u64 = 30;
    /// Streams one HTTP/2 connection runs at once (hyper's default is 200; browsers open at most ~100).
    const MAX_STREAMS: u32 = 100;
    /// The largest HTTP/2 header block (HTTP/1's is bounded by hyper's read buffer, ~400 KB).
    const MAX_HEADER_BYTES: u32 = 64 * 1024;
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        Self {
            max_connections: Self::DEFAULT_MAX_CONNECTIONS,
            idle: Duration::from_secs(Self::DEFAULT_IDLE_SECS),
            body_stall: Duration::from_secs(Self::DEFAULT_BODY_STALL_SECS),
        }
    }
}

/// What a connection past the cap is told before it is closed: the API's error body, and when to retry.
const OVER_CAPACITY: &[u8] =
    b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: 1\r\n\
Connection: close\r\nContent-Length: 81\r\n\r\n\
{\"message\":\"too many open connections; retry shortly\",\"status\":503,\"headers\":{}}\n";

/// Serves `endpoint` on `listener` until `shutdown` resolves; then stops accepting, lets every open
/// connection finish its in-flight requests (closing idle keep-alive connections), and returns once they
/// have, or after `grace`.
pub async fn serve<E>(
    listener: TcpListener,
    endpoint: E,
    limits: ConnectionLimits,
    shutdown: impl Future<Output = ()>,
    grace: Duration,
) -> io::Result<()>
where
    E: Endpoint + 'static,
{
    let endpoint = Arc::new(endpoint.map_to_response());
    let local = LocalAddr(listener.local_addr()?.into());
    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder.http1().timer(TokioTimer::new()).header_read_timeout(limits.idle);
    builder
        .http2()
        .timer(TokioTimer::new())
        .max_concurrent_streams(ConnectionLimits::MAX_STREAMS)
        .max_header_list_size(ConnectionLimits::MAX_HEADER_BYTES)
        // A peer that stops answering pings is gone: its connection is closed, not kept.
        .keep_alive_interval(Duration::from_secs(20))
        .keep_alive_timeout(Duration::from_secs(20));
    let builder = Arc::new(builder);
    let slots = Arc::new(Semaphore::new(limits.max_connections));
    let (stop, stopping) = watch::channel(false);
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
        let Ok(slot) = slots.clone().try_acquire_owned() else {
            refuse(stream);
            continue;
        };
        // Without TCP_NODELAY a body sent in several writes (a streamed original) ends in a small segment
        // that Nagle's algorithm holds back until the client's delayed ACK: 40 ms per response on Linux.
        if let Err(e) = stream.set_nodelay(true) {
            tracing::debug!(error = %e, "could not set TCP_NODELAY");
        }
        let activity = Arc::new(Activity::new(limits.idle));
        let service = {
            let (endpoint, local, remote) = (endpoint.clone(), local.clone(), RemoteAddr(remote.into()));
            let activity = activity.clone();
            let stall = limits.body_stall;
            service_fn(move |request: hyper::Request<Incoming>| {
                let (endpoint, local, remote) = (endpoint.clone(), local.clone(), remote.clone());
                let busy = activity.begin();
                async move {
                    let mut request = poem::Request::from((request, local, remote, Scheme::HTTP));
                    guard_body(&mut request, stall);
                    let response: hyper::Response<ResponseBody> = endpoint.get_response(request).await.into();
                    Ok::<_, Infallible>(busy_while_sent(response, busy))
                }
            })
        };
        let (builder, mut stopping) = (builder.clone(), stopping.clone());
        tokio::spawn(async move {
            let connection = builder.serve_connection_with_upgrades(TokioIo::new(stream), service);
            tokio::pin!(connection);
            // Set once the connection was asked to close: by the shutdown, or for being idle (then with the
            // moment it is dropped if the client still holds it open).
            let (mut closing, mut give_up) = (false, None::<Instant>);
            loop {
                let wake = give_up.unwrap_or_else(|| activity.next_check());
                tokio::select! {
                    result = &mut connection => {
                        if let Err(e) = result {
                            tracing::debug!(error = %e, "connection ended with an error");
                        }
                        break;
                    }
                    changed = stopping.changed(), if !closing => {
                        if changed.is_err() || *stopping.borrow() {
                            connection.as_mut().graceful_shutdown();
                            closing = true;
                        }
                    }
                    () = tokio::time::sleep_until(wake) => {
                        if give_up.is_some() {
                            break;
                        }
                        if activity.is_idle() {
                            // Never a request (a silent socket, a trickled preface or headers): dropped.
                            if activity.requests() == 0 {
                                tracing::debug!("closed a connection that sent no request in time");
                                break;
                            }
                            if !closing {
                                connection.as_mut().graceful_shutdown();
                                closing = true;
                            }
                            give_up = Some(Instant::now() + activity.idle);
                        }
                    }
                }
            }
            drop(slot);
        });
    }

    drop(listener);
    let _ = stop.send(true);
    let everyone = u32::try_from(limits.max_connections).unwrap_or(u32::MAX);
    tokio::select! {
        _ = slots.acquire_many(everyone) => {}
        () = tokio::time::sleep(grace) => {
            tracing::warn!(grace_secs = grace.as_secs(), "connections still open after the grace period; stopping");
        }
    }
    Ok(())
}

/// Tells a connection past the cap why it is closed, if its socket takes the few bytes at once (a new one
/// does); never waits for it. Written on the socket itself: tokio's `try_write` knows no readiness yet for
/// a stream just accepted.
fn refuse(stream: TcpStream) {
    tracing::debug!("refused a connection past the connection cap");
    if let Ok(stream) = stream.into_std() {
        let _ = io::Write::write(&mut &stream, OVER_CAPACITY);
        let _ = stream.shutdown(std::net::Shutdown::Write);
    }
}

/// When a connection last started or finished a request, and how many it has in flight.
struct Activity {
    opened: Instant,
    /// How long it may be idle.
    idle: Duration,
    /// Milliseconds since `opened` of the last start or end of a request.
    last_ms: AtomicU64,
    in_flight: AtomicUsize,
    started: AtomicU64,
}

/// A request in flight; its drop marks the end.
struct Busy(Arc<Activity>);

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.touch();
        self.0.in_flight.fetch_sub(1, Ordering::AcqRel);
    }
}

impl Activity {
    fn new(idle: Duration) -> Self {
        Self {
            opened: Instant::now(),
            idle,
            last_ms: AtomicU64::new(0),
            in_flight: AtomicUsize::new(0),
            started: AtomicU64::new(0),
        }
    }

    fn begin(self: &Arc<Self>) -> Busy {
        self.in_flight.fetch_add(1, Ordering::AcqRel);
        self.started.fetch_add(1, Ordering::Relaxed);
        self.touch();
        Busy(self.clone())
    }

    fn touch(&self) {
        let now = u64::try_from(self.opened.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.last_ms.store(now, Ordering::Relaxed);
    }

    fn requests(&self) -> u64 {
        self.started.load(Ordering::Relaxed)
    }

    fn busy(&self) -> bool {
        self.in_flight.load(Ordering::Acquire) > 0
    }

    /// When the connection becomes idle for `idle` if nothing happens; a period from now while a request
    /// is in flight.
    fn next_check(&self) -> Instant {
        if self.busy() {
            return Instant::now() + self.idle;
        }
        self.opened + Duration::from_millis(self.last_ms.load(Ordering::Relaxed)) + self.idle
    }

    fn is_idle(&self) -> bool {
        !self.busy() && Instant::now() >= self.next_check()
    }
}

/// A response body that may take long to send (streamed, or large) keeps its connection busy until it is
/// sent: the idle rule must not close a connection in the middle of a download. A small one is written at
/// once and skips the wrapper (and its allocation, on the hot path of cached variants).
fn busy_while_sent(response: hyper::Response<ResponseBody>, busy: Busy) -> hyper::Response<ResponseBody> {
    const WRITTEN_AT_ONCE: u64 = 1 << 20;
    let small = response.body().size_hint().upper().is_some_and(|len| len <= WRITTEN_AT_ONCE);
    if small || response.body().is_end_stream() {
        return response;
    }
    response.map(|body| Sending { inner: body, _busy: busy }.boxed())
}

/// A response body being sent, holding its connection's `Busy` until it is done or dropped.
struct Sending {
    inner: ResponseBody,
    _busy: Busy,
}

impl HttpBody for Sending {
    type Data = Bytes;
    type Error = io::Error;

    fn poll_frame(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, io::Error>>> {
        Pin::new(&mut self.get_mut().inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// Gives a request's body, if it has one, the stall rule (`StallGuard`), so a trickling client cannot hold
/// a handler, a file or an upload's lock for ever.
fn guard_body(request: &mut poem::Request, window: Duration) {
    let body: ResponseBody = request.take_body().into();
    if body.is_end_stream() {
        request.set_body(poem::Body::from(body));
        return;
    }
    let guarded =
        StallGuard { inner: body, window, timer: Box::pin(tokio::time::sleep(window)), started: None, bytes: 0 };
    request.set_body(poem::Body::from(guarded.boxed()));
}

/// Why a request body was cut off: it sent less than `min_bytes` in `secs` seconds.
#[derive(Debug, thiserror::Error)]
#[error("the request body sent less than {min_bytes} bytes in {secs} s")]
pub struct BodyStalled {
    pub secs: u64,
    pub min_bytes: u64,
}

/// The `BodyStalled` behind an error from reading a request body, however deeply wrapped in IO errors.
pub fn body_stalled<'a>(error: &'a (dyn std::error::Error + 'static)) -> Option<&'a BodyStalled> {
    let mut current = Some(error);
    while let Some(e) = current {
        if let Some(stalled) = e.downcast_ref::<BodyStalled>() {
            return Some(stalled);
        }
        // An io::Error's payload is not its source: look inside it.
        current = match e.downcast_ref::<io::Error>().and_then(io::Error::get_ref) {
            Some(inner) => Some(inner as &(dyn std::error::Error + 'static)),
            None => e.source(),
        };
    }
    None
}

/// A request body that must, in every window of `window` from its first read, end or send at least
/// `MIN_BYTES`: a body that sends nothing, or a byte now and then, fails with `BodyStalled`.
struct StallGuard {
    inner: ResponseBody,
    window: Duration,
    /// The end of the current window.
    timer: Pin<Box<Sleep>>,
    /// When the current window began: unset until the body is first read.
    started: Option<Instant>,
    /// Bytes received in the current window.
    bytes: u64,
}

impl StallGuard {
    /// The slowest body kept: 16 KiB per window (0.5 KiB/s at the default 30 s), far below any real link.
    const MIN_BYTES: u64 = 16 * 1024;

    /// Past the window's end: fails if it fell short, else starts the next window.
    fn close_window(&mut self, now: Instant) -> Result<(), io::Error> {
        if self.bytes < Self::MIN_BYTES {
            let stalled = BodyStalled { secs: self.window.as_secs(), min_bytes: Self::MIN_BYTES };
            return Err(io::Error::new(io::ErrorKind::TimedOut, stalled));
        }
        self.started = Some(now);
        self.bytes = 0;
        self.timer.as_mut().reset(now + self.window);
        Ok(())
    }
}

impl HttpBody for StallGuard {
    type Data = Bytes;
    type Error = io::Error;

    fn poll_frame(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, io::Error>>> {
        let this = self.get_mut();
        let now = Instant::now();
        let started = *this.started.get_or_insert_with(|| {
            this.timer.as_mut().reset(now + this.window);
            now
        });
        match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(Some(Ok(frame))) => {
                let len = frame.data_ref().map_or(0, |data| data.len() as u64);
                this.bytes = this.bytes.saturating_add(len);
                if now >= started + this.window
                    && let Err(e) = this.close_window(now)
                {
                    return Poll::Ready(Some(Err(e)));
                }
                Poll::Ready(Some(Ok(frame)))
            }
            Poll::Ready(other) => Poll::Ready(other),
            Poll::Pending => {
                while this.timer.as_mut().poll(cx).is_ready() {
                    if let Err(e) = this.close_window(Instant::now()) {
                        return Poll::Ready(Some(Err(e)));
                    }
                }
                Poll::Pending
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::OVER_CAPACITY;

    /// The refusal is written by hand: its Content-Length must be its body's, or a client waits for bytes
    /// that never come.
    #[test]
    fn the_refusal_declares_its_own_length() {
        let text = std::str::from_utf8(OVER_CAPACITY).unwrap();
        let (head, body) = text.split_once("\r\n\r\n").unwrap();
        let declared: usize = head.lines().find_map(|l| l.strip_prefix("Content-Length: ")).unwrap().parse().unwrap();
        assert_eq!(declared, body.len());
        assert!(serde_json::from_str::<serde_json::Value>(body).is_ok_and(|v| v["status"] == 503));
    }
}
