import Foundation
import MSAL
import MSALBroker

/// `msal doctor`: where the tool keeps tokens and how safely, which key stores would work here,
/// the cache's locks, the proxy, the trusted CAs, and this machine's clock against the authority's.
enum DoctorCommand {
    static let command = ToolCommand(
        name: "doctor", summary: "check the token cache, its locks, the proxy, the CA file and the clock",
        help: """
            usage: msal doctor [-o text|json|none] [--cache FILE] [--authority URL] [--ca-file PEM]

            Prints what a failing sign-in or token command may depend on, one line per finding:
              cache        the cache file, whether it exists, its mode, and how it is kept (the
                           plaintext file, mode 0600, or encrypted with its key in a key store)
              key store    each key store tried here, in msal's order of preference, and why it
                           would not work (a probe that never touches the cache's key): the desktop
                           keyring (Secret Service, over the D-Bus session bus), the kernel keyring
                           (the user's keyring), the systemd credential of $CREDENTIALS_DIRECTORY;
                           "in use" marks the one msal chooses here
              advice       what to do about the above, when something should be done
              lock         the cache's lock (msal_cache.json.lock) and msal-extensions' lockfile:
                           free, or held by which process
              proxy        the proxy variables libcurl follows (https_proxy, all_proxy, no_proxy)
              ca file      the certificate authorities trusted (--ca-file, else the system's)
              broker       whether the Microsoft identity broker answers on the session bus (or
                           $MSAL_BROKER_BUS), and its version
              clock        this machine's clock against the authority's Date header (one HTTPS
                           request to its discovery document); tokens look expired, or not yet
                           valid, when the skew passes 5 minutes

            Exit code 0 when everything could be checked, 1 when the authority could not be reached
            or the clock is off by more than 5 minutes. Needs no --client-id.

            Options:
              -o, --output FORMAT
                                 text (default); json: one object with the fields above; none
              --json             the same as -o json

            \(ApplicationOptions.help)
            """,
        specification: ApplicationOptions.specification.adding(OutputFormat.specification),
        run: run)

    /// The skew beyond which the clock is reported as a problem: Entra ID's own tolerance.
    static let skewLimit: TimeInterval = 300

    struct Report: Codable {
        struct Cache: Codable {
            var path: String
            var exists: Bool
            var mode: String?
            var storage: String
            /// What the symbolic link at `path` points to (the end of its chain), when it is one:
            /// the file the cache is written to, and its lock and temporary files beside it.
            var link: String?
        }
        struct KeyStore: Codable {
            var store: String
            var available: Bool
            var active: Bool
            var problem: String?
        }
        struct Lock: Codable {
            var path: String
            /// absent, free, held, or stale.
            var state: String
            var pid: Int?
            var process: String?
        }
        struct Clock: Codable {
            var url: String
            var serverDate: String?
            var skewSeconds: Double?
            var error: String?

            enum CodingKeys: String, CodingKey {
                case url
                case serverDate = "server_date"
                case skewSeconds = "skew_seconds"
                case error
            }
        }

        var version: String
        var cache: Cache
        var keyStores: [KeyStore]
        var advice: String?
        var locks: [Lock]
        var proxy: ProxyVariables
        var caFile: String?
        var clock: Clock
        var broker: Broker?
        struct Broker: Codable {
            var bus: String
            var version: String?
            var problem: String?
        }

        enum CodingKeys: String, CodingKey {
            case version, cache, advice, locks, proxy, clock, broker
            case keyStores = "key_stores"
            case caFile = "ca_file"
        }
    }

    static func run(_ arguments: CommandLineArguments, _ environment: [String: String]) async throws -> ExitCode {
        // The client id names no cache and no request here.
        var environment = environment
        if arguments.value("client-id", environment: environment, variable: "MSAL_CLIENT_ID") == nil {
            environment["MSAL_CLIENT_ID"] = "00000000-0000-0000-0000-000000000000"
        }
        let options = try ApplicationOptions(arguments, environment: environment)
        let format = try OutputFormat(arguments)
        let report = await check(options, environment: environment)
        switch format {
        case .json: Console.line(try Console.json(report))
        case .text, .tsv: printText(report)
        case .none: break
        }
        let clockIsOff = report.clock.skewSeconds.map { abs($0) > skewLimit } ?? true
        return clockIsOff ? .failure : .success
    }

