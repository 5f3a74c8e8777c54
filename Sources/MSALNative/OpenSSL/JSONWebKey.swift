/// A public JSON Web Key (RFC 7517) that verifies JWS signatures: RSA for RS256, EC P-256 for
/// ES256.
///
/// Built from the JWK's string members (this module parses no JSON: the MSAL layer reads the
/// JWKS document and passes the fields). The key is checked when it is built: the base64url
/// members must decode, RSA moduli must be 2048 to 16384 bits, and an EC point must lie on P-256.
package struct JSONWebKey: Sendable {
    /// The smallest RSA modulus accepted, in bits (RFC 7518 §3.3).
    package static let minimumRSABits = 2048
    /// The largest RSA modulus accepted, in bits (bounds the cost of a verification).
    package static let maximumRSABits = 16384

    /// `kty`: `"RSA"` or `"EC"`.
    package let keyType: String
    /// `kid`, the key identifier a JWS header's `kid` refers to, if the JWK has one.
    package let keyID: String?
    /// `alg`, the one algorithm this key is meant for, if the JWK restricts it.
    package let algorithm: String?
    /// `crv` for EC keys (`"P-256"`), `nil` for RSA.
    package let curve: String?

    let publicKey: PublicKey

    /// A key from the JWK members, as the base64url strings found in the JWK.
    ///
    /// - Parameters:
    ///   - kty: `"RSA"` (needs `n` and `e`) or `"EC"` (needs `crv` = `"P-256"`, `x`, `y`).
    ///   - kid: the key identifier, kept for lookup.
    ///   - alg: when present, ``verify(signature:message:algorithm:)`` refuses other algorithms.
    /// - Throws: `NativeError` naming the missing, malformed or unsupported member.
    package init(
        kty: String, n: String? = nil, e: String? = nil, crv: String? = nil, x: String? = nil,
        y: String? = nil, kid: String? = nil, alg: String? = nil
    ) throws(NativeError) {
        let function = "JSONWebKey.init"
        if let alg {
            let algorithm = try SignatureAlgorithm(named: alg, in: function)
            guard algorithm.keyType == kty else {
                throw NativeError(
                    function: function,
                    reason: "'alg' \(algorithm.rawValue) needs kty \(algorithm.keyType), got \(quoted(kty))")
            }
        }
        switch kty {
        case "RSA":
            let modulus = try Self.decode(n, "n", function)
            let exponent = try Self.decode(e, "e", function)
            // An odd exponent above 1, at most 64 bits once leading zero bytes are dropped.
            let significant = exponent.drop { $0 == 0 }
            guard let first = significant.first, let last = significant.last, last & 1 == 1,
                significant.count > 1 || first > 1, significant.count <= 8
            else {
                throw NativeError(
                    function: function, reason: "'e' must be an odd public exponent above 1 of at most 64 bits")
            }
            let key = try PublicKey.rsa(modulus: modulus, exponent: exponent)
            guard (Self.minimumRSABits...Self.maximumRSABits).contains(key.bits) else {
                throw NativeError(
                    function: function,
                    reason: "the RSA modulus has \(key.bits) bits; "
                        + "\(Self.minimumRSABits) to \(Self.maximumRSABits) are accepted")
            }
            publicKey = key
            curve = nil
        case "EC":
            guard let crv else { throw NativeError(function: function, reason: "an EC key needs 'crv'") }
            guard crv == "P-256" else {
                throw NativeError(function: function, reason: "unsupported curve \(quoted(crv)); supported: P-256")
            }
            let size = ECDSASignature.p256ScalarByteCount
            let x = try Self.decode(x, "x", function)
            let y = try Self.decode(y, "y", function)
            guard x.count == size, y.count == size else {
                throw NativeError(
                    function: function,
                    reason: "'x' and 'y' must be \(size) bytes each for P-256, got \(x.count) and \(y.count)")
            }
            do {
                publicKey = try PublicKey.p256(x: x, y: y)
            } catch {
                throw NativeError(function: function, reason: "the point (x, y) is not on P-256: \(error.reason)")
            }
            curve = crv
        default:
            throw NativeError(function: function, reason: "unsupported key type \(quoted(kty)); supported: RSA, EC")
        }
        keyType = kty
        keyID = kid
        algorithm = alg
    }

    /// Whether `signature` is a valid JWS signature of `message` (the ASCII JWS signing input)
    /// under this key with `algorithm`.
    ///
    /// A signature that is wrong, truncated or malformed (for ES256: not exactly 64 bytes) gives
    /// `false`.
    /// - Throws: `NativeError` when `algorithm` is not RS256 or ES256, does not fit this key's
    ///   type, or differs from the key's `alg`; or when OpenSSL fails.
    package func verify(signature: [UInt8], message: [UInt8], algorithm: String) throws(NativeError) -> Bool {
        let function = "JSONWebKey.verify"
        let requested = try SignatureAlgorithm(named: algorithm, in: function)
        guard requested.keyType == keyType else {
            throw NativeError(
                function: function,
                reason: "\(requested.rawValue) needs an \(requested.keyType) key, this key is \(keyType)")
        }
        if let restricted = self.algorithm, restricted != requested.rawValue {
            throw NativeError(
                function: function, reason: "the key's 'alg' is \(quoted(restricted)), not \(requested.rawValue)")
        }
        switch requested {
        case .rs256:
            return try publicKey.verifySHA256(signature: signature, message: message)
        case .es256:
            let size = ECDSASignature.p256ScalarByteCount
            guard let der = try ECDSASignature.der(fromRaw: signature, scalarByteCount: size) else { return false }
            return try publicKey.verifySHA256(signature: der, message: message)
        }
    }

    private static func decode(_ member: String?, _ name: String, _ function: String) throws(NativeError) -> [UInt8] {
        guard let member else { throw NativeError(function: function, reason: "the key needs '\(name)'") }
        guard let bytes = Base64URL.decode(member), !bytes.isEmpty else {
            throw NativeError(function: function, reason: "'\(name)' is not valid non-empty base64url")
        }
        return bytes
    }
}
