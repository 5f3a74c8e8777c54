import Foundation
import MSALNative

/// The claims of an OpenID Connect id_token that accounts and validation use.
///
/// Parsing follows MSAL: the payload is decoded without checking the signature (the token came
/// straight from the token endpoint over TLS); ``validate(clientId:issuer:nonce:now:skew:)``
/// checks audience, issuer, nonce and expiry for the interactive flow.
struct IDTokenClaims: Sendable {
    /// Every claim of the payload.
    let claims: [String: JSONValue]
    /// The raw compact token.
    let raw: String

    /// - Throws: -50000 with internal -42600 when `raw` is not a JWT with a JSON object payload.
    init(raw: String, correlationId: UUID? = nil) throws {
        do {
            claims = try JWT(compact: raw).payload
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
    /// `exp`.
    var expiresOn: Date? { claims["exp"]?.doubleValue.map { Date(timeIntervalSince1970: $0) } }

    private static func trimmingSlash(_ url: String) -> String {
        url.hasSuffix("/") ? String(url.dropLast()) : url
    }

    /// Checks the claims an interactive sign-in must verify (OpenID Connect Core §3.1.3.7).
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
        func fail(_ message: String) -> NSError {
            MSALErrors.make(
                .internalErrorInvalidResponse, "The id_token was rejected: \(message).",
                ErrorDetails(correlationId: correlationId))
        }
        guard audiences.contains(clientId) else { throw fail("its audience is not this client id") }
        if let issuer {
            guard let actual = self.issuer else { throw fail("it names no issuer") }
            if Self.trimmingSlash(actual).caseInsensitiveCompare(Self.trimmingSlash(issuer)) != .orderedSame {
                throw fail("its issuer is not the authority's issuer")
            }
        }
        if let nonce {
            guard let actual = self.nonce, ConstantTime.equals(actual, nonce) else {
                throw fail("its nonce does not match the one sent")
            }
        }
        if let expiresOn, expiresOn.addingTimeInterval(skew) < now {
            throw fail("it has expired")
        }
    }
}