    static func check(_ options: ApplicationOptions, environment: [String: String]) async -> Report {
        let config = MSALCacheConfig()
        if let file = options.cacheFile { config.cacheFileURL = URL(fileURLWithPath: file) }
        let cacheFile = config.resolvedCacheFileURL
        let path = cacheFile?.path ?? ""
        // Every key store probed, each once (a probe writes, reads back and removes an item, or
        // reads a credential), and the one the other commands would choose here: their own
        // decision (CacheBackendDecision) from the probes they would run, taken from these.
        let stores = CacheBackendStores(cachePath: path, environment: environment)
        let probes = CacheBackend.preference.map { ($0, stores.probe($0)) }
        let found = Dictionary(uniqueKeysWithValues: probes)
        var facts = CacheBackendSelection.facts(
            cacheFile: cacheFile ?? URL(fileURLWithPath: path), requested: options.cacheBackend,
            defaultsFile: options.defaultsFile)
        facts.probes = CacheBackendStores.probes(CacheBackendDecision.probesNeeded(facts)) { found[$0] ?? .available }
        let findings = Self.findings(
            CacheBackendDecision.decide(facts).outcome, probes: probes, fileIsPlaintext: Self.isPlaintext(path),
            fileIsEncrypted: facts.fileIsEncrypted)
        let link = Self.linkTarget(path)
        let attributes = try? FileManager.default.attributesOfItem(atPath: link ?? path)
        let mode = (attributes?[.posixPermissions] as? NSNumber).map { "0" + String($0.intValue, radix: 8) }
        let keyStores = probes.map { backend, probe in
            let problem: String? =
                switch probe {
                case .available: nil
                case .unavailable(let reason): reason
                }
            return Report.KeyStore(
                store: stores.store(backend)?.storeDescription ?? backend.words, available: problem == nil,
                active: backend == findings.active, problem: problem)
        }
        let authority = options.authority?.url ?? MSALPublicClientApplicationConfig.defaultAuthorityURL
        let discovery = authority.appendingPathComponent("v2.0/.well-known/openid-configuration")
        var clock = Report.Clock(url: discovery.absoluteString)
        do {
            let reading = try await ServerClock.read(discovery, caFile: options.caFile, connectTo: options.connectTo)
            if let date = reading.serverDate {
                clock.serverDate = ISO8601DateFormatter().string(from: date)
                clock.skewSeconds = reading.skew.map { ($0 * 10).rounded() / 10 }
            } else {
                clock.error = "the answer (HTTP \(reading.status)) has no Date header"
            }
        } catch {
            let bridged = error as NSError
            var text = MSALErrorInfo(bridged).errorDescription ?? "\(error)"
            if let curl = bridged.userInfo[MSALCurlErrorMessageKey] as? String, !text.contains(curl) {
                text += ": " + curl
            }
            clock.error = text
        }
        return Report(
            version: LibraryInfo.version,
            cache: .init(path: path, exists: attributes != nil, mode: mode, storage: findings.storage, link: link),
            keyStores: keyStores, advice: findings.advice,
            locks: [CacheLockState.ownLock(ofCache: path), CacheLockState.extensionsLock(ofCache: path)],
            proxy: ProxyVariables(values: Self.proxy(environment)), caFile: options.caFile, clock: clock,
            broker: await brokerCheck(options))
    }

    /// Whether a broker answers `getLinuxBrokerVersion` (within 5 seconds).
    static func brokerCheck(_ options: ApplicationOptions) async -> Report.Broker {
        var report = Report.Broker(bus: options.brokerBus ?? "the session bus")
        do {
            report.version = try await MSALLinuxBroker(busAddress: options.brokerBus, timeout: 5).version()
        } catch {
            report.problem = "\(error)"
        }
        return report
    }

