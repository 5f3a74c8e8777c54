import Foundation

/// The accounts of the cache and of the broker, merged (``MSALPublicClientApplication/accountsFromDevice(for:)``).
struct DeviceAccountsFlow {
    let context: ApplicationContext

    /// The cached accounts matching `query`, then those only the broker lists (`getAccounts`,
    /// within the connection's deadline) that match it too. Only the cached accounts when the
    /// broker is off, the configured authority is not Microsoft Entra ID, or no broker answers
    /// (logged once per application).
    func run(query: AccountQuery, correlationId: UUID) async throws -> [MSALAccount] {
        let clientId = context.clientId
        let cached = try await context.cache.read { store in
            store.accounts(
                clientId: clientId, familyId: store.familyId(clientId: clientId), environments: nil,
                query: query)
        }.map(ResultBuilder.account)
        guard let brokered = BrokerFlow(context: context, authority: context.defaultAuthority),
            let listed = try await brokered.accounts(correlationId: correlationId)
        else { return cached }
        return BrokerFlow.merged(cached: cached, broker: listed.filter { Self.matches($0, query) })
    }

    /// Whether a broker account passes the query's filters (case-insensitively, as the cache's).
    static func matches(_ account: BrokerAccount, _ query: AccountQuery) -> Bool {
        func same(_ wanted: String?, _ value: String?) -> Bool {
            guard let wanted else { return true }
            return value?.lowercased() == wanted.lowercased()
        }
        return same(query.identifier, account.homeAccountId) && same(query.username, account.username)
            && same(query.tenantProfileIdentifier, account.localAccountId)
    }
}
