import MSALNative

/// Proof Key for Code Exchange (RFC 7636) with the `S256` method: a fresh secret `verifier` per
/// authorization request, and its `challenge` sent in the authorize URL.
///
/// The verifier is a secret until the token request; `description` never shows it.
struct PKCE: Sendable, CustomStringConvertible {
    /// `code_challenge_method` (RFC 7636 §4.3).
    static let method = "S256"

    /// The number of random bytes in a generated verifier (43 base64url characters, RFC 7636 §4.1).
    static let verifierByteCount = 32

    /// `code_verifier` (RFC 7636 §4.1), sent with the token request.
    let verifier: String
    /// `code_challenge` = BASE64URL(SHA256(ASCII(verifier))) (RFC 7636 §4.2), sent to /authorize.
    let challenge: String

    /// A new verifier from 32 secure random bytes, and its challenge.
    ///
    /// - Throws: `NativeError` when the random generator fails.
    init() throws {
        try self.init(verifier: Base64URL.encode(SecureRandom.bytes(Self.verifierByteCount)))
    }

    /// The challenge for a given verifier. The caller supplies a valid verifier
    /// (see ``isValidVerifier(_:)``); generated ones always are.
    init(verifier: String) {
        self.verifier = verifier
        challenge = Base64URL.encode(SHA256.hash(verifier))
    }

    /// Whether `verifier` has 43 to 128 characters from `[A-Z a-z 0-9 - . _ ~]` (RFC 7636 §4.1).
    static func isValidVerifier(_ verifier: String) -> Bool {
        (43...128).contains(verifier.utf8.count) && verifier.utf8.allSatisfy(ASCII.isUnreserved)
    }

    var description: String {
        "PKCE(method: \(Self.method), challenge: \(challenge), verifier: \(Redaction.maskedSecret(verifier)))"
    }
}