    /// The end of the chain of symbolic links at `path` (relative links resolved against their
    /// folder), or `nil` when `path` is no link.
    static func linkTarget(_ path: String) -> String? {
        var current = path
        for _ in 0..<40 {
            guard let next = try? FileManager.default.destinationOfSymbolicLink(atPath: current) else {
                return current == path ? nil : current
            }
            current = next.hasPrefix("/") ? next : (current as NSString).deletingLastPathComponent + "/" + next
        }
        return current
    }

    /// Whether the file at `path` exists and is not encrypted.
    static func isPlaintext(_ path: String) -> Bool {
        guard let head = CacheBackendSelection.head(of: path) else { return false }
        return head != CacheBackendSelection.encryptedHeader
    }

    /// What the report says of the cache.
    struct Findings: Equatable {
        /// The key store the other commands use here, `nil` for none (the plaintext file, or a refusal).
        var active: CacheBackend?
        /// How the cache is kept, in words.
        var storage: String
        /// What to do, when something should be done.
        var advice: String?
    }

    /// The findings for the decision `outcome` the other commands make here, given every store's
    /// probe (in order of preference) and the cache file's state. A pure function.
    static func findings(
        _ outcome: CacheBackendDecision.Outcome, probes: [(CacheBackend, CacheBackendProbe)], fileIsPlaintext: Bool,
        fileIsEncrypted: Bool
    ) -> Findings {
        switch outcome {
        case .refuse(let message):
            return Findings(
                storage: fileIsEncrypted
                    ? "encrypted file, its key in a key store that cannot be used here (see advice)" : "plaintext file",
                advice: "msal would stop here: " + message)
        case .use(.plaintext):
            guard let usable = probes.first(where: { $0.1 == .available })?.0 else {
                return Findings(
                    storage: "plaintext file",
                    advice: "the cache file is plaintext, readable by every process of this user and by its backups; "
                        + "no key store works here (see why above): keep the file on storage only this user reaches, "
                        + "or use msal where a key store works (Docs/CLI.md, \"Where the cache's key is kept\")")
            }
            return Findings(
                storage: "plaintext file",
                advice: "the cache file is plaintext, readable by every process of this user: keep its key in "
                    + "\(usable.words) (--cache-backend \(usable.rawValue)) instead")
        case .use(let backend):
            let storage =
                fileIsPlaintext
                ? "plaintext file until its next change, then encrypted with the key store in use below"
                : "encrypted file, its key in the key store in use below"
            // The store that holds the key is used without a probe; when its probe fails here, so
            // does opening the cache.
            guard case .unavailable(let problem)? = probes.first(where: { $0.0 == backend })?.1 else {
                return Findings(active: backend, storage: storage)
            }
            return Findings(
                active: backend, storage: storage,
                advice: "the key store in use does not work here, so the cache cannot be opened: \(problem)")
        }
    }

    /// The proxy variables libcurl reads, as set.
    static func proxy(_ environment: [String: String]) -> [String: String] {
        let names = ["https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY"]
        return environment.filter { names.contains($0.key) && !$0.value.isEmpty }
    }

