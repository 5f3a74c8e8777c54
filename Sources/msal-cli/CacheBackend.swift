import Foundation
import MSAL
import MSALKernelKeyring
import MSALNative
import MSALSecretService

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

    /// Where this backend keeps the key of the cache file at `cachePath`, and how it goes away;
    /// `nil` for the plaintext file.
    func keyPlace(cachePath: String) -> String? {
        switch self {
        case .secretService:
            "an item of schema org.swift-msal.CacheKey whose attribute cache is \(cachePath), in the default "
                + "collection; `msal logout --all` removes it with the cache file"
        case .kernelKeyring:
            "the key msal:\(cachePath) of the user's keyring (@u), gone at a reboot; `msal logout --all` removes it "
                + "with the cache file"
        case .systemdCredential:
            "the service's credential, which msal only reads; `msal logout --all` removes the cache file"
        case .plaintext: nil
        }
    }
}

/// What a backend's probe found here.
enum CacheBackendProbe: Equatable, Sendable {
    case available
    /// Why it does not work here, with the remedy.
    case unavailable(String)
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
        /// Whether the cache's folder can be written (or does not exist yet).
        var folderIsWritable = true
    }

    var outcome: Outcome
    /// A line for standard error (a choice or a migration), or `nil`.
    var notice: String?
    /// Whether this is the plaintext fallback's warning (remembered once shown).
    var isPlaintextWarning = false

    static func decide(_ facts: Facts) -> CacheBackendDecision {
        let chosen: CacheBackend
        var warning = false
        if facts.requested == nil, let previous = keyHolder(facts), facts.probes[previous] == nil {
            // The key of this encrypted file is in the store used last: use it. Loading the key
            // tells whether the store still works, with the store's own remedy when it does not.
            return .init(outcome: .use(previous))
        }
        if let requested = facts.requested {
            if requested != .plaintext {
                switch facts.probes[requested] ?? .unavailable("it was not probed") {
                case .available: break
                case .unavailable(let reason):
                    return .init(outcome: .refuse("--cache-backend \(requested.rawValue): \(reason)"))
                }
            }
            chosen = requested
        } else if !facts.folderIsWritable, !facts.fileIsEncrypted {
            // A key store's first key is made under the cache's lock, in its folder, and the file
            // re-written encrypted: neither can happen here, so the file is read as it is (a
            // read-only copy of a cache), and a write fails naming the folder.
            return .init(outcome: .use(.plaintext))
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
            if let previous = facts.previous, previous != .plaintext,
                case .unavailable(let reason)? = facts.probes[previous]
            {
                // The store that holds the key fails here (a locked keyring, a broken
                // credential): its own reason, not what another store would do.
                return .init(
                    outcome: .refuse(
                        "the token cache \(facts.path) is encrypted with the key kept in \(previous.words), which "
                            + "cannot be used here: \(reason). Nothing was changed: fix that, or remove the file and "
                            + "sign in again"))
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
        let place = chosen.keyPlace(cachePath: facts.path).map { ": \($0)" } ?? ""
        let migration =
            facts.fileExists && !facts.fileIsEncrypted
            ? " The plaintext cache file is re-written encrypted, with every account, at its next change." : ""
        return .init(
            outcome: .use(chosen),
            notice: "msal: the token cache's key is kept in \(chosen.words)\(place).\(migration) See Docs/CLI.md, "
                + "\"Where the cache's key is kept\".")
    }

    /// The backends whose probes ``decide(_:)`` needs for these facts (the `probes` then left out):
    /// the requested one; none for a file encrypted with the key of the store used last (a probe
    /// writes, reads and removes a test item, which every command would pay for); otherwise every
    /// backend in order of preference (the caller may stop at the first that works).
    /// When the key holder, used without a probe, failed to give the key (`keyHolderFailed`), its
    /// probe comes first, so that the decision says why.
    static func probesNeeded(_ facts: Facts, keyHolderFailed: Bool = false) -> [CacheBackend] {
        if let requested = facts.requested { return requested == .plaintext ? [] : [requested] }
        guard let holder = keyHolder(facts) else { return CacheBackend.preference }
        return keyHolderFailed ? [holder] + CacheBackend.preference.filter { $0 != holder } : []
    }

    /// The key store used last, when the cache file is encrypted and that store holds its key.
    private static func keyHolder(_ facts: Facts) -> CacheBackend? {
        guard facts.fileIsEncrypted, let previous = facts.previous, previous != .plaintext else { return nil }
        return previous
    }

    /// ": <backend>: <why>; ..." for the backends that were probed and failed.
    private static func reasons(_ facts: Facts) -> String {
        let failed = CacheBackend.preference.compactMap { backend -> String? in
            switch facts.probes[backend] {
            case .unavailable(let reason)?: "\(backend.words): \(reason)"
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
    ///
    /// Every command reads it, so through the library's file layer: `FileManager.attributesOfItem`
    /// looks up the owner's and group's names too (NSS: /etc/nsswitch.conf, /etc/passwd,
    /// /etc/group), and cost `msal token` about 0.3 ms.
    static func head(of path: String) -> [UInt8]? {
        guard let resolved = try? FileSystem.resolvingSymbolicLinks(path),
            (try? FileSystem.linkStatus(resolved))?.kind == .regular
        else { return nil }
        return try? FileSystem.readSmallFile(resolved, limit: encryptedHeader.count)
    }

    /// Whether `folder` can be written by this process, or does not exist yet (it is made then).
    static func folderIsWritable(_ folder: String) -> Bool {
        !FileManager.default.fileExists(atPath: folder) || FileManager.default.isWritableFile(atPath: folder)
    }

    /// What ``apply(to:requested:defaultsFile:environment:keyHolderFailed:)`` chose.
    struct Applied {
        /// Whether the store is the key holder, used without a probe.
        var unprobed = false
        /// To run once the application was created: print the notice, remember the choice.
        var confirm: () -> Void = {}
    }

    /// What the decision knows of the cache file `url` (its probes still empty).
    static func facts(cacheFile url: URL, requested: CacheBackend?, defaultsFile: URL) -> CacheBackendDecision.Facts {
        let head = head(of: url.path)
        let document = DefaultAccount.read(defaultsFile)
        return CacheBackendDecision.Facts(
            requested: requested, probes: [:], previous: document.cacheBackend.flatMap(CacheBackend.init),
            fileExists: head != nil, fileIsEncrypted: head.map { $0 == encryptedHeader } ?? false,
            warningShown: document.plaintextWarningShown ?? false, path: url.path,
            folderIsWritable: folderIsWritable(url.deletingLastPathComponent().path))
    }

    /// Chooses the backend for `config`'s cache file and sets its key store.
    static func apply(
        to config: MSALPublicClientApplicationConfig, requested: CacheBackend?, defaultsFile: URL,
        environment: [String: String], keyHolderFailed: Bool = false
    ) throws -> Applied {
        let cacheConfig = config.cacheConfig
        guard let url = cacheConfig.resolvedCacheFileURL else { return Applied() }
        let stores = CacheBackendStores(cachePath: url.path, environment: environment)
        var facts = facts(cacheFile: url, requested: requested, defaultsFile: defaultsFile)
        let needed = CacheBackendDecision.probesNeeded(facts, keyHolderFailed: keyHolderFailed)
        facts.probes = stores.probes(needed)
        let decision = CacheBackendDecision.decide(facts)
        switch decision.outcome {
        case .refuse(let message):
            throw CommandFailure(message: message, code: .failure)
        case .use(let backend):
            cacheConfig.encryptionKeyStore = stores.store(backend)
            if backend == .systemdCredential, let warning = stores.credential.exposureWarning() {
                Console.error("msal: warning: " + warning)
            }
            return Applied(unprobed: backend != .plaintext && needed.isEmpty) { [remembered = facts.previous] in
                if let notice = decision.notice { Console.error(notice) }
                // Already remembered (every command after the first): nothing to write, so the
                // file is not read again.
                guard backend != remembered || decision.isPlaintextWarning else { return }
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

/// The key stores `msal` can keep a cache file's key in, and their probes (each writes, reads back
/// and removes a test item of its own, never the cache's key).
///
/// libsecret and libkeyutils are opened when a probe first needs them: where one is missing (or
/// broken), its probe says so, naming the library, and the next backend is tried.
struct CacheBackendStores {
    /// The cache file's path, which names its key in the stores.
    let cachePath: String
    /// `$CREDENTIALS_DIRECTORY`.
    let credentialsDirectory: String?
    /// The D-Bus session bus, when this environment names one.
    let sessionBus: String?

    init(cachePath: String, environment: [String: String]) {
        self.cachePath = cachePath
        credentialsDirectory = environment["CREDENTIALS_DIRECTORY"]
        sessionBus = Self.sessionBus(environment)
    }

    // Each store is made when asked for: a command uses one, and making the Secret Service's
    // (its attribute list) cost `msal token` about 0.03 ms.

    /// The desktop keyring's item of this cache: schema `org.swift-msal.CacheKey`, attribute
    /// `cache` = the cache file's path.
    var secretService: MSALSecretServiceKeyStore {
        MSALSecretServiceKeyStore(cacheName: cachePath)
    }

    /// The key `msal:<cache file path>` in the user's keyring (every process of this user id; gone
    /// with the user's last process, and at a reboot).
    var kernelKeyring: MSALKernelKeyringKeyStore {
        MSALKernelKeyringKeyStore(keyName: "msal:" + cachePath, keyring: .user)
    }

    /// The credential `msal-cache-key` of `$CREDENTIALS_DIRECTORY`.
    var credential: MSALSystemdCredentialKeyStore {
        MSALSystemdCredentialKeyStore(credentialName: "msal-cache-key", directory: credentialsDirectory)
    }

    /// The session bus GLib would connect to: `DBUS_SESSION_BUS_ADDRESS`, else the socket
    /// `$XDG_RUNTIME_DIR/bus` when it exists; `nil` without either (then GLib would try to start a
    /// bus with dbus-launch, which is never wanted here, so the Secret Service is not tried).
    static func sessionBus(_ environment: [String: String]) -> String? {
        if let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty { return address }
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty,
            FileManager.default.fileExists(atPath: runtime + "/bus")
        {
            return "unix:path=\(runtime)/bus"
        }
        return nil
    }

    static let noBusReason =
        "no D-Bus session bus here (DBUS_SESSION_BUS_ADDRESS is unset), as in an SSH login, a container or a "
        + "service: the desktop keyring cannot be reached from this session"

    /// The key store of `backend`; `nil` for the plaintext file.
    func store(_ backend: CacheBackend) -> (any MSALCacheKeyStore)? {
        switch backend {
        case .secretService: secretService
        case .kernelKeyring: kernelKeyring
        case .systemdCredential: credential
        case .plaintext: nil
        }
    }

    /// What `backend`'s probe finds here.
    func probe(_ backend: CacheBackend) -> CacheBackendProbe {
        if backend == .secretService, sessionBus == nil { return .unavailable(Self.noBusReason) }
        guard let store = store(backend) else { return .available }
        do {
            try store.probe()
            return .available
        } catch {
            return .unavailable(Self.describe(error))
        }
    }

    /// The probes of `backends`, in order, up to the first that works (a decision would not choose
    /// the ones after it).
    func probes(_ backends: [CacheBackend]) -> [CacheBackend: CacheBackendProbe] {
        Self.probes(backends, probe: probe)
    }

    /// What `probe` finds for `backends`, in order, up to the first that works: the probes a
    /// command runs, or (`msal doctor`, which probed every store once) the part of them it would.
    static func probes(
        _ backends: [CacheBackend], probe: (CacheBackend) -> CacheBackendProbe
    ) -> [CacheBackend: CacheBackendProbe] {
        var probes: [CacheBackend: CacheBackendProbe] = [:]
        for backend in backends {
            let found = probe(backend)
            probes[backend] = found
            if found == .available { break }
        }
        return probes
    }

    /// A probe's error in words (MSALErrorDomain's description when it has one).
    static func describe(_ error: any Error) -> String {
        (error as NSError).userInfo[MSALErrorDescriptionKey] as? String ?? "\(error)"
    }
}
