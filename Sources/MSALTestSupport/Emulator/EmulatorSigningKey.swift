import MSALNative
import MSALTestSupportNative

/// The RSA key an emulator signs its tokens with (RS256), published in its JWKS.
///
/// Making a 2048-bit RSA key takes a few hundred milliseconds; a test suite that starts many
/// emulators can make one key and pass it to each through
/// ``EntraEmulator/Configuration/signingKey``.
public final class EmulatorSigningKey: Sendable {
    let privateKey: PrivateKey
    /// The key id (`kid`) in token headers and the JWKS.
    public let keyID: String
    /// The public key as a JWK: `kty`, `n`, `e`, `kid`, `use` (`sig`) and `alg` (`RS256`).
    public let publicJWK: [String: String]

    /// Generates a new 2048-bit RSA key with a random key id.
    ///
    /// - Throws: ``TestSupportError`` if OpenSSL fails.
    public init() throws {
        do {
            privateKey = try PrivateKey(.rsa(bits: 2048))
            keyID = Base64URL.encode(try SecureRandom.bytes(15))
            var jwk = try privateKey.publicJWK()
            jwk["kid"] = keyID
            jwk["use"] = "sig"
            jwk["alg"] = "RS256"
            publicJWK = jwk
        } catch {
            throw TestSupportError("cannot create an emulator signing key: \(error)")
        }
    }
}
