import Foundation

extension MSALPublicClientApplication {
    /// The accounts matching `parameters` in the cache and, with the broker on
    /// (``MSALPublicClientApplicationConfig/brokerAvailability``), those the broker knows for
    /// this app: MSAL for iOS's `accountsFromDevice(for:completionBlock:)`.
    ///
    /// The cached accounts come first; an account the broker lists is added when the cache has
    /// none with its ``MSALAccount/identifier`` (one account per home account id). A broker
    /// account has one tenant profile and no ``MSALAccount/accountClaims``; pass it to
    /// ``acquireTokenSilent(with:)``, which asks the broker for it. The broker's `getAccounts`
    /// is bounded by the connection's deadline. When the broker is off, the configured authority
    /// is not Microsoft Entra ID, or no broker answers, the result is the cached accounts (the
    /// absence of a broker is logged once per application).
    ///
    /// ```swift
    /// let accounts = try await application.accountsFromDevice(
    ///     for: MSALAccountEnumerationParameters(identifier: nil, username: nil))
    /// ```
    ///
    /// - Throws: an `MSALErrorDomain` error when the cache cannot be read; -50002 or -50000 (with
    ///   ``MSALBrokerStatusKey``) when the broker answers with a failure; -50000 with internal
    ///   -42700 when it misses its deadline and -42705 when its answer is malformed.
    public func accountsFromDevice(for parameters: MSALAccountEnumerationParameters) async throws -> [MSALAccount] {
        let query = AccountQuery(
            identifier: parameters.identifier, username: parameters.username,
            tenantProfileIdentifier: parameters.tenantProfileIdentifier,
            returnOnlySignedInAccounts: parameters.returnOnlySignedInAccounts)
        let correlationId = CorrelationID.make()
        do {
            return try await DeviceAccountsFlow(context: context).run(query: query, correlationId: correlationId)
        } catch {
            throw MSALErrors.classify(error, correlationId: correlationId)
        }
    }
}
