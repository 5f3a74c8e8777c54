public import Foundation
internal import MSALNative
internal import MSALTestSupportNative

/// A TLS server certificate and its private key, issued by a ``TestCertificateAuthority``.
///
/// Give it to ``LoopbackHTTPSServer/init(host:port:certificateAuthority:certificate:handler:)``
/// to choose what the server presents: a certificate for other host names, or an expired one.
public final class TestServerCertificate: Sendable {
    let certificate: X509Certificate
    let key: PrivateKey

    /// The authority that signed the certificate: the one a client must trust. Kept alive (with
    /// its PEM file) as long as the certificate is.
    public let issuer: TestCertificateAuthority
    /// The certificate as PEM (`-----BEGIN CERTIFICATE-----`).
    public let certificatePEM: String
    /// The certificate as DER.
    public let certificateDER: Data
    /// The private key as PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`), for servers outside this
    /// library.
    public let privateKeyPEM: String
    /// Base64 of the SHA-256 of the certificate's SubjectPublicKeyInfo DER: the value headless
    /// Chromium's `--ignore-certificate-errors-spki-list` takes to trust exactly this certificate.
    public let spkiSHA256Base64: String
    /// The subjectAltName DNS entries.
    public let dnsNames: [String]
    /// The subjectAltName IP address entries.
    public let ipAddresses: [String]
    /// Start of validity (whole seconds).
    public let notBefore: Date
    /// End of validity (whole seconds).
    public let notAfter: Date

    init(
        certificate: X509Certificate,
        key: PrivateKey,
        issuer: TestCertificateAuthority,
        dnsNames: [String],
        ipAddresses: [String],
        notBefore: Date,
        notAfter: Date
    ) throws(NativeError) {
        self.certificate = certificate
        self.key = key
        self.issuer = issuer
        self.certificatePEM = try certificate.pem()
        self.certificateDER = Data(try certificate.der())
        self.privateKeyPEM = try key.privateKeyPEM()
        self.spkiSHA256Base64 = Data(try certificate.subjectPublicKeyInfoSHA256()).base64EncodedString()
        self.dnsNames = dnsNames
        self.ipAddresses = ipAddresses
        self.notBefore = Date(timeIntervalSince1970: notBefore.timeIntervalSince1970.rounded(.down))
        self.notAfter = Date(timeIntervalSince1970: notAfter.timeIntervalSince1970.rounded(.down))
    }
}
