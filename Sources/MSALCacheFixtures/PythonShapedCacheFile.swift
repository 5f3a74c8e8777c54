import Foundation

/// A token cache file shaped exactly like MSAL for Python's `serialize()` (indent 4), for the
/// benchmarks of `msal-bench` and the cache tests (`MSALTests`).
package enum PythonShapedCacheFile {
    /// Writes a cache file shaped exactly like MSAL Python's `serialize()` (indent 4) with
    /// `accounts` accounts, each with an access token (~1.5 KB JWT), an id token (~1 KB), a refresh
    /// token (~1 KB), an account record and shared app metadata. Returns the file size.
    @discardableResult
    package static func write(path: String, accounts: Int) throws -> Int {
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
}
