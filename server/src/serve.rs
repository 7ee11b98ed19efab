//! The accept loop under the HTTP routes. `axum::serve` reads headers without a deadline and takes
//! every connection it is offered, so sockets trickling header bytes (or saying nothing) once held all
//! of the process's descriptors and the health check went unanswered. Here every accepted socket is
//! counted, in all and per address, before anything is read from it: one over a cap is answered 503 or
//! 429 and closed at once. Its slot travels with the socket itself ([`Counted`]), so an upgraded
//! WebSocket keeps holding it until it closes. hyper serves each connection with a header-read
//! deadline that also closes keep-alive connections left idle.

use std::collections::HashMap;
use std::convert::Infallible;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::extract::ConnectInfo;
use axum::Router;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tower::Service;

use crate::config::ACCEPT_ERROR_BACKOFF_MS;
use crate::{Shutdown, TaskGuard};

/// Why a connection was not taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refused {
    /// The server holds `Config::connections_max` connections already.
    Full,
    /// This address holds `Config::connections_per_ip_max` already.
    TooManyFromAddress,
}

impl Refused {
    /// A whole HTTP response, written without reading the request: the client learns why.
    fn response(self) -> &'static [u8] {
        match self {
            Refused::Full => {
                b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 5\r\nContent-Length: 31\r\nConnection: close\r\n\r\nthe server is full; try again\r\n"
            }
            Refused::TooManyFromAddress => {
                b"HTTP/1.1 429 Too Many Requests\r\nContent-Length: 40\r\nConnection: close\r\n\r\ntoo many connections from this address\r\n"
            }
        }
    }
}

/// Open connections, in all and per client address. One lock for both, taken twice per connection.
#[derive(Debug, Default)]
pub(crate) struct ConnCounter {
    counts: Mutex<Counts>,
}

#[derive(Debug, Default)]
struct Counts {
    total: usize,
    /// One entry per address with at least one connection; removed at zero, so bounded by the caps.
    per_ip: HashMap<IpAddr, usize>,
}

/// A connection's slot; released when dropped, however the connection ends.
#[derive(Debug)]
pub(crate) struct ConnPermit {
    counter: Arc<ConnCounter>,
    ip: IpAddr,
}

impl ConnCounter {
    fn counts(&self) -> std::sync::MutexGuard<'_, Counts> {
        self.counts.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A slot for a connection from `ip`, unless `total_max` connections are open or `per_ip_max`
    /// from that address.
    pub(crate) fn try_acquire(
        self: &Arc<Self>,
        ip: IpAddr,
        per_ip_max: usize,
        total_max: usize,
    ) -> Result<ConnPermit, Refused> {
        let mut counts = self.counts();
        if counts.total >= total_max {
            return Err(Refused::Full);
        }
        if counts.per_ip.get(&ip).copied().unwrap_or(0) >= per_ip_max {
            return Err(Refused::TooManyFromAddress);
        }
        *counts.per_ip.entry(ip).or_insert(0) += 1;
        counts.total += 1;
        Ok(ConnPermit {
            counter: Arc::clone(self),
            ip,
        })
    }

    /// Open connections in all.
    #[cfg(test)]
    fn total(&self) -> usize {
        self.counts().total
    }
}

impl Drop for ConnPermit {
    fn drop(&mut self) {
        let mut counts = self.counter.counts();
        counts.total = counts.total.saturating_sub(1);
        if let Some(count) = counts.per_ip.get_mut(&self.ip) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                counts.per_ip.remove(&self.ip);
            }
        }
    }
}

/// A socket with its connection slot: the slot is released when the socket is dropped, which for a
/// WebSocket is when its session ends, long after hyper handed the socket over at the upgrade.
#[derive(Debug)]
pub(crate) struct Counted {
    stream: TcpStream,
    _permit: ConnPermit,
}

impl AsyncRead for Counted {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for Counted {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }
}

/// The limits the accept loop applies.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    pub connections_max: usize,
    pub connections_per_ip_max: usize,
    pub header_read_timeout: Duration,
}

