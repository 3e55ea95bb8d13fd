//! A connection that is plain TCP or TLS, on either side, behind one type.

use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll};

use rustls_pki_types::CertificateDer;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;

/// A connection: plain TCP, or TLS on either side.
///
/// It reads and writes like the stream it holds (`AsyncRead + AsyncWrite`,
/// `Unpin`), so the protocol code does not care which it is.
#[derive(Debug)]
pub enum KafkaStream {
    /// Plain TCP (`PLAINTEXT`, `SASL_PLAINTEXT`).
    Plain(TcpStream),
    /// The server side of a TLS connection (`SSL`, `SASL_SSL` listeners).
    ServerTls(Box<tokio_rustls::server::TlsStream<TcpStream>>),
    /// The client side of a TLS connection.
    ClientTls(Box<tokio_rustls::client::TlsStream<TcpStream>>),
}

impl KafkaStream {
    /// The certificates the peer presented (its own first), if this is TLS
    /// and the peer sent any.
    pub fn peer_certificates(&self) -> Option<&[CertificateDer<'static>]> {
        match self {
            KafkaStream::Plain(_) => None,
            KafkaStream::ServerTls(s) => s.get_ref().1.peer_certificates(),
            KafkaStream::ClientTls(s) => s.get_ref().1.peer_certificates(),
        }
    }

    /// The address of the other end.
    pub fn peer_addr(&self) -> io::Result<SocketAddr> {
        self.tcp().peer_addr()
    }

    /// The local address of this end.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.tcp().local_addr()
    }

    /// Whether the connection is TLS.
    pub fn is_tls(&self) -> bool {
        !matches!(self, KafkaStream::Plain(_))
    }

    /// The negotiated TLS version, if this is TLS and the handshake is done.
    pub fn tls_version(&self) -> Option<crate::tls::TlsVersion> {
        let version = match self {
            KafkaStream::Plain(_) => return None,
            KafkaStream::ServerTls(s) => s.get_ref().1.protocol_version(),
            KafkaStream::ClientTls(s) => s.get_ref().1.protocol_version(),
        }?;
        match version {
            rustls::ProtocolVersion::TLSv1_2 => Some(crate::tls::TlsVersion::Tls12),
            rustls::ProtocolVersion::TLSv1_3 => Some(crate::tls::TlsVersion::Tls13),
            _ => None,
        }
    }

    /// The TCP stream underneath.
    pub fn tcp(&self) -> &TcpStream {
        match self {
            KafkaStream::Plain(s) => s,
            KafkaStream::ServerTls(s) => s.get_ref().0,
            KafkaStream::ClientTls(s) => s.get_ref().0,
        }
    }
}

impl From<TcpStream> for KafkaStream {
    fn from(stream: TcpStream) -> Self {
        KafkaStream::Plain(stream)
    }
}

impl From<tokio_rustls::server::TlsStream<TcpStream>> for KafkaStream {
    fn from(stream: tokio_rustls::server::TlsStream<TcpStream>) -> Self {
        KafkaStream::ServerTls(Box::new(stream))
    }
}

impl From<tokio_rustls::client::TlsStream<TcpStream>> for KafkaStream {
    fn from(stream: tokio_rustls::client::TlsStream<TcpStream>) -> Self {
        KafkaStream::ClientTls(Box::new(stream))
    }
}

impl AsyncRead for KafkaStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            KafkaStream::Plain(s) => Pin::new(s).poll_read(cx, buf),
            KafkaStream::ServerTls(s) => Pin::new(s.as_mut()).poll_read(cx, buf),
            KafkaStream::ClientTls(s) => Pin::new(s.as_mut()).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for KafkaStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            KafkaStream::Plain(s) => Pin::new(s).poll_write(cx, buf),
            KafkaStream::ServerTls(s) => Pin::new(s.as_mut()).poll_write(cx, buf),
            KafkaStream::ClientTls(s) => Pin::new(s.as_mut()).poll_write(cx, buf),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            KafkaStream::Plain(s) => Pin::new(s).poll_write_vectored(cx, bufs),
            KafkaStream::ServerTls(s) => Pin::new(s.as_mut()).poll_write_vectored(cx, bufs),
            KafkaStream::ClientTls(s) => Pin::new(s.as_mut()).poll_write_vectored(cx, bufs),
        }
    }

    fn is_write_vectored(&self) -> bool {
        match self {
            KafkaStream::Plain(s) => s.is_write_vectored(),
            KafkaStream::ServerTls(s) => s.is_write_vectored(),
            KafkaStream::ClientTls(s) => s.is_write_vectored(),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            KafkaStream::Plain(s) => Pin::new(s).poll_flush(cx),
            KafkaStream::ServerTls(s) => Pin::new(s.as_mut()).poll_flush(cx),
            KafkaStream::ClientTls(s) => Pin::new(s.as_mut()).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            KafkaStream::Plain(s) => Pin::new(s).poll_shutdown(cx),
            KafkaStream::ServerTls(s) => Pin::new(s.as_mut()).poll_shutdown(cx),
            KafkaStream::ClientTls(s) => Pin::new(s.as_mut()).poll_shutdown(cx),
        }
    }
}
