import Foundation
import MSAL

/// Where `msal` keeps its token cache, chosen by ``CacheBackendDecision`` from what the probes
/// found, or by `--cache-backend` / `MSAL_CACHE_BACKEND`.
enum CacheBackend: String, CaseIterable, Sendable {
    /// The cache's key in the desktop keyring (the `MSALSecretService` product).
    case secretService = "secret-service"
    /// The cache's key in the kernel keyring (the `MSALKernelKeyring` product).
    case kernelKeyring = "kernel-keyring"
    /// The cache's key from the service's systemd credential `msal-cache-key`.
    case systemdCredential = "systemd-credential"
    /// The plaintext file, mode 0600.
    case plaintext

    /// The order of preference when nothing is chosen.
    static let preference: [CacheBackend] = [.secretService, .kernelKeyring, .systemdCredential]

    var words: String {
        switch self {
        case .secretService: "the desktop keyring (Secret Service)"
        case .kernelKeyring: "the kernel keyring"
        case .systemdCredential: "the systemd credential msal-cache-key"
        case .plaintext: "the plaintext file"
        }
    }
}

/// What a backend's probe found here.
enum CacheBackendProbe: Equatable, Sendable {
    case available
    /// Why it does not work here, with the remedy.
    case unavailable(String)
    /// This build of the tool does not have it (the portable `msal` links only libc, libcurl and
    /// OpenSSL; the keyring products need libsecret and libkeyutils).
    case notBuiltIn
}

/// The tool's choice of cache backend as a value: from the backend asked for, the probes, the
/// backend used last, and the cache file's state, what to use and what to say.
struct CacheBackendDecision: Equatable, Sendable {
    /// What the command does.
    enum Outcome: Equatable, Sendable {
        /// Use `backend`.
        case use(CacheBackend)
        /// Stop with this message: using any backend here would hide or lose the accounts.
        case refuse(String)
    }

    /// What the tool knows when it decides.
    struct Facts: Equatable, Sendable {
        /// `--cache-backend` / `MSAL_CACHE_BACKEND`, when given.
        var requested: CacheBackend?
        /// The probes of the backends other than the plaintext file.
        var probes: [CacheBackend: CacheBackendProbe]
        /// The backend used last (from msal_cli_defaults.json), when known.
        var previous: CacheBackend?
        /// Whether the cache file exists, and whether it is encrypted.
        var fileExists: Bool
        var fileIsEncrypted: Bool
        /// Whether the plaintext fallback warning was shown before.
        var warningShown: Bool
        /// The cache file's path, for messages.
        var path: String
    }

    var outcome: Outcome
    /// A line for standard error (a choice or a migration), or `nil`.
    var notice: String?
    /// Whether this is the plaintext fallback's warning (remembered once shown).
    var isPlaintextWarning = false

    static func decide(_ facts: Facts) -> CacheBackendDecision {
        let chosen: CacheBackend
        var warning = false
        if let requested = facts.requested {
            if requested != .plaintext {
                switch facts.probes[requested] ?? .notBuiltIn {
                case .available: break
                case .unavailable(let reason):
                    return .init(outcome: .refuse("--cache-backend \(requested.rawValue): \(reason)"))
                case .notBuiltIn:
                    return .init(
                        outcome: .refuse(
                            "--cache-backend \(requested.rawValue): \(requested.words) is not linked into this portable "
                                + "msal (it links only the C library, libcurl and OpenSSL); choose "
                                + "systemd-credential or plaintext"))
                }
            }
            chosen = requested
        } else if let best = CacheBackend.preference.first(where: { facts.probes[$0] == .available }) {
            chosen = best
        } else {
            chosen = .plaintext
            warning = !facts.warningShown
        }

        if facts.fileIsEncrypted {
            guard chosen != .plaintext else {
                let holder = facts.previous.map { "its key was kept in \($0.words)" } ?? "its key is kept elsewhere"
                return .init(
                    outcome: .refuse(
                        "the token cache \(facts.path) is encrypted (\(holder)), and no key store that holds its key is "
                            + "available here\(reasons(facts)). Nothing was changed: run msal where that store is "
                            + "available (or choose it with --cache-backend), or remove the file and sign in again"))
            }
            if let previous = facts.previous, previous != chosen, previous != .plaintext {
                return .init(
                    outcome: .refuse(
                        "the token cache \(facts.path) is encrypted with the key kept in \(previous.words), but msal "
                            + "would now use \(chosen.words). Nothing was changed: choose --cache-backend "
                            + "\(previous.rawValue) where it is available, or remove the file and sign in again"))
            }
        }
        if warning {
            return .init(
                outcome: .use(.plaintext),
                notice: "msal: warning: no key store is available here\(reasons(facts)); the token cache is the "
                    + "plaintext file \(facts.path) (mode 0600), readable by every process of this user. Choose it "
                    + "quietly with --cache-backend plaintext or MSAL_CACHE_BACKEND=plaintext. This is said once.",
                isPlaintextWarning: true)
        }
        guard chosen != facts.previous, chosen != .plaintext else { return .init(outcome: .use(chosen)) }
        let migration =
            facts.fileExists && !facts.fileIsEncrypted
            ? "; the plaintext cache file is re-written encrypted, with every account, at its next change" : ""
        return .init(
            outcome: .use(chosen), notice: "msal: the token cache's key is kept in \(chosen.words)\(migration)")
    }