/// Accept connections on `listener` and serve `app` on each until `shutdown` fires; connections open
/// then finish their requests (each holds a clone of `tasks`).
pub(crate) async fn accept_loop(
    listener: TcpListener,
    app: Router,
    conns: Arc<ConnCounter>,
    limits: Limits,
    shutdown: Shutdown,
    tasks: TaskGuard,
) {
    let mut http = http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout);
    let refusals = AtomicU64::new(0);
    loop {
        let (stream, peer) = tokio::select! {
            _ = shutdown.wait() => return,
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(err) => {
                    accept_failed(&err).await;
                    continue;
                }
            },
        };
        let permit = match conns.try_acquire(
            peer.ip(),
            limits.connections_per_ip_max,
            limits.connections_max,
        ) {
            Ok(permit) => permit,
            Err(refused) => {
                refuse(&stream, peer, refused, &refusals);
                continue;
            }
        };
        // Every game event is a small frame that should leave at once: without TCP_NODELAY, Nagle's
        // algorithm holds a frame back until the previous one is acknowledged (delayed ACKs make that
        // up to 40 ms), which alone would break the move round-trip target.
        if let Err(err) = stream.set_nodelay(true) {
            tracing::debug!(%err, "could not set TCP_NODELAY");
        }
        let stream = Counted {
            stream,
            _permit: permit,
        };
        tokio::spawn(serve_connection(
            stream,
            peer,
            app.clone(),
            http.clone(),
            shutdown.clone(),
            tasks.clone(),
        ));
    }
}

/// Serve HTTP/1 on one connection (upgrades included) until it closes; at shutdown, let the request in
/// flight finish and close.
async fn serve_connection(
    stream: Counted,
    peer: SocketAddr,
    app: Router,
    http: http1::Builder,
    shutdown: Shutdown,
    _tasks: TaskGuard,
) {
    let service = hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
        request.extensions_mut().insert(ConnectInfo(peer));
        let mut app = app.clone();
        async move { Ok::<_, Infallible>(app.call(request).await.unwrap_or_else(|e| match e {})) }
    });
    let connection = http
        .serve_connection(TokioIo::new(stream), service)
        .with_upgrades();
    tokio::pin!(connection);
    let result = tokio::select! {
        result = connection.as_mut() => result,
        _ = shutdown.wait() => {
            connection.as_mut().graceful_shutdown();
            connection.await
        }
    };
    if let Err(err) = result {
        // A header timeout, a client that went away, a malformed request: the client's business.
        tracing::debug!(%err, %peer, "HTTP connection ended with an error");
    }
}

/// An `accept` that failed. Out of descriptors (or memory) it would fail again at once, so wait a
/// moment instead of spinning; a connection reset before it was accepted is nobody's concern.
async fn accept_failed(err: &io::Error) {
    use io::ErrorKind::{ConnectionAborted, ConnectionRefused, ConnectionReset};
    if matches!(
        err.kind(),
        ConnectionAborted | ConnectionRefused | ConnectionReset
    ) {
        return;
    }
    tracing::warn!(%err, "accept failed; pausing before the next");
    tokio::time::sleep(Duration::from_millis(ACCEPT_ERROR_BACKOFF_MS)).await;
}

/// Answer a connection over a cap and close it, without waiting for anything: what the client already
/// sent is read and dropped first (without blocking), so the close is a clean FIN that lets it read
/// the answer rather than a reset. Logged at `warn` on the 1st, 2nd, 4th, 8th... refusal, so a flood
/// is visible without writing a line per connection.
fn refuse(stream: &TcpStream, peer: SocketAddr, refused: Refused, refusals: &AtomicU64) {
    let mut discard = [0u8; 4096];
    while matches!(stream.try_read(&mut discard), Ok(n) if n > 0) {}
    let _ = stream.try_write(refused.response());
    let count = refusals.fetch_add(1, Ordering::Relaxed) + 1;
    if count.is_power_of_two() {
        tracing::warn!(%peer, ?refused, refusals = count, "refused connections over a cap");
    } else {
        tracing::debug!(%peer, ?refused, "refused a connection over a cap");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caps_count_every_connection_and_release_on_drop() {
        let counter = Arc::new(ConnCounter::default());
        let a: IpAddr = "127.0.0.2".parse().unwrap();
        let b: IpAddr = "127.0.0.3".parse().unwrap();
        let first = counter.try_acquire(a, 2, 3).unwrap();
        let _second = counter.try_acquire(a, 2, 3).unwrap();
        assert_eq!(
            counter.try_acquire(a, 2, 3).unwrap_err(),
            Refused::TooManyFromAddress
        );
        let _third = counter.try_acquire(b, 2, 3).unwrap();
        assert_eq!(counter.try_acquire(b, 2, 3).unwrap_err(), Refused::Full);
        assert_eq!(counter.total(), 3);
        drop(first);
        assert_eq!(counter.total(), 2);
        assert!(counter.try_acquire(a, 2, 3).is_ok());
        assert_eq!(counter.counts().per_ip.len(), 2);
    }
}
