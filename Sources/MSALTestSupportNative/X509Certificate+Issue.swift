internal import CMSALOpenSSL
internal import Glibc
package import MSALNative

extension X509Certificate {
    /// Builds and signs an X.509 v3 certificate for `subjectKey` with a random 127-bit serial.
    ///
    /// - Parameters:
    ///   - profile: names, validity and kind (CA or TLS server) of the certificate.
    ///   - subjectKey: the key pair the certificate certifies.
    ///   - issuer: the CA certificate and key that sign it; `nil` for a self-signed certificate
    ///     (signed with `subjectKey`).
    /// - Throws: ``NativeError`` when a name or address is not valid or OpenSSL fails.
    ///
    /// The certificate is built here and handed to `MSALNative`'s ``X509Certificate`` as PEM (and
    /// the issuer's read back from PEM), so no OpenSSL handle crosses between the two targets.
    package static func issue(
        _ profile: CertificateProfile,
        subjectKey: PrivateKey,
        issuer: (certificate: X509Certificate, key: PrivateKey)? = nil
    ) throws(NativeError) -> X509Certificate {
        try validate(profile)
        guard let cert = X509_new() else { throw NativeError.openSSL("X509_new") }
        defer { X509_free(cert) }
        var issuerCert: OpaquePointer?
        if let issuer { issuerCert = try readPEM(issuer.certificate.pem()) }
        defer { if let issuerCert { X509_free(issuerCert) } }
        guard X509_set_version(cert, Int(X509_VERSION_3)) == 1 else { throw NativeError.openSSL("X509_set_version") }
        try setRandomSerial(cert)
        guard let notBefore = X509_getm_notBefore(cert), let notAfter = X509_getm_notAfter(cert),
            ASN1_TIME_set(notBefore, time_t(profile.notBefore)) != nil,
            ASN1_TIME_set(notAfter, time_t(profile.notAfter)) != nil
        else { throw NativeError.openSSL("ASN1_TIME_set") }
        guard X509_set_pubkey(cert, subjectKey.pointer) == 1 else { throw NativeError.openSSL("X509_set_pubkey") }
        try setSubject(cert, commonName: profile.commonName)
        let issuerName = X509_get_subject_name(issuerCert ?? cert)
        guard X509_set_issuer_name(cert, issuerName) == 1 else { throw NativeError.openSSL("X509_set_issuer_name") }
        for (nid, value) in extensions(profile, key: subjectKey, selfSigned: issuer == nil) {
            guard cmsal_x509_add_extension(cert, issuerCert ?? cert, nid, value) == 1 else {
                throw NativeError.openSSL("X509V3_EXT_conf_nid(\(value))")
            }
        }
        let signingKey = issuer?.key ?? subjectKey
        guard X509_sign(cert, signingKey.pointer, EVP_sha256()) > 0 else { throw NativeError.openSSL("X509_sign") }
        return try X509Certificate(pem: writePEM(cert))
    }

    /// The certificate of a PEM document, owned by the caller (`X509_free`).
    private static func readPEM(_ pem: String) throws(NativeError) -> OpaquePointer {
        var bytes = Array(pem.utf8)
        let parsed: OpaquePointer? = bytes.withUnsafeMutableBytes { buffer in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_X509(bio, nil, nil, nil)
        }
        guard let parsed else { throw NativeError.openSSL("PEM_read_bio_X509") }
        return parsed
    }

    /// `cert` as PEM.
    private static func writePEM(_ cert: OpaquePointer) throws(NativeError) -> String {
        try PrivateKey.writePEM("PEM_write_bio_X509") { bio in PEM_write_bio_X509(bio, cert) }
    }

    /// The v3 extensions, in OpenSSL's configuration syntax.
    private static func extensions(
        _ profile: CertificateProfile,
        key: PrivateKey,
        selfSigned: Bool
    ) -> [(Int32, String)] {
        var list: [(Int32, String)] = []
        if profile.isCertificateAuthority {
            list.append((NID_basic_constraints, "critical,CA:TRUE,pathlen:0"))
            list.append((NID_key_usage, "critical,keyCertSign,cRLSign"))
        } else {
            list.append((NID_basic_constraints, "critical,CA:FALSE"))
            switch key.algorithm {
            case .rsa: list.append((NID_key_usage, "critical,digitalSignature,keyEncipherment"))
            case .ecP256: list.append((NID_key_usage, "critical,digitalSignature"))
            }
            list.append((NID_ext_key_usage, "serverAuth"))
        }
        list.append((NID_subject_key_identifier, "hash"))
        if !selfSigned {
            list.append((NID_authority_key_identifier, "keyid:always"))
        }
        let names = profile.dnsNames.map { "DNS:\($0)" } + profile.ipAddresses.map { "IP:\($0)" }
        if !names.isEmpty {
            list.append((NID_subject_alt_name, names.joined(separator: ",")))
        }
        return list
    }

    /// Rejects names that would change the meaning of the extension text (commas, colons) and
    /// addresses that are not IPv4 or IPv6 literals.
    private static func validate(_ profile: CertificateProfile) throws(NativeError) {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_*")
        for name in profile.dnsNames where name.isEmpty || name.count > 253 || !name.allSatisfy(allowed.contains) {
            throw NativeError(function: "X509Certificate.issue", reason: "not a valid DNS name: \(name)")
        }
        for address in profile.ipAddresses where !isIPAddress(address) {
            throw NativeError(function: "X509Certificate.issue", reason: "not an IPv4 or IPv6 address: \(address)")
        }
        if profile.commonName.isEmpty || profile.commonName.utf8.count > 64 || !profile.commonName.allSatisfy(\.isASCII)
        {
            throw NativeError(
                function: "X509Certificate.issue",
                reason: "the common name must be 1 to 64 ASCII characters: \(profile.commonName)"
            )
        }
        guard profile.notBefore < profile.notAfter else {
            throw NativeError(function: "X509Certificate.issue", reason: "notBefore must be before notAfter")
        }
    }

    private static func setRandomSerial(_ cert: OpaquePointer) throws(NativeError) {
        var bytes = [UInt8](repeating: 0, count: 16)
        guard RAND_bytes(&bytes, Int32(bytes.count)) == 1 else { throw NativeError.openSSL("RAND_bytes") }
        bytes[0] = (bytes[0] & 0x7F) | 0x40  // positive, and always 16 bytes long
        guard let number = BN_bin2bn(bytes, Int32(bytes.count), nil) else { throw NativeError.openSSL("BN_bin2bn") }
        defer { BN_free(number) }
        guard let serial = BN_to_ASN1_INTEGER(number, nil) else { throw NativeError.openSSL("BN_to_ASN1_INTEGER") }
        defer { ASN1_INTEGER_free(serial) }
        guard X509_set_serialNumber(cert, serial) == 1 else { throw NativeError.openSSL("X509_set_serialNumber") }
    }

    private static func setSubject(_ cert: OpaquePointer, commonName: String) throws(NativeError) {
        guard let name = X509_NAME_new() else { throw NativeError.openSSL("X509_NAME_new") }
        defer { X509_NAME_free(name) }
        guard cmsal_x509_name_add_ascii(name, "O", "swift-msal tests") == 1,
            cmsal_x509_name_add_ascii(name, "CN", commonName) == 1
        else { throw NativeError.openSSL("X509_NAME_add_entry_by_txt") }
        guard X509_set_subject_name(cert, name) == 1 else { throw NativeError.openSSL("X509_set_subject_name") }
    }
}
