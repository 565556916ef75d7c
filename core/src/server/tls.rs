//! TLS on the server's own port (feature `tls`): a connection whose first byte is a TLS handshake record (`0x16`) is
//! served over TLS, any other as before, so one server answers `http://`, `https://`, `ws://` and `wss://`. Some
//! realtime clients only ever connect with `wss:` (openai-node, google-genai's Python SDK: realtime spec §1).
//!
//! At start the server makes a test CA and a certificate for `localhost`, `127.0.0.1` and `::1` signed by it, and
//! writes the CA (PEM) to the file the options name: the file a test trusts (`SSL_CERT_FILE`,
//! `NODE_EXTRA_CA_CERTS`, `ws`'s `ca`). The keys are new at each start and never written; nothing leaves loopback
//! unless the server is bound elsewhere.

use crate::error::{Error, ErrorKind, Result};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;

/// The first byte of a TLS handshake record.
pub(super) const HANDSHAKE: u8 = 0x16;

/// What accepts TLS connections.
#[derive(Clone)]
pub(super) struct Acceptor(tokio_rustls::TlsAcceptor);

fn tls_error(what: &str, error: impl std::fmt::Display) -> Error {
    Error::new(ErrorKind::Io, format!("cannot set up TLS ({what}): {error}")).with_context("field", "tls_cert")
}

/// Makes the test CA and the loopback certificate, writes the CA to `ca_path`, and returns the acceptor.
pub(super) fn start(ca_path: &str) -> Result<Acceptor> {
    use rcgen::{
        BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair, KeyUsagePurpose,
    };
    let mut ca = CertificateParams::new(Vec::<String>::new()).map_err(|e| tls_error("the CA", e))?;
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign, KeyUsagePurpose::DigitalSignature];
    ca.distinguished_name.push(DnType::CommonName, "cuecard test CA (loopback only)");
    let ca_key = KeyPair::generate().map_err(|e| tls_error("the CA key", e))?;
    let ca_cert = ca.self_signed(&ca_key).map_err(|e| tls_error("the CA", e))?;
    let names = vec!["localhost".to_string(), "127.0.0.1".to_string(), "::1".to_string()];
    let mut leaf = CertificateParams::new(names).map_err(|e| tls_error("the certificate", e))?;
    leaf.distinguished_name.push(DnType::CommonName, "localhost");
    leaf.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    leaf.key_usages = vec![KeyUsagePurpose::DigitalSignature, KeyUsagePurpose::KeyEncipherment];
    leaf.use_authority_key_identifier_extension = true;
    let leaf_key = KeyPair::generate().map_err(|e| tls_error("the certificate key", e))?;
    let issuer = Issuer::new(ca, ca_key);
    let leaf_cert = leaf.signed_by(&leaf_key, &issuer).map_err(|e| tls_error("the certificate", e))?;
    std::fs::write(ca_path, ca_cert.pem()).map_err(|e| tls_error(&format!("writing {ca_path}"), e))?;
    let chain = vec![leaf_cert.der().clone(), ca_cert.der().clone()];
    let key = rustls_pki_types::PrivateKeyDer::Pkcs8(leaf_key.serialize_der().into());
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| tls_error("the protocol versions", e))?
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .map_err(|e| tls_error("the certificate", e))?;
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(Acceptor(tokio_rustls::TlsAcceptor::from(Arc::new(config))))
}

impl Acceptor {
    /// The TLS side of an accepted connection, or `None` when the handshake fails.
    pub(super) async fn accept(&self, stream: TcpStream) -> Option<Connection> {
        self.0.accept(stream).await.ok().map(|tls| Connection::Tls(Box::new(tls)))
    }
}

/// A connection as hyper reads it: plain TCP, or TLS over it.
pub(super) enum Connection {
    Plain(TcpStream),
    Tls(Box<tokio_rustls::server::TlsStream<TcpStream>>),
}

impl AsyncRead for Connection {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<std::io::Result<()>> {
        match self.get_mut() {
            Connection::Plain(stream) => Pin::new(stream).poll_read(cx, buf),
            Connection::Tls(stream) => Pin::new(stream).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for Connection {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, data: &[u8]) -> Poll<std::io::Result<usize>> {
        match self.get_mut() {
            Connection::Plain(stream) => Pin::new(stream).poll_write(cx, data),
            Connection::Tls(stream) => Pin::new(stream).poll_write(cx, data),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        match self.get_mut() {
            Connection::Plain(stream) => Pin::new(stream).poll_write_vectored(cx, data),
            Connection::Tls(stream) => Pin::new(stream).poll_write_vectored(cx, data),
        }
    }

    fn is_write_vectored(&self) -> bool {
        match self {
            Connection::Plain(stream) => stream.is_write_vectored(),
            Connection::Tls(stream) => stream.is_write_vectored(),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        match self.get_mut() {
            Connection::Plain(stream) => Pin::new(stream).poll_flush(cx),
            Connection::Tls(stream) => Pin::new(stream).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        match self.get_mut() {
            Connection::Plain(stream) => Pin::new(stream).poll_shutdown(cx),
            Connection::Tls(stream) => Pin::new(stream).poll_shutdown(cx),
        }
    }
}
