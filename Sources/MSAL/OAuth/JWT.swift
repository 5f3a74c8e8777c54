import MSALNative

/// Why a JWT could not be read or verified. The message says precisely what is wrong and never
/// contains the token or its claims.
struct JWTError: Error, CustomStringConvertible {
    /// What is wrong, for developers.
    let description: String

    init(_ description: String) {
        self.description = description
    }
}

/// A JSON Web Token in JWS compact serialization (RFC 7519 §7.2, RFC 7515 §7.1): header and
/// payload decoded as JSON objects, signature kept as bytes for ``verifySignature(using:)``.
///
/// Reading a JWT checks only its shape; the claims are not trusted until the signature is verified
/// with the issuer's key (or the token came straight from the token endpoint over TLS, OIDC Core
/// §3.1.3.7). An empty signature part is accepted here (an unsecured JWT) but never verifies.
/// `description` shows the algorithm and key id, never the claims.
struct JWT: Sendable, CustomStringConvertible {
    /// The longest compact serialization accepted, in bytes; Entra tokens stay far below it.
    static let maximumLength = 1 << 20

    /// The JOSE header (`alg`, `kid`, `typ`, ...).
    let header: [String: JSONValue]
    /// The claims.
    let payload: [String: JSONValue]
    /// `BASE64URL(header) || '.' || BASE64URL(payload)`, the bytes the signature covers.
    let signingInput: [UInt8]
    /// The decoded signature; empty for an unsecured JWT.
    let signature: [UInt8]

    /// Parses a compact serialization: `header.payload.signature`, each part base64url.
    ///
    /// - Throws: ``JWTError`` naming the part and the problem.
    init(compact: String) throws(JWTError) {
        let bytes = Array(compact.utf8)
        guard !bytes.isEmpty else { throw JWTError("JWT is empty") }
        guard bytes.count <= Self.maximumLength else {
            throw JWTError("JWT is \(bytes.count) bytes, longer than the \(Self.maximumLength)-byte limit")
        }
        let parts = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw JWTError("JWT must have 3 parts separated by '.', found \(parts.count)")
        }
        header = try Self.decodeObject(parts[0], "header")
        payload = try Self.decodeObject(parts[1], "payload")
        guard let signature = Base64URL.decode(parts[2]) else { throw JWTError("JWT signature is not valid base64url") }
        self.signature = signature
        signingInput = Array(bytes[..<parts[1].endIndex])
    }

    /// `alg` from the header, if it is a string.
    var algorithm: String? { header["alg"]?.stringValue }

    /// `kid` from the header: which key of the issuer's JWKS signed the token.
    var keyID: String? { header["kid"]?.stringValue }

    /// Whether the signature is valid for `key`, using the header's `alg` (RS256 or ES256).
    ///
    /// - Returns: `false` for a wrong, malformed or missing signature.
    /// - Throws: ``JWTError`` when `alg` is missing, `none` or not supported; `NativeError` when
    ///   the key does not fit the algorithm.
    func verifySignature(using key: JSONWebKey) throws -> Bool {
        guard let value = header["alg"] else { throw JWTError("JWT header has no \"alg\"") }
        guard let algorithm = value.stringValue else { throw JWTError("JWT header \"alg\" is not a string") }
        guard algorithm != "none" else {
            throw JWTError("JWT is unsecured (alg \"none\") and cannot be verified")
        }
        guard ["RS256", "ES256"].contains(algorithm) else {
            throw JWTError("JWT algorithm \(Self.quoted(algorithm)) is not supported; supported: RS256, ES256")
        }
        guard !signature.isEmpty else { return false }
        return try key.verify(signature: signature, message: signingInput, algorithm: algorithm)
    }

    var description: String {
        let alg = algorithm.map(Self.quoted) ?? "none"
        let kid = keyID.map(Self.quoted) ?? "none"
        return "JWT(alg: \(alg), kid: \(kid), \(payload.count) claims)"
    }

    private static func decodeObject(_ part: ArraySlice<UInt8>, _ name: String) throws(JWTError) -> [String: JSONValue]
    {
        guard !part.isEmpty else { throw JWTError("JWT \(name) is empty") }
        guard let json = Base64URL.decode(part) else { throw JWTError("JWT \(name) is not valid base64url") }
        let value: JSONValue
        do {
            value = try JSONValue(parsing: json)
        } catch {
            throw JWTError("JWT \(name) is not valid JSON (\(error))")
        }
        guard let object = value.objectValue else { throw JWTError("JWT \(name) is not a JSON object") }
        return object
    }

    /// A header value quoted for a message, cut short and limited to printable ASCII.
    private static func quoted(_ value: String) -> String {
        let printable = value.unicodeScalars.prefix(32).map { $0.isASCII && $0.value >= 0x20 ? Character($0) : "?" }
        return "\"" + String(printable) + (value.unicodeScalars.count > 32 ? "...\"" : "\"")
    }
}
