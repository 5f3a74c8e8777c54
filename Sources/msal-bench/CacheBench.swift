import MSAL

/// The token cache as `cache_load`, `cache_save`, `cache_lookup` and `cache_lapse_scan` time it:
/// the library's own ``TokenCache`` and ``TokenStore`` (this package's `package` API).
enum CacheBench {
    /// A cache loaded from a file (read + parse + index). The cache lives as long as this
    /// object, so a caller can time the load without the freeing of what it loaded.
    final class LoadedCache {
        private let cache: TokenCache
        /// How many access tokens it holds.
        let accessTokens: Int

        /// Loads the file at `path` into a new cache.
        init(path: String) throws {
            cache = TokenCache(filePath: path)
            accessTokens = try cache.readBlocking { $0.accessTokens.count }
        }
    }

    /// A loaded cache whose ``save(_:)`` rewrites the whole file.
    final class Saver {
        private let cache: TokenCache

        init(path: String) throws {
            cache = TokenCache(filePath: path)
            _ = try cache.readBlocking { $0.accessTokens.count }
        }

        /// One read-modify-write that changes one account's sign-in state and rewrites the file.
        func save(_ iteration: Int) throws {
            try cache.modifyBlocking { store in
                store.setSignInState(
                    iteration % 2 == 0 ? .signedIn : .unknown, clientId: "bench", homeAccountId: "bench-account")
            }
        }
    }

    /// An in-memory store with `accounts` accounts, and a lookup of one account's access token
    /// by a subset of its scopes (the silent path's cache query).
    final class Lookup {
        private var store = TokenStore()
        private let homeAccountId: String
        private let environments = ["login.microsoftonline.com", "login.windows.net"]
        private let scopes = TokenStore.lowercasedScopes(["https://graph.microsoft.com/User.Read"])

        init(accounts: Int) {
            for index in 0..<accounts {
                var record = TokenResponseRecord(
                    clientId: "04b07795-8ddb-461a-bbee-02f9e1bf7b46", environment: "login.microsoftonline.com",
                    realm: "72f988bf-86f1-41af-91ab-2d7cd011db47",
                    homeAccountId: "uid\(index).72f988bf-86f1-41af-91ab-2d7cd011db47", localAccountId: "uid\(index)",
                    username: "user\(index)@contoso.com")
                record.accessToken = String(repeating: "a", count: 1500)
                record.scopes = [
                    "https://graph.microsoft.com/Mail.Read", "https://graph.microsoft.com/User.Read", "openid",
                ]
                record.expiresOn = 4_000_000_000
                record.cachedAt = 1_700_000_000
                record.idToken = String(repeating: "i", count: 1000)
                record.refreshToken = String(repeating: "r", count: 1000)
                store.save(record)
            }
            homeAccountId = "uid\(accounts / 2).72f988bf-86f1-41af-91ab-2d7cd011db47"
        }

        /// The lapse check a shared storage's every change makes (`TokenStore.removeLapsedAccounts`)
        /// over all the accounts, none of which lapsed; returns how many did (0).
        func lapseScan() -> Int {
            var scanned = store
            return scanned.removeLapsedAccounts(now: 1_800_000_000, unusedLifetime: 90 * 86_400).count
        }

        /// Access token + id token + account, as a cache hit returns them; `true` on a hit.
        func hit() -> Bool {
            let scopes = TokenStore.lowercasedScopes(["https://graph.microsoft.com/User.Read"])
            guard
                let token = store.accessToken(
                    homeAccountId: homeAccountId, environments: environments,
                    realm: "72f988bf-86f1-41af-91ab-2d7cd011db47",
                    clientId: "04b07795-8ddb-461a-bbee-02f9e1bf7b46", scopes: scopes),
                store.idToken(
                    homeAccountId: homeAccountId, environments: environments, realm: token.realm,
                    clientId: token.clientId)
                    != nil,
                store.account(homeAccountId: homeAccountId, environments: environments, realm: token.realm) != nil
            else { return false }
            return AccessTokenStatus(token, now: 1_700_000_100, buffer: 300) == .valid(refreshNeeded: false)
                && self.scopes.count == 1
        }
    }
}
