/// What a certificate issued by ``X509Certificate/issue(_:subjectKey:issuer:)`` says about its
/// subject: a name, the hosts it is valid for, its validity period, and whether it is a CA.
package struct CertificateProfile: Sendable {
    /// The subject's common name (CN). Informational: TLS clients match subjectAltName.
    package var commonName: String
    /// DNS names for the subjectAltName extension (`localhost`, `login.example`, `*.example`).
    package var dnsNames: [String]
    /// IPv4 or IPv6 addresses for the subjectAltName extension (`127.0.0.1`, `::1`).
    package var ipAddresses: [String]
    /// Start of validity, in seconds since 1970-01-01 UTC.
    package var notBefore: Int64
    /// End of validity, in seconds since 1970-01-01 UTC. In the past for an expired certificate.
    package var notAfter: Int64
    /// A certificate authority (basicConstraints CA:TRUE, keyUsage keyCertSign) rather than a
    /// TLS server certificate (CA:FALSE, extendedKeyUsage serverAuth).
    package var isCertificateAuthority: Bool

    package init(
        commonName: String,
        dnsNames: [String] = [],
        ipAddresses: [String] = [],
        notBefore: Int64,
        notAfter: Int64,
        isCertificateAuthority: Bool = false
    ) {
        self.commonName = commonName
        self.dnsNames = dnsNames
        self.ipAddresses = ipAddresses
        self.notBefore = notBefore
        self.notAfter = notAfter
        self.isCertificateAuthority = isCertificateAuthority
    }
}
