import Foundation
import MSALNative

/// Whether a token answer may be trusted as the identity it claims (OpenID Connect Core
/// §3.1.3.7 and §12.2), decided before anything is cached, for every grant: sign-in, refresh,
/// device code and refresh-token import.
///
/// The id token, when the answer has one:
/// - its `alg` is an asymmetric signature algorithm (`RS256`/`384`/`512`, `PS...`, `ES...`,
///   `EdDSA`): never `none` in any case, never missing, never HMAC (a public client holds no
///   key to check it) or unknown. The signature itself is not verified: the token came from the
///   token endpoint over TLS (§3.1.3.7 step 6), but a token that says it is unsigned is refused;
/// - `tid`, when present, is a tenant id (URL-unreserved characters), `aud` contains this client
///   id, `iss` is the issuer of the authority the request went to
///   (``ResolvedAuthority/expectedIssuer(tokenIssuer:tenantId:)``: another alias of the cloud,
///   and for `common`/`organizations`/`consumers` the token's tenant, are accepted), and `nonce`
///   is the one sent on /authorize when there was one;
/// - `exp` is present, `exp`, `iat` and `nbf` (when present) are Unix times within
///   ``ServerNumber/Range/epoch``, and, for a sign-in, `exp` (with the clock skew) is not past.
///
/// The account: on a refresh, the account the answer names (`client_info`, else the id token's
/// `sub` for AD FS and OIDC) is the account refreshed; and when the cache holds an id token of
/// this client for the named account in the named tenant, the new one carries the same `sub`
/// and `oid` (compared within one tenant only: a guest profile in another tenant has another
/// `oid`, and pairwise subjects differ per client id).
enum IdentityCheck {
    /// What the request expects.
    struct Expectations {
        /// This application's client id: the audience the id token must contain.
        var clientId: String
        /// The issuer the id token must name, given its `iss` and `tid`.
        var expectedIssuer: (_ tokenIssuer: String?, _ tenantId: String?) -> String?
        /// The nonce sent on /authorize, or `nil` for grants without one.
        var nonce: String?
        /// Now, by the application's clock.
        var now: Date
        /// The clock difference tolerated for `exp`.
        var skew: TimeInterval = 300
        /// Whether an `exp` in the past (by ``now``, beyond ``skew``) refuses the answer: for a
        /// sign-in (§3.1.3.7 step 9). A refresh answer's id token must carry a well-formed `exp`
        /// but is not refused for it: §12.2 asks only that it name the same issuer, subject and
        /// audience, and a machine whose clock runs an hour fast must not lose every refresh.
        var rejectsExpired = true
        /// The home account id of the account being refreshed, or `nil` (a sign-in, an import).
        var refreshedAccount: String?
    }

    /// What the answer says.
    struct Evidence {
        /// The id token's claims, when the answer has one.
        var idToken: IDTokenClaims?
        /// The home account id from `client_info`, when the answer has one.
        var clientInfoAccount: String?
        /// The id token the cache holds for this client, the account the answer names and the
        /// tenant it names, when there is one.
        var cachedIdToken: IDTokenClaims?
    }

    /// Why an answer is refused. Descriptions name the claim, never its value.
    enum Failure: Error, Equatable, CustomStringConvertible {
        /// `alg` is `none`, missing, HMAC or unknown.
        case algorithm(String?)
        /// `aud` does not contain the client id.
        case audience
        /// `tid` is not a non-empty string of URL-unreserved characters (the expected issuer of a
        /// multi-tenant authority is built from it).
        case malformedTenant
        /// `iss` is missing.
        case noIssuer
        /// `iss` is not the authority's.
        case issuer
        /// `nonce` is missing or not the one sent.
        case nonce
        /// `exp` is missing.
        case missingExpiry
        /// A time claim is not a Unix time in range.
        case malformedTime(String, ServerNumber.Problem)
        /// `exp` is past.
        case expired
        /// The answer names another account than the one refreshed.
        case anotherAccount
        /// `sub` differs from the cached id token's for this account and tenant.
        case subjectChanged
        /// `oid` differs from the cached id token's for this account and tenant.
        case objectIdChanged

