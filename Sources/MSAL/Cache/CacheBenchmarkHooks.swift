import Foundation
import Glibc

/// Entry points for `msal-bench` (same package, not public API): build a realistic cache file
/// and time loading, saving and silent-path lookups through the real code.
package enum CacheBenchmarkHooks {
    /// Writes a cache file shaped exactly like MSAL Python's `serialize()` (indent 4) with
    /// `accounts` accounts, each with an access token (~1.5 KB JWT), an id token (~1 KB), a refresh
    /// token (~1 KB), an account record and shared app metadata. Returns the file size.
    @discardableResult
    package static func writePythonShapedFile(path: String, accounts: Int) throws -> Int {
        var text = "{\n"
        let clientId = "04b07795-8ddb-461a-bbee-02f9e1bf7b46"
        let realm = "72f988bf-86f1-41af-91ab-2d7cd011db47"
        let environment = "login.microsoftonline.com"
        let target = "Mail.Read User.Read email openid profile"
        func jwt(_ length: Int, _ seed: Int) -> String {
            let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
            var generator = UInt64(truncatingIfNeeded: seed) &* 0x9E37_79B9_7F4A_7C15 | 1
            var characters: [Character] = []
            characters.reserveCapacity(length)
            for index in 0..<length {
                if index == 36 || index == length - 344 {
                    characters.append(".")
                    continue
                }
                generator ^= generator << 13
                generator ^= generator >> 7
                generator ^= generator << 17
                characters.append(alphabet[Int(generator % 64)])
            }
            return String(characters)
        }
        func entity(_ key: String, _ fields: [(String, String)], last: Bool) -> String {
            var entry = "        \"\(key)\": {\n"
            entry += fields.map { "            \"\($0.0)\": \"\($0.1)\"" }.joined(separator: ",\n")
            return entry + "\n        }" + (last ? "\n" : ",\n")
        }
        func homeAccountId(_ index: Int) -> String {
            String(format: "%08x-0000-4000-8000-%012x.%@", index, index * 7919, realm)
        }
        let now = Int(Date().timeIntervalSince1970)
        text += "    \"AccessToken\": {\n"
        for index in 0..<accounts {
            let hid = homeAccountId(index)
            text += entity(
                "\(hid)-\(environment)-accesstoken-\(clientId)-\(realm)-\(target.lowercased())",
                [
                    ("credential_type", "AccessToken"), ("secret", jwt(1500, index)), ("home_account_id", hid),
                    ("environment", environment), ("client_id", clientId), ("target", target), ("realm", realm),
                    ("token_type", "Bearer"), ("cached_at", "\(now)"), ("expires_on", "\(now + 3600)"),
                    ("extended_expires_on", "\(now + 7200)"),
                ], last: index == accounts - 1)
        }
        text += "    },\n    \"Account\": {\n"
        for index in 0..<accounts {
            let hid = homeAccountId(index)
            text += entity(
                "\(hid)-\(environment)-\(realm)",
                [
                    ("home_account_id", hid), ("environment", environment), ("realm", realm),
                    ("local_account_id", String(hid.prefix(36))), ("username", "user\(index)@contoso.com"),
                    ("authority_type", "MSSTS"), ("account_source", "authorization_code"),
                ], last: index == accounts - 1)
        }
        text += "    },\n    \"IdToken\": {\n"
        for index in 0..<accounts {
            let hid = homeAccountId(index)
            text += entity(
                "\(hid)-\(environment)-idtoken-\(clientId)-\(realm)-",
                [
                    ("credential_type", "IdToken"), ("secret", jwt(1000, index + 1_000_000)), ("home_account_id", hid),
                    ("environment", environment), ("realm", realm), ("client_id", clientId),
                ], last: index == accounts - 1)
        }
        text += "    },\n    \"RefreshToken\": {\n"
        for index in 0..<accounts {
            let hid = homeAccountId(index)
            text += entity(
                "\(hid)-\(environment)-refreshtoken-\(clientId)--\(target.lowercased())",
                [
                    ("credential_type", "RefreshToken"), ("secret", jwt(1000, index + 2_000_000)),
                    ("home_account_id", hid), ("environment", environment), ("client_id", clientId),
                    ("target", target), ("last_modification_time", "\(now)"), ("family_id", "1"),
                ], last: index == accounts - 1)
        }
        text += "    },\n    \"AppMetadata\": {\n"
        text += entity(
            "appmetadata-\(environment)-\(clientId)",
            [("client_id", clientId), ("environment", environment), ("family_id", "1")], last: true)
        text += "    }\n}"
        let data = Data(text.utf8)
        try data.write(to: URL(fileURLWithPath: path))
        return data.count
    }

    /// Loads the file into a new cache (read + parse + index). The cache lives as long as the
    /// returned object, so a caller can time the load without the freeing of what it loaded.
    package static func load(path: String) throws -> LoadedCache {
        let cache = TokenCache(settings: CacheSettings(location: .file(path: path, isDefault: false)))
        return LoadedCache(cache: cache, accessTokens: try cache.read { $0.contents.accessTokens.count })
    }

    /// A cache loaded by ``load(path:)``.
    package final class LoadedCache {
        private let cache: TokenCache
        /// How many access tokens it holds.
        package let accessTokens: Int

        init(cache: TokenCache, accessTokens: Int) {
            self.cache = cache
            self.accessTokens = accessTokens
        }
    }

    /// A loaded cache whose ``save(_:)`` rewrites the whole file.
    package final class Saver {
        private let cache: TokenCache

        package init(path: String, durable: Bool) throws {
            var settings = CacheSettings(location: .file(path: path, isDefault: false))
            settings.durable = durable
            cache = TokenCache(settings: settings)
            _ = try cache.read { $0.contents.accessTokens.count }
        }

        /// One read-modify-write that changes one account's sign-in state and rewrites the file.
        package func save(_ iteration: Int) throws {
            try cache.modify { store in
                store.setSignInState(
                    iteration % 2 == 0 ? .signedIn : .unknown, clientId: "bench", homeAccountId: "bench-account")
            }
        }
    }

    /// An in-memory store with `accounts` accounts, and a lookup of one account's access token
    /// by a subset of its scopes (the silent path's cache query).
    package final class Lookup {
        private var store = TokenStore()
        private let homeAccountId: String
        private let environments = ["login.microsoftonline.com", "login.windows.net"]
        private let scopes = TokenStore.lowercasedScopes(["https://graph.microsoft.com/User.Read"])

        package init(accounts: Int) {
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
                record.marksSignedIn = false
                store.save(record)
            }
            homeAccountId = "uid\(accounts / 2).72f988bf-86f1-41af-91ab-2d7cd011db47"
        }

        /// Access token + id token + account, as a cache hit returns them; `true` on a hit.
        package func hit() -> Bool {
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

    /// The process's peak resident set size in bytes.
    package static var peakResidentBytes: Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage.ru_maxrss * 1024
    }
}
