import Foundation
import MSAL

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

    struct Document: Codable {
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
        if let cacheFile {
            return URL(fileURLWithPath: cacheFile).deletingLastPathComponent().appendingPathComponent(fileName)
        }
        let data: URL
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            data = URL(fileURLWithPath: xdg, isDirectory: true)
        } else {
            let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
            data = URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(".local/share")
        }
        return data.appendingPathComponent("msal").appendingPathComponent(MSALCacheConfig.defaultKeychainSharingGroup)
            .appendingPathComponent(fileName)
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

    static func read(_ file: URL) -> Document {
        guard let handle = try? FileHandle(forReadingFrom: file) else { return Document(defaultAccounts: [:]) }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: maximumSize + 1), data.count <= maximumSize,
            let document = try? JSONDecoder().decode(Document.self, from: data)
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