        var description: String {
            switch self {
            case .algorithm(let alg):
                let shown = alg.map {
                    "\"\(String($0.unicodeScalars.prefix(16).filter { $0.isASCII && $0.value >= 0x20 }))\""
                }
                return "its alg (\(shown ?? "missing")) is not an asymmetric signature algorithm (RS, PS, ES or EdDSA)"
            case .audience: return "its audience is not this client id"
            case .malformedTenant: return "its tid is not a tenant id"
            case .noIssuer: return "it names no issuer"
            case .issuer: return "its issuer is not the authority's issuer"
            case .nonce: return "its nonce does not match the one sent"
            case .missingExpiry: return "it has no exp"
            case .malformedTime(let claim, let problem): return "its \(claim) \(problem)"
            case .expired: return "it has expired"
            case .anotherAccount:
                return "the answer names another account than the one being refreshed (client_info or sub)"
            case .subjectChanged: return "its sub differs from the one cached for this account in this tenant"
            case .objectIdChanged: return "its oid differs from the one cached for this account in this tenant"
            }
        }
    }

    /// The signature algorithms an id token may name (RFC 7518 §3.1, RFC 8037).
    static let acceptedAlgorithms: Set<String> = [
        "RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA",
    ]

    /// The decision: `nil` when the answer may be cached.
    static func check(_ expected: Expectations, _ evidence: Evidence) -> Failure? {
        if let claims = evidence.idToken, let failure = checkIDToken(claims, expected) { return failure }
        if let refreshed = expected.refreshedAccount,
            let named = evidence.clientInfoAccount ?? evidence.idToken?.subject, named != refreshed
        {
            return .anotherAccount
        }
        if let claims = evidence.idToken, let cached = evidence.cachedIdToken {
            if let old = cached.subject, claims.subject != old { return .subjectChanged }
            if let old = cached.objectId, claims.objectId != old { return .objectIdChanged }
        }
        return nil
    }

    private static func checkIDToken(_ claims: IDTokenClaims, _ expected: Expectations) -> Failure? {
        guard let alg = claims.algorithm, acceptedAlgorithms.contains(alg) else { return .algorithm(claims.algorithm) }
        guard claims.audiences.contains(expected.clientId) else { return .audience }
        if let tid = claims.claims["tid"] {
            guard case .string(let text) = tid, isTenantSegment(text) else { return .malformedTenant }
        }
        if let issuer = expected.expectedIssuer(claims.issuer, claims.tenantId) {
            guard let actual = claims.issuer else { return .noIssuer }
            guard trimmingSlash(actual).caseInsensitiveCompare(trimmingSlash(issuer)) == .orderedSame else {
                return .issuer
            }
        }
        if let nonce = expected.nonce {
            guard let actual = claims.nonce, ConstantTime.equals(actual, nonce) else { return .nonce }
        }
        var expiry: Int64?
        for name in ["exp", "iat", "nbf"] {
            switch claims.time(name) {
            case nil: break
            case .failure(let problem)?: return .malformedTime(name, problem)
            case .success(let seconds)?: if name == "exp" { expiry = seconds }
            }
        }
        guard let expiry else { return .missingExpiry }
        if expected.rejectsExpired, TimeInterval(expiry) + expected.skew < expected.now.timeIntervalSince1970 {
            return .expired
        }
        return nil
    }

    /// Whether `text` can stand as a path segment of an issuer URL: 1 to 256 unreserved
    /// characters (RFC 3986 §2.3). Entra's tenant ids are GUIDs.
    static func isTenantSegment(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 256 && text.utf8.allSatisfy(ASCII.isUnreserved)
    }

    private static func trimmingSlash(_ url: String) -> String {
        url.hasSuffix("/") ? String(url.dropLast()) : url
    }
}