    /// ": <backend>: <why>; ..." for the backends that were probed and failed.
    private static func reasons(_ facts: Facts) -> String {
        let failed = CacheBackend.preference.compactMap { backend -> String? in
            switch facts.probes[backend] {
            case .unavailable(let reason)?: "\(backend.words): \(reason)"
            case .notBuiltIn?: "\(backend.words): not linked into this portable msal"
            case .available?, nil: nil
            }
        }
        return failed.isEmpty ? "" : " (" + failed.joined(separator: "; ") + ")"
    }
}

/// Runs the probes, decides, and sets the configuration's key store; remembers the choice.
enum CacheBackendSelection {
    /// The first bytes of an encrypted cache file (Docs/TokenCache.md, "Encryption").
    static let encryptedHeader = Array("MSALCACHE".utf8) + [0]

    /// The file type at `path` (not following a last symbolic link), `nil` when nothing is there.
    static func kind(of path: String) -> FileAttributeType? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.type] as? FileAttributeType
    }

    /// The first bytes of the regular file at `path` (through a symbolic link), `nil` when there is
    /// none. Anything else (a FIFO, a device) is never opened: opening a FIFO waits for a writer.
    static func head(of path: String) -> Data? {
        let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        guard kind(of: resolved) == .typeRegular, let handle = FileHandle(forReadingAtPath: resolved) else {
            return nil
        }
        defer { try? handle.close() }
        return (try? handle.read(upToCount: encryptedHeader.count)) ?? Data()
    }

    /// Chooses the backend for `config`'s cache file and sets its key store; returns what to do
    /// once the application was created (print the notice; remember the choice at the end).
    static func apply(
        to config: MSALPublicClientApplicationConfig, requested: CacheBackend?, defaultsFile: URL,
        environment: [String: String]
    ) throws -> () -> Void {
        let cacheConfig = config.cacheConfig
        guard let url = cacheConfig.resolvedCacheFileURL else { return {} }
        let credential = MSALSystemdCredentialKeyStore(
            credentialName: "msal-cache-key", directory: environment["CREDENTIALS_DIRECTORY"])
        var probes: [CacheBackend: CacheBackendProbe] = [.secretService: .notBuiltIn, .kernelKeyring: .notBuiltIn]
        if requested == nil || requested == .systemdCredential {
            do {
                try credential.probe()
                probes[.systemdCredential] = .available
            } catch {
                probes[.systemdCredential] = .unavailable(
                    (error as NSError).userInfo[MSALErrorDescriptionKey] as? String ?? "\(error)")
            }
        }
        let head = head(of: url.path)
        let document = DefaultAccount.read(defaultsFile)
        let decision = CacheBackendDecision.decide(
            .init(
                requested: requested, probes: probes, previous: document.cacheBackend.flatMap(CacheBackend.init),
                fileExists: head != nil, fileIsEncrypted: head.map { Array($0) == encryptedHeader } ?? false,
                warningShown: document.plaintextWarningShown ?? false, path: url.path))
        switch decision.outcome {
        case .refuse(let message):
            throw CommandFailure(message: message, code: .failure)
        case .use(let backend):
            if backend == .systemdCredential { cacheConfig.encryptionKeyStore = credential }
            return {
                if let notice = decision.notice { Console.error(notice) }
                // Remembered when the command ends, and only beside a cache folder that exists:
                // a command that only reads creates nothing on disk.
                CacheNotices.atEnd {
                    // Nor beside a cache path that is no file (a device, a FIFO: the command failed).
                    guard FileManager.default.fileExists(atPath: defaultsFile.deletingLastPathComponent().path),
                        kind(of: url.path) == nil || kind(of: url.path) == .typeRegular
                    else { return }
                    var updated = DefaultAccount.read(defaultsFile)
                    guard updated.cacheBackend != backend.rawValue || decision.isPlaintextWarning else { return }
                    updated.cacheBackend = backend.rawValue
                    if decision.isPlaintextWarning { updated.plaintextWarningShown = true }
                    try? DefaultAccount.write(updated, to: defaultsFile)
                }
            }
        }
    }
}
