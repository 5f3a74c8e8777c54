@testable import MSAL

extension TokenStore {
    /// How many entities of each kind it holds.
    var counts: (accessTokens: Int, refreshTokens: Int, idTokens: Int, accounts: Int, appMetadata: Int) {
        (accessTokens.count, refreshTokens.count, idTokens.count, accounts.count, appMetadata.count)
    }

    /// Whether it holds no entity of any kind.
    var isEmpty: Bool {
        accessTokens.isEmpty && refreshTokens.isEmpty && idTokens.isEmpty && accounts.isEmpty && appMetadata.isEmpty
            && accountMetadata.isEmpty
    }
}
