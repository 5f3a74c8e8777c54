import Foundation

/// A token request that failed, kept typed inside the library: the flows decide on its values
/// (the OAuth error and suberror, the HTTP status, `Retry-After`), and only the public boundary
/// turns it into MSAL's `NSError` (``MSALErrors/error(for:)``, ``MSALErrors/silentFlowError(for:)``).
struct TokenRequestFailure: Error, Sendable {
    /// What the server answered, when it answered.
    struct Response: Sendable, Hashable {
        /// The HTTP status.
        var statusCode: Int
        /// The response headers (the first value of repeated names), reported under ``MSALHTTPHeadersKey``.
        var headers: [String: String]
        /// The `Retry-After` header, as the server wrote it.
        var retryAfter: String?
    }

    /// Why the request failed.
    enum Reason: Sendable {
        /// The token endpoint answered an OAuth error body (HTTP 4xx other than 429).
        case server(OAuthServerError, Response)
        /// The token endpoint answered a status the client reads no OAuth error from (429, 5xx,
        /// 3xx, or a 4xx without an error body): -42007 at the boundary.
        case unhandledResponse(Response)
        /// No answer: the transport's error (`NSURLErrorDomain` for a network failure), as it is.
        case network(NSError)
        /// The library could not use the answer (a malformed success body): the error it made,
        /// with the answer when there was one.
        case local(NSError, Response?)
    }

    var reason: Reason
    /// The request's correlation id.
    var correlationId: UUID
    /// The account the request was for; reported with protection policy errors.
    var homeAccountId: String?
    /// `true` when the client-side throttling cache answered instead of the server
    /// (``MSALThrottlingCacheHitKey`` at the boundary).
    var isThrottled = false

    /// The server's answer, when there was one.
    var response: Response? {
        switch reason {
        case .server(_, let response), .unhandledResponse(let response): response
        case .local(_, let response): response
        case .network: nil
        }
    }

    /// The HTTP status, when the server answered.
    var statusCode: Int? { response?.statusCode }

    /// The `Retry-After` header, when the server answered with one.
    var retryAfter: String? { response?.retryAfter }

    /// The OAuth error the server answered, when it answered one.
    var serverError: OAuthServerError? {
        guard case .server(let error, _) = reason else { return nil }
        return error
    }

    /// Whether the server could not be reached (an `NSURLErrorDomain` error from the transport).
    var isNetworkFailure: Bool {
        guard case .network(let error) = reason else { return false }
        return error.domain == NSURLErrorDomain
    }

    /// Whether the user could fix this failure by signing in interactively: an OAuth error that
    /// is not `invalid_scope`, `invalid_client` or a protection policy requirement (see
    /// ``OAuthServerError/isRecoverableByInteraction``).
    var isRecoverableByInteraction: Bool { serverError?.isRecoverableByInteraction ?? false }
}

extension OAuthServerError {
    /// Whether a refresh-token redemption rejected with this error should reach the app as
    /// ``MSALError/interactionRequired``: a non-blank OAuth error that is not `invalid_scope`,
    /// `invalid_client` or a protection policy requirement (suberror `protection_policy_required`,
    /// which is also what makes `unauthorized_client` -50004).
    var isRecoverableByInteraction: Bool {
        switch OAuthErrorMapping.normalized(error) {
        case "", "invalid_scope", "invalid_client":
            return false
        default:
            return !OAuthErrorMapping.isProtectionPolicyRequired(subError: subError)
        }
    }
}
