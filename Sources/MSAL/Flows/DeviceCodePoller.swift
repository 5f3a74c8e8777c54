import Foundation

/// Polls the token endpoint for a device code (RFC 8628 §3.4-3.5) until the user finishes,
/// declines, the code expires, or the calling task is cancelled.
struct DeviceCodePoller: Sendable {
    let client: TokenClient
    /// Waits between polls; throws when the task is cancelled. Injected so tests need not wait.
    let sleep: @Sendable (TimeInterval) async throws -> Void
    let now: @Sendable () -> Date

    /// The tokens, once the user has signed in.
    ///
    /// - Throws: -50005 (user canceled) when the user declined or the task was cancelled; -50000
    ///   with internal -42104 and `MSALOAuthErrorKey` `expired_token` when the code expired; any
    ///   other token endpoint error as it is.
    func poll(
        _ authorization: DeviceAuthorization, makeRequest: (String) -> TokenRequest, correlationId: UUID
    ) async throws -> TokenResponse {
        var interval = authorization.interval
        let request = makeRequest(authorization.deviceCode)
        while true {
            guard now() < authorization.expiresOn else { throw expired(correlationId) }
            do {
                try await sleep(interval)
            } catch {
                throw MSALErrors.make(
                    .userCanceled, "The device code sign-in was cancelled.", ErrorDetails(correlationId: correlationId))
            }
            do {
                return try await client.redeem(request, correlationId: correlationId)
            } catch {
                switch DeviceCodePollDecision.decide(error) {
                case .keepPolling:
                    continue
                case .slowDown:
                    interval += 5
                    Log.info(
                        "The server asked to poll more slowly; interval now \(interval) s", correlationId: correlationId
                    )
                case .expired:
                    throw expired(correlationId)
                case .declined(let oauthError):
                    throw MSALErrors.make(
                        .userCanceled, "The user declined the sign-in on the verification page.",
                        ErrorDetails(
                            oauthError: oauthError, correlationId: correlationId,
                            underlyingError: MSALErrors.error(for: error)))
                case .fail:
                    throw MSALErrors.error(for: error)
                }
            }
        }
    }

    private func expired(_ correlationId: UUID) -> NSError {
        MSALErrors.make(
            .internalErrorAuthorizationFailed,
            "The device code expired before the user finished signing in. Start the device code flow again.",
            ErrorDetails(oauthError: "expired_token", correlationId: correlationId))
    }
}
