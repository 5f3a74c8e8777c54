import Foundation
import MSALNative

/// The claims of an OpenID Connect id_token that accounts and validation use.
///
/// Parsing follows MSAL: the payload is decoded without checking the signature (the token came
/// straight from the token endpoint over TLS, OpenID Connect Core §3.1.3.7 step 6); what every
/// token answer must satisfy before anything is cached (algorithm, audience, issuer, nonce,
/// times, and the account it names) is ``IdentityCheck``'s decision.
struct IDTokenClaims: Sendable {
    /// Every claim of the payload.
    let claims: [String: JSONValue]
    /// The header's `alg` when it is a string (`nil` when missing or not a string).
    let algorithm: String?
    /// The raw compact token.
    let raw: String

    /// - Throws: -50000 with internal -42600 when `raw` is not a JWT with a JSON object payload.
    init(raw: String, correlationId: UUID? = nil) throws {
        do {
            let jwt = try JWT(compact: raw)
            claims = jwt.payload
            algorithm = jwt.algorithm
        } catch {
            throw MSALErrors.make(
                .internalErrorInvalidResponse,
                "The id_token returned by the server is malformed: \(error.description).",
                ErrorDetails(correlationId: correlationId))
        }
        self.raw = raw
    }

    private func string(_ name: String) -> String? {
        guard let value = claims[name]?.stringValue, !value.isEmpty else { return nil }
        return value
    }

    /// `oid`, else `sub`: the local account id (MSAL's unique id).
    var uniqueId: String? { string("oid") ?? string("sub") }
    /// `sub`.
    var subject: String? { string("sub") }
    /// `oid`.
    var objectId: String? { string("oid") }
    /// `tid`: the tenant that issued the token.
    var tenantId: String? { string("tid") }
    /// `preferred_username`, else `sub` for AAD (MSAL's username rule).
    var preferredUsername: String? { string("preferred_username") }
    /// `name`.
    var name: String? { string("name") }
    /// `given_name`.
    var givenName: String? { string("given_name") }
    /// `family_name`.
    var familyName: String? { string("family_name") }
    /// `nonce`.
    var nonce: String? { string("nonce") }
    /// `iss`.
    var issuer: String? { string("iss") }
    /// `aud`: one audience or several.
    var audiences: [String] {
        switch claims["aud"] {
        case .string(let audience): [audience]
        case .array(let values): values.compactMap(\.stringValue)
        default: []
        }
    }

    /// A time claim (`exp`, `iat`, `nbf`) read by ``ServerNumber`` as a Unix time between 1970
    /// and 2100: `nil` when absent.
    func time(_ name: String) -> Result<Int64, ServerNumber.Problem>? {
        ServerNumber.seconds(claims[name], in: .epoch)
    }
}

extension IDTokenClaims {
    /// ``IdentityCheck``'s id token checks alone (algorithm, audience, issuer, nonce, times),
    /// for callers that hold a token outside a token answer.
    ///
    /// - Parameters:
    ///   - issuer: the expected issuer (compared case-insensitively, a trailing `/` ignored), or
    ///     `nil` to skip the check.
    ///   - nonce: the nonce sent on /authorize; compared in constant time.
    ///   - skew: tolerated clock difference for `exp`.
    /// - Throws: -50000 with internal -42600 naming the claim that failed.
    func validate(
        clientId: String, issuer: String?, nonce: String?, now: Date, skew: TimeInterval = 300,
        correlationId: UUID? = nil
    ) throws {
        let expected = IdentityCheck.Expectations(
            clientId: clientId, expectedIssuer: { _, _ in issuer }, nonce: nonce, now: now, skew: skew)
        if let failure = IdentityCheck.check(expected, IdentityCheck.Evidence(idToken: self)) {
            throw MSALErrors.make(
                .internalErrorInvalidResponse, "The id_token was rejected: \(failure).",
                ErrorDetails(correlationId: correlationId))
        }
    }
}