    private static func printText(_ report: Report) {
        let cache = report.cache
        Console.line(
            "cache: \(cache.path) (\(cache.exists ? "mode \(cache.mode ?? "?")" : "not created yet")), kept as the "
                + cache.storage)
        if let link = cache.link {
            Console.line(
                "cache: \(cache.path) is a symbolic link to \(link): the cache is written there, with its lock "
                    + "and temporary files beside it (never in a folder of another user), and never over a file that "
                    + "is not a token cache")
        }
        for store in report.keyStores {
            let state = store.available ? (store.active ? "in use" : "works here") : "not available"
            Console.line("key store: \(store.store): \(state)" + (store.problem.map { ": \($0)" } ?? ""))
        }
        if let advice = report.advice { Console.line("advice: \(advice)") }
        for lock in report.locks {
            var text = "lock: \(lock.path): \(lock.state)"
            if let pid = lock.pid { text += " by process \(pid)" + (lock.process.map { " (\($0))" } ?? "") }
            Console.line(text)
        }
        Console.line(
            "proxy: "
                + (report.proxy.values.isEmpty
                    ? "none (no https_proxy, all_proxy or no_proxy set)"
                    : report.proxy.values.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(
                        separator: " ")))
        Console.line("ca file: \(report.caFile ?? "none: the system's certificate authorities")")
        if let broker = report.broker {
            Console.line(
                "broker: "
                    + (broker.version.map { "version \($0) answers on \(broker.bus)" }
                        ?? "none on \(broker.bus): \(broker.problem ?? "no answer") (--broker would use msal's own flows)")
            )
        }
        let clock = report.clock
        if let skew = clock.skewSeconds {
            let direction = skew >= 0 ? "behind" : "ahead of"
            var text = "clock: \(String(format: "%.0f", abs(skew))) s \(direction) the authority (\(clock.url))"
            if abs(skew) > skewLimit {
                text +=
                    ": more than 5 minutes, tokens will look expired or not yet valid; set this machine's clock"
                    + " (timedatectl set-ntp true)"
            }
            Console.line(text)
        } else {
            Console.line("clock: not measured (\(clock.url)): \(clock.error ?? "no answer")")
        }
    }
}

/// Who holds the cache's locks, from what Linux shows every process: `/proc/locks` (the `flock`
/// of `msal_cache.json.lock`) and the process id msal-extensions writes in its lockfile.
enum CacheLockState {
    static func ownLock(ofCache path: String) -> DoctorCommand.Report.Lock {
        let lockPath = path + ".lock"
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: lockPath),
            let inode = (attributes[.systemFileNumber] as? NSNumber)?.uint64Value
        else { return .init(path: lockPath, state: "absent") }
        guard let pid = holder(ofInode: inode) else { return .init(path: lockPath, state: "free") }
        return .init(path: lockPath, state: "held", pid: pid, process: processName(pid))
    }

    static func extensionsLock(ofCache path: String) -> DoctorCommand.Report.Lock {
        let lockPath = path + ".lockfile"
        guard CacheBackendSelection.kind(of: lockPath) != nil else { return .init(path: lockPath, state: "absent") }
        // Read only from a regular file, and only its start (a FIFO there would block).
        let data =
            CacheBackendSelection.kind(of: lockPath) == .typeRegular
            ? FileHandle(forReadingAtPath: lockPath).flatMap { handle in
                defer { try? handle.close() }
                return try? handle.read(upToCount: 64)
            } : nil
        let text = String(decoding: data ?? Data(), as: UTF8.self)
        guard let pid = text.split(separator: " ").first.flatMap({ Int($0) }) else {
            return .init(path: lockPath, state: "held", pid: nil, process: nil)
        }
        let alive = FileManager.default.fileExists(atPath: "/proc/\(pid)")
        return .init(path: lockPath, state: alive ? "held" : "stale", pid: pid, process: processName(pid))
    }

    /// The process holding a `flock` on the file with `inode`, from `/proc/locks`
    /// (`1: FLOCK  ADVISORY  WRITE 4242 08:01:1234 0 EOF`; waiters' lines start with `->`).
    static func holder(ofInode inode: UInt64, locks: String? = nil) -> Int? {
        let text = locks ?? (try? String(contentsOfFile: "/proc/locks", encoding: .utf8)) ?? ""
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 6, fields[1] != "->", fields[1] == "FLOCK" else { continue }
            let file = fields[5].split(separator: ":")
            if file.count == 3, UInt64(file[2]) == inode { return Int(fields[4]) }
        }
        return nil
    }

    static func processName(_ pid: Int) -> String? {
        (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?.trimmingCharacters(
            in: .whitespacesAndNewlines)
    }
}

/// The proxy variables `msal doctor` reports: in JSON an object of those set, or `null` when none
/// is (the text output's "none"), so that a script tells "no proxy" from an empty setting.
struct ProxyVariables: Codable {
    var values: [String: String]

    init(values: [String: String]) {
        self.values = values
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        values = container.decodeNil() ? [:] : try container.decode([String: String].self)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if values.isEmpty {
            try container.encodeNil()
        } else {
            try container.encode(values)
        }
    }
}
