import Foundation

/// Sends token requests and turns every answer into a ``TokenResponse`` or an error in MSAL's
/// shape: OAuth error bodies (HTTP 4xx but 429) become server errors with `MSALOAuthErrorKey`,
/// `MSALSTSErrorCodesKey` and the HTTP status; other statuses become -42007 (unhandled response)
/// with the status and headers; network failures stay `NSURLErrorDomain` errors.
struct TokenClient: Sendable {
    let transport: any HTTPTransport
    let now: @Sendable () -> Date

    /// The outcome of a request that reached the server, for throttling decisions.
    struct Failure: Error {
        let error: NSError
        let statusCode: Int?
        let retryAfter: String?
    }

    /// Sends `request`.
    ///
    /// - Throws: ``Failure`` wrapping an unclassified error (the flows classify at the public
    ///   boundary, after acting on the mapped code).
    func redeem(_ request: TokenRequest, correlationId: UUID, homeAccountId: String? = nil) async throws(Failure)
        -> TokenResponse
    {
        let response: HTTPResponse
        do {
            response = try await transport.send(
                .formPost(
                    url: request.endpoint, parameters: request.parameters, headers: request.headers,
                    correlationId: correlationId))
        } catch {
            throw Failure(error: error as NSError, statusCode: nil, retryAfter: nil)
        }
        let retryAfter = response.headers["Retry-After"]
        switch response.statusCode {
        case 200:
            do {
                return try TokenResponse(body: response.body, now: now(), correlationId: correlationId)
            } catch {
                throw Failure(error: error as NSError, statusCode: 200, retryAfter: retryAfter)
            }
        case 400...499 where response.statusCode != 429:
            // MSAL reads OAuth error bodies on 400 and 401; other providers use other 4xx codes
            // for them too (glewlwyd answers a bad PKCE verifier with 403 `invalid_code`).
            if let serverError = OAuthServerError(jsonData: response.body) {
                let error = MSALErrors.serverError(
                    serverError, endpoint: .token, httpStatusCode: response.statusCode,
                    httpHeaders: response.headers.dictionary, correlationId: correlationId,
                    homeAccountId: homeAccountId)
                throw Failure(error: error, statusCode: response.statusCode, retryAfter: retryAfter)
            }
            fallthrough
        default:
            let error = MSALErrors.make(
                .internalErrorUnhandledResponse,
                "The token endpoint answered HTTP \(response.statusCode)"
                    + (response.statusCode == 429 || response.statusCode >= 500
                        ? ". The service is busy or unavailable; try again later." : "."),
                ErrorDetails(
                    httpStatusCode: response.statusCode, httpHeaders: response.headers.dictionary,
                    correlationId: correlationId))
            throw Failure(error: error, statusCode: response.statusCode, retryAfter: retryAfter)
        }
    }
}
