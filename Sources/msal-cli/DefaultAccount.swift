import Foundation
import MSAL
import MSALNative

/// The default account of each app (client id): the account `msal token` and `msal logout` use
/// when no `--account` is given and several are signed in.
///
/// It is kept in the tool's own small file beside the token cache, `msal_cli_defaults.json`:
/// `{"default_accounts": {"<client id>": "<account identifier>"}}`. The token cache file is shared
/// with other MSALs (Python, .NET, Azure CLI), so nothing is added to it. The file is replaced
/// atomically (mode 0600); an unreadable or malformed one counts as "no default".
enum DefaultAccount {
    /// The file's name, in the folder of the token cache file.
    static let fileName = "msal_cli_defaults.json"
    /// The largest file read; a larger one counts as "no default".
    static let maximumSize = 64 * 1024

    struct Document: Encodable {
        var defaultAccounts: [String: String]
        /// The cache backend the tool used last (``CacheBackend``), to notice a change.
        var cacheBackend: String?
        /// Whether the warning about falling back to the plaintext file was shown.
        var plaintextWarningShown: Bool?

        enum CodingKeys: String, CodingKey {
            case defaultAccounts = "default_accounts"
            case cacheBackend = "cache_backend"
            case plaintextWarningShown = "plaintext_warning_shown"
        }
    }

    /// The defaults file beside `cacheFile`, or beside the library's default cache file
    /// (`$XDG_DATA_HOME/msal/<group>/`, else `~/.local/share/msal/<group>/`).
    static func file(cacheFile: String?, environment: [String: String]) -> URL {
        let folder: String
        if let cacheFile {
            folder = URL(fileURLWithPath: cacheFile).deletingLastPathComponent().path
        } else {
            let data: String
            if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
                data = xdg
            } else {
                let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
                data = joined(home, ".local/share")
            }
            folder = joined(data, "msal/" + MSALCacheConfig.defaultKeychainSharingGroup)
        }
        return URL(fileURLWithPath: joined(folder, fileName), isDirectory: false)
    }

    /// `folder` and `name` as one path. Joined as text: the first `appendingPathComponent` of a
    /// process cost `msal token` about 0.07 ms.
    private static func joined(_ folder: String, _ name: String) -> String {
        folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }

    /// The default account identifier of `clientId`, if one was set.
    static func identifier(clientId: String, file: URL) -> String? {
        read(file).defaultAccounts[clientId]
    }

    /// Sets (or, with `nil`, clears) the default account of `clientId`.
    static func set(_ identifier: String?, clientId: String, file: URL) throws {
        var document = read(file)
        guard document.defaultAccounts[clientId] != identifier else { return }
        document.defaultAccounts[clientId] = identifier
        try write(document, to: file)
    }

    /// Replaces the file with `document` (atomically, mode 0600, its folder made 0700).
    static func write(_ document: Document, to file: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data = try encoder.encode(document)
        let folder = file.deletingLastPathComponent()
        try FileManager.default.createDirectory(
            at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let temporary = folder.appendingPathComponent(".\(fileName).\(UUID().uuidString)")
        guard
            FileManager.default.createFile(
                atPath: temporary.path, contents: data, attributes: [.posixPermissions: 0o600])
        else {
            throw CommandFailure(message: "cannot write \(file.path)", code: .failure)
        }
        guard rename(temporary.path, file.path) == 0 else {
            try? FileManager.default.removeItem(at: temporary)
            throw CommandFailure(message: "cannot replace \(file.path)", code: .failure)
        }
    }

    /// The document of `file`; an empty one when there is none or it cannot be read. Read as the
    /// cache's first bytes are (``CacheBackendSelection/head(of:)``): a FIFO or a device is never
    /// opened.
    static func read(_ file: URL) -> Document {
        guard let path = try? FileSystem.resolvingSymbolicLinks(file.path),
            let bytes = try? FileSystem.readSmallFile(path, limit: maximumSize + 1), bytes.count <= maximumSize,
            let document = Document(json: bytes)
        else {
            return Document(defaultAccounts: [:])
        }
        return document
    }

    /// The account a command uses when none is named: the only one signed in, else the default
    /// one. `nil` with the accounts when there are several and none of them is the default.
    static func choose(_ accounts: [MSALAccount], defaultIdentifier: () -> String?) -> MSALAccount? {
        if accounts.count == 1 { return accounts[0] }
        guard accounts.count > 1, let identifier = defaultIdentifier() else { return nil }
        return accounts.first { $0.identifier == identifier }
    }
}

extension DefaultAccount.Document {
    /// The document in `bytes`, or `nil` when they are not one: `default_accounts` an object of
    /// strings, and the other members, when present and not `null`, a string and a Boolean (what
    /// `Decodable` would require). Read with the library's JSON parser, which the cache has
    /// already loaded: `JSONDecoder`'s first use cost `msal token` about 0.2 ms.
    init?(json bytes: [UInt8]) {
        guard let root = try? JSONValue(parsing: bytes), let accounts = root["default_accounts"]?.objectValue else {
            return nil
        }
        var defaultAccounts: [String: String] = [:]
        for (clientId, account) in accounts {
            guard let identifier = account.stringValue else { return nil }
            defaultAccounts[clientId] = identifier
        }
        let backend = root["cache_backend"] ?? .null
        let warningShown = root["plaintext_warning_shown"] ?? .null
        guard backend.isNull || backend.stringValue != nil, warningShown.isNull || warningShown.boolValue != nil else {
            return nil
        }
        self.init(
            defaultAccounts: defaultAccounts, cacheBackend: backend.stringValue,
            plaintextWarningShown: warningShown.boolValue)
    }
}
