/// The JWS signature algorithms we implement (RFC 7518 §3.1), by their `alg` names.
package enum SignatureAlgorithm: String, Sendable {
    /// RSASSA-PKCS1-v1_5 with SHA-256 (RFC 7518 §3.3).
    case rs256 = "RS256"
    /// ECDSA on P-256 with SHA-256, signature as raw `r || s`, 32 bytes each (RFC 7518 §3.4).
    case es256 = "ES256"

    /// The algorithm named `name`, or a clear error naming what is supported.
    package init(named name: String, in function: String) throws(NativeError) {
        guard let algorithm = SignatureAlgorithm(rawValue: name) else {
            throw NativeError(
                function: function,
                reason: "unsupported signature algorithm \(quoted(name)); supported: RS256, ES256")
        }
        self = algorithm
    }

    /// The JWK key type this algorithm needs.
    package var keyType: String {
        switch self {
        case .rs256: "RSA"
        case .es256: "EC"
        }
    }
}

/// An untrusted string quoted for an error message, cut to a sane length.
func quoted(_ value: String) -> String {
    let limit = 40
    let printable = String(
        value.unicodeScalars.prefix(limit).map { $0.isASCII && $0.value >= 0x20 ? Character($0) : "?" })
    return "'" + printable + (value.unicodeScalars.count > limit ? "...'" : "'")
}
