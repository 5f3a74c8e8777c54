import Foundation

/// Sends token requests and turns every answer into a ``TokenResponse`` or a typed
/// ``TokenRequestFailure``: OAuth error bodies (HTTP 4xx but 429) are server errors; other
/// statuses are unhandled responses with the status and headers; network failures keep the
/// transport's `NSURLErrorDomain` error. ``MSALErrors/error(for:)`` makes the app's error of it.
struct TokenClient: Sendable {
    let transport: any HTTPTransport
    let now: @Sendable () -> Date

    /// Sends `request`.
    ///
    /// - Parameter homeAccountId: the account the request is for; reported with protection policy errors.
    /// - Throws: the typed failure (the flows decide on it, and make the public error of it at
    ///   their boundary).
    func redeem(_ request: TokenRequest, correlationId: UUID, homeAccountId: String? = nil)
        async throws(TokenRequestFailure) -> TokenResponse
    {
        let response: HTTPResponse
        do {
            response = try await transport.send(
                .formPost(
                    url: request.endpoint, parameters: request.parameters, headers: request.headers,
                    correlationId: correlationId))
        } catch {
            throw TokenRequestFailure(
                reason: .network(error as NSError), correlationId: correlationId, homeAccountId: homeAccountId)
        }
        // Only a failure needs the headers as a dictionary.
        var answer: TokenRequestFailure.Response {
            .init(
                statusCode: response.statusCode, headers: response.headers.dictionary,
                retryAfter: response.headers["Retry-After"])
        }
        let reason: TokenRequestFailure.Reason
        switch response.statusCode {
        case 200:
            do {
                return try TokenResponse(body: response.body, now: now(), correlationId: correlationId)
            } catch {
                reason = .local(error as NSError, answer)
            }
        case 400...499 where response.statusCode != 429:
            // MSAL reads OAuth error bodies on 400 and 401; other providers use other 4xx codes
            // for them too (glewlwyd answers a bad PKCE verifier with 403 `invalid_code`).
            if let serverError = OAuthServerError(jsonData: response.body) {
                reason = .server(serverError, answer)
            } else {
                reason = .unhandledResponse(answer)
            }
        default:
            reason = .unhandledResponse(answer)
        }
        throw TokenRequestFailure(reason: reason, correlationId: correlationId, homeAccountId: homeAccountId)
    }
}
