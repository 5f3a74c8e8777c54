public import Foundation
internal import MSALNative
internal import MSALTestSupportNative

/// A throwaway certificate authority made in process, for HTTPS servers in tests.
///
/// Its certificate is written to a PEM file (``certificateFile``) that an HTTP client can trust
/// (curl's `--cacert`, `CURLOPT_CAINFO`, MSAL's custom CA bundle setting), so the client verifies
/// the server normally: no verification needs to be switched off. The file and its folder are
/// removed when the authority is released.
///
/// ```swift
/// let authority = try TestCertificateAuthority()
/// let expired = try authority.issueCertificate(notBefore: .now - 7200, notAfter: .now - 3600)
/// ```
///
/// The key is EC P-256 and lives only in memory.
public final class TestCertificateAuthority: Sendable {
    let key: PrivateKey
    let certificate: X509Certificate

    /// The CA certificate as PEM (`-----BEGIN CERTIFICATE-----`).
    public let certificatePEM: String

    /// The CA certificate as DER.
    public let certificateDER: Data

    /// The path of a PEM file holding the CA certificate, in a private temporary folder.
    public let certificateFile: String

    private let directory: String

    /// Generates a new key pair and a self-signed CA certificate valid from an hour ago for ten
    /// years, and writes the certificate to ``certificateFile``.
    ///
    /// - Throws: ``TestSupportError`` if OpenSSL fails or the file cannot be written.
    public init() throws {
        let now = Int64(Date().timeIntervalSince1970)
        let suffix = UUID().uuidString.prefix(8)
        do {
            key = try PrivateKey(.ecP256)
            let profile = CertificateProfile(
                commonName: "swift-msal test CA \(suffix)",
                notBefore: now - 3600,
                notAfter: now + 10 * 365 * 86400,
                isCertificateAuthority: true
            )
            certificate = try X509Certificate.issue(profile, subjectKey: key)
            certificatePEM = try certificate.pem()
            certificateDER = Data(try certificate.der())
        } catch {
            throw TestSupportError("cannot create the test certificate authority: \(error)")
        }
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("swift-msal-ca-\(UUID().uuidString)", isDirectory: true)
        let file = folder.appendingPathComponent("ca.pem")
        do {
            try FileManager.default.createDirectory(
                at: folder,
                withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700]
            )
            try Data(certificatePEM.utf8).write(to: file)
        } catch {
            try? FileManager.default.removeItem(at: folder)
            throw TestSupportError("cannot write the test CA certificate to \(file.path): \(error)")
        }
        directory = folder.path
        certificateFile = file.path
    }

    deinit {
        removeCertificateFile()
    }

    /// Removes ``certificateFile`` and its folder (a server that made this authority does it when
    /// it stops); certificates can still be issued.
    func removeCertificateFile() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Issues a TLS server certificate (EC P-256 key, extendedKeyUsage serverAuth) signed by
    /// this authority.
    ///
    /// - Parameters:
    ///   - dnsNames: host names the certificate is valid for (subjectAltName DNS entries).
    ///   - ipAddresses: IPv4 or IPv6 addresses it is valid for (subjectAltName IP entries).
    ///   - notBefore: start of validity; the default is an hour ago.
    ///   - notAfter: end of validity; the default is in 30 days. Put it in the past (and
    ///     `notBefore` before it) to get an expired certificate that clients must reject.
    /// - Returns: the certificate with its private key.
    /// - Throws: ``TestSupportError`` for a name that is not a DNS name, an address that is not
    ///   numeric, `notBefore` not before `notAfter`, or an OpenSSL failure.
    public func issueCertificate(
        dnsNames: [String] = ["localhost"],
        ipAddresses: [String] = ["127.0.0.1", "::1"],
        notBefore: Date = Date(timeIntervalSinceNow: -3600),
        notAfter: Date = Date(timeIntervalSinceNow: 30 * 86400)
    ) throws -> TestServerCertificate {
        let profile = CertificateProfile(
            commonName: (dnsNames + ipAddresses).first { $0.utf8.count <= 64 } ?? "swift-msal test server",
            dnsNames: dnsNames,
            ipAddresses: ipAddresses,
            notBefore: Int64(notBefore.timeIntervalSince1970.rounded(.down)),
            notAfter: Int64(notAfter.timeIntervalSince1970.rounded(.down))
        )
        do {
            let leafKey = try PrivateKey(.ecP256)
            let leaf = try X509Certificate.issue(profile, subjectKey: leafKey, issuer: (certificate, key))
            return try TestServerCertificate(
                certificate: leaf,
                key: leafKey,
                issuer: self,
                dnsNames: dnsNames,
                ipAddresses: ipAddresses,
                notBefore: notBefore,
                notAfter: notAfter
            )
        } catch {
            throw TestSupportError("cannot issue a test server certificate: \(error)")
        }
    }
}
