import Foundation
import Glibc
import MSALNative
import XCTest

@testable import MSAL

/// One cache file shared with the real `msal-extensions` (MSAL for Python's persistence, used by
/// Azure CLI and many Python tools): four Python writers (its `PersistedTokenCache` over
/// `FilePersistence`, which locks `<cache>.lockfile` and rewrites the file in place) and four of
/// ours (this test bundle run again as workers, each a `TokenCache.modify`) write distinct tokens
/// for about 20 s (`MSAL_EXT_SOAK_SECONDS`), while the test SIGKILLs a random writer every 0.4 to
/// 1.2 s and starts a replacement. Every writer prints an acknowledgement after each write
/// returns. At the end every acknowledged write of every writer must be in the file, as read by
/// MSAL for Python and by us (the newest acknowledged token of each account, or a later one of
/// the same writer slot), and no `*.corrupt-*` file may appear.
///
/// Writers pause a random 0 to 1 s between writes (longer when their writes are slow, as under a
/// sanitizer), so that the lock is free most of the time (each write holds it for about 20 ms, a
/// Python one four times): msal-extensions' lock polls
/// every 0.25 s and gives up after 5 s (below), and with the lock mostly busy even its own
/// writers starve each other into that.
///
/// What exactly is claimed: no acknowledged write is lost between our writers and theirs, or
/// between ours, while msal-extensions' own lock holds.
/// - Our writers are killed at any moment, inside their lock too.
/// - A Python writer is killed only between two writes (asked to park, outside any lock): one
///   killed inside its `FilePersistence.save` leaves a truncated file for everyone (the file is
///   rewritten in place), which no reader can repair.
/// - msal-extensions' lock is "create `<cache>.lockfile` exclusively, retrying every 0.25 s for at
///   most 5 s, then `flock` it; on release unlock, then remove it". A writer that never wins the
///   creation in 5 s (busy writers starve it; or a killed writer left the file behind) gives up
///   ("failed to create lock file") and flocks the file that is there; its holder removes it after
///   unlocking, and the next writer creates a new one: two writers then hold "the" lock at once.
///   That is a race inside msal-extensions, seen with Python writers alone: `msal_extensions_soak.py
///   stale-lock-race` (a stale lock file, six Python writers, no code of ours) loses about a
///   quarter of their acknowledged writes (30 and 31 of 120 in two runs). Each
///   Python write reports whether it fell back like that and whether the lock file it held was
///   still the one at the lock path while it held it (`Tests/Interop/msal_extensions_soak.py`
///   watches the real lock without changing it); each of ours whether, under its lock, it held a
///   lock file no longer at the path (from `/proc/locks`). A lost write whose lock was held
///   within such a write's time (from its lock to 2 s after its release, which covers the
///   writers that overlapped it) is counted and printed apart as msal-extensions' race; every
///   other lost write fails the test.
///
/// The harness itself is checked: with `MSAL_EXT_SOAK_REFERENCE_LOCK=1` the test takes
/// msal-extensions' lock around each of our writes (``withMSALExtensionsLock(_:enabled:_:)``), and
/// the soak passes even against a library that does not take it itself.
final class AdversarialCacheMSALExtensionsSoakTests: XCTestCase {
    private static let slots = 4
    private static let accountsPerSlot = 10
    private static let tenant = "5c1b3e8a-0000-4000-8000-000000000001"
    private static let clientId = "04b07795-8ddb-461a-bbee-02f9e1bf7b46"
    /// Mean pauses between two writes, in seconds (see the class comment).
    private static let ourPause = 0.5
    private static let pythonPause = 0.5

    /// Our writer: runs only when started by the soak below (the test bundle run again).
    func testSoakWriterEntryPoint() throws {
        let environment = ProcessInfo.processInfo.environment
        guard let path = environment["MSAL_EXT_SOAK_PATH"], let slot = Int(environment["MSAL_EXT_SOAK_SLOT"] ?? ""),
            let generation = Int(environment["MSAL_EXT_SOAK_GENERATION"] ?? "")
        else { return }
        let cache = TokenCache(settings: CacheSettings(location: .file(path: path, isDefault: false), lockTimeout: 600))
        let referenceLock = environment["MSAL_EXT_SOAK_REFERENCE_LOCK"] == "1"
        var index = 0
        while true {  // until killed
            let account = index % Self.accountsPerSlot
            let secret = String(format: "at-s%d-%05d-%09d", slot, generation, index)
            var entered = 0.0
            var fallen = false
            try Self.withMSALExtensionsLock(path, enabled: referenceLock) {
                try cache.modifyBlocking {
                    entered = Date().timeIntervalSince1970
                    fallen = Self.holdsARemovedLockFile(path)
                    $0.save(Self.record(slot: slot, account: account, accessToken: secret))
                }
            }
            let exited = Date().timeIntervalSince1970
            let line = String(
                format: "ack %d %@ %d %d %.6f %.6f\n", account, secret, fallen ? 1 : 0, fallen ? 0 : 1, entered, exited)
            FileHandle.standardOutput.write(Data(line.utf8))
            index += 1
            // Slower writes (a sanitizer, a loaded machine) pause longer: the lock stays mostly free.
            let pause = max(Self.ourPause, 12 * (exited - entered))
            usleep(useconds_t.random(in: 0...useconds_t(2 * pause * 1_000_000)))
        }
    }

    /// Diagnostics (`MSAL_EXT_SOAK_REFERENCE_LOCK=1`): msal-extensions' lock taken by the test
    /// around our write, the way msal-extensions takes it (create `<cache>.lockfile` exclusively,
    /// retried for 5 s, then `flock` it; unlock, then remove it), to tell the library's part
    /// from the lock's: with it, what our library does inside must lose nothing.
    static func withMSALExtensionsLock<T>(_ path: String, enabled: Bool, _ body: () throws -> T) throws -> T {
        guard enabled else { return try body() }
        let lockPath = path + ".lockfile"
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline {
            let created = open(lockPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if created >= 0 {
                close(created)
                break
            }
            usleep(1_000)
        }
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 { usleep(1_000) }
        defer {
            flock(descriptor, LOCK_UN)
            close(descriptor)
            unlink(lockPath)
        }
        return try body()
    }

    /// Whether this process holds a `flock` on a file other than our own `<cache>.lock` and the
    /// file now at msal-extensions' `<cache>.lockfile` (from `/proc/locks`): then it is inside
    /// msal-extensions' race (it locked a lock file that its Python holder removed after
    /// releasing it). Holding no such lock at all is not that: it is not taking the lock.
    static func holdsARemovedLockFile(_ path: String) -> Bool {
        func inode(_ path: String) -> UInt64? {
            var info = stat()
            return stat(path, &info) == 0 ? UInt64(info.st_ino) : nil
        }
        guard let text = try? String(contentsOfFile: "/proc/locks", encoding: .utf8) else { return false }
        let pid = String(getpid())
        let held = text.split(separator: "\n").compactMap { line -> UInt64? in
            let fields = line.split(separator: " ")
            guard fields.count >= 6, fields[1] == "FLOCK", fields[4] == pid else { return nil }
            return fields[5].split(separator: ":").last.flatMap { UInt64($0) }
        }
        let candidates = Set(held).subtracting([inode(path + ".lock")].compactMap { $0 })
        guard !candidates.isEmpty else { return false }
        guard let current = inode(path + ".lockfile") else { return true }
        return !candidates.contains(current)
    }

    static func ourHomeAccountId(slot: Int, account: Int) -> String {
        String(format: "00000000-0000-4000-8000-%06d%06d", slot, account) + ".\(tenant)"
    }

    static func pythonHomeAccountId(slot: Int, account: Int) -> String {
        String(format: "00000000-0000-4000-9000-%06d%06d", slot, account) + ".\(tenant)"
    }

    private static func record(slot: Int, account: Int, accessToken: String) -> TokenResponseRecord {
        let homeAccountId = ourHomeAccountId(slot: slot, account: account)
        var record = TokenResponseRecord(
            clientId: clientId, environment: "login.microsoftonline.com", realm: tenant, homeAccountId: homeAccountId,
            localAccountId: String(homeAccountId.prefix(36)), username: "soak-\(slot)-\(account)@contoso.com")
        let now = Int64(Date().timeIntervalSince1970)
        record.accessToken = accessToken
        record.scopes = ["User.Read"]
        record.cachedAt = now
        record.expiresOn = now + 3600
        record.extendedExpiresOn = now + 3600
        record.refreshToken = "rt-" + accessToken
        return record
    }

    /// One acknowledged write.
    struct Ack {
        var writer: String
        var account: Int
        var secret: String
        /// A Python write whose lock fell back to a lock file it did not create; one of ours that
        /// held a lock file no longer at the lock path (``holdsARemovedLockFile(_:)``).
        var fallback: Bool
        /// False when the lock file held was not the one at the lock path during the write.
        var protected: Bool
        var entered: Double
        var exited: Double
    }

    /// One running writer, ours or Python's, and what it acknowledged.
    private final class Writer: @unchecked Sendable {
        // @unchecked: `acks` and `parked` are behind locks; the rest is set once.
        let process = Process()
        let name: String
        let slot: Int
        let isPython: Bool
        let acks = Locked<[Ack]>([])
        let parked = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        /// The writer had ended before it was killed (a crash: its output says how far it got).
        var diedOnItsOwn = false
        /// Its standard error (`logs/<writer>` beside the cache file).
        let errorLog: URL
        private let input = Pipe()

        /// The end of its standard error.
        var errorTail: String {
            String(((try? String(contentsOf: errorLog, encoding: .utf8)) ?? "").suffix(400))
        }

        init(python: URL?, script: URL, path: String, slot: Int, generation: Int) throws {
            self.slot = slot
            isPython = python != nil
            name = String(format: "%@%d-%05d", python != nil ? "p" : "s", slot, generation)
            var environment = ProcessInfo.processInfo.environment
            if let python {
                process.executableURL = python
                process.arguments = [
                    script.path, "write", "--cache", path, "--writer", name, "--slot", String(slot),
                    "--accounts", String(AdversarialCacheMSALExtensionsSoakTests.accountsPerSlot), "--pause-ms",
                    String(AdversarialCacheMSALExtensionsSoakTests.pythonPause * 1000),
                ]
            } else {
                process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
                process.arguments = [
                    "MSALIntegrationTests.AdversarialCacheMSALExtensionsSoakTests/testSoakWriterEntryPoint"
                ]
                environment["MSAL_EXT_SOAK_PATH"] = path
                environment["MSAL_EXT_SOAK_SLOT"] = String(slot)
                environment["MSAL_EXT_SOAK_GENERATION"] = String(generation)
            }
            process.environment = environment
            process.standardInput = input
            let output = Pipe()
            process.standardOutput = output
            errorLog = URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent("logs/\(name)")
            _ = FileManager.default.createFile(atPath: errorLog.path, contents: nil)
            process.standardError = try FileHandle(forWritingTo: errorLog)
            let handle = output.fileHandleForReading
            let (acks, parked, done, name) = (acks, parked, done, name)
            let reader = Thread {
                var pending = Data()
                while true {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    pending.append(chunk)
                    while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                        let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                        pending.removeSubrange(pending.startIndex...newline)
                        if line == "parked" { parked.signal() }
                        let fields = line.split(separator: " ").map(String.init)
                        guard fields.count == 7, fields[0] == "ack", let account = Int(fields[1]),
                            let entered = Double(fields[5]), let exited = Double(fields[6])
                        else { continue }
                        let ack = Ack(
                            writer: name, account: account, secret: fields[2], fallback: fields[3] == "1",
                            protected: fields[4] == "1", entered: entered, exited: exited)
                        acks.withLock { $0.append(ack) }
                    }
                }
                done.signal()
            }
            try process.run()
            reader.start()
        }

        /// SIGKILLs the writer (a Python writer first parks between two writes) and waits until
        /// its output is read to the end. Returns false when a Python writer did not park in time.
        @discardableResult
        func kill(parkFirst: Bool) -> Bool {
            var didPark = true
            if isPython && parkFirst && process.isRunning {
                // SIGPIPE is ignored (see the test): a writer that died makes this throw EPIPE.
                try? input.fileHandleForWriting.write(contentsOf: Data("park\n".utf8))
                didPark = parked.wait(timeout: .now() + 20) == .success
            }
            if !process.isRunning { diedOnItsOwn = true }
            Glibc.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            done.wait()
            return didPark
        }
    }

    func testOurWritersAndMSALExtensionsWritersLoseNoAcknowledgedWrite() throws {
        let python = try MSALPython.require()
        try Self.requireMSALExtensions(python)
        // Asking a writer that died to park must not end this process.
        let previousHandler = signal(SIGPIPE, SIG_IGN)
        defer { signal(SIGPIPE, previousHandler) }
        let script = MSALPython.packageRoot.appendingPathComponent("Tests/Interop/msal_extensions_soak.py")
        let environment = ProcessInfo.processInfo.environment
        let seconds = Double(environment["MSAL_EXT_SOAK_SECONDS"] ?? "") ?? 20
        // Diagnostics (see the class comment): MSAL_EXT_SOAK_WRITERS=python,ours (default 4,4);
        // MSAL_EXT_SOAK_HARD_KILLS=1 kills Python writers at any moment too;
        // MSAL_EXT_SOAK_REFERENCE_LOCK=1 (``withMSALExtensionsLock(_:enabled:_:)``).
        let counts = (environment["MSAL_EXT_SOAK_WRITERS"] ?? "").split(separator: ",").compactMap { Int($0) }
        let writers = counts.count == 2 ? counts : [Self.slots, Self.slots]
        let parkPython = environment["MSAL_EXT_SOAK_HARD_KILLS"] != "1"
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let folder = directory.url
        let path = folder.appendingPathComponent("msal_cache.json").path
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("logs"), withIntermediateDirectories: true)

        func start(_ kind: Int, _ slot: Int, _ generation: Int) throws -> Writer {
            try Writer(
                python: kind == 0 ? python.python : nil, script: script, path: path, slot: slot, generation: generation)
        }
        // kind 0: Python, kind 1: ours.
        var generations = writers.map { [Int](repeating: 0, count: $0) }
        var running = try (0..<2).map { kind in try (0..<writers[kind]).map { try start(kind, $0, 0) } }
        var finished: [Writer] = []
        var kills = [0, 0]
        var unparked = 0
        var random = SystemRandomNumberGenerator()
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            usleep(useconds_t.random(in: 400_000...1_200_000, using: &random))
            let kind = try XCTUnwrap((0..<2).filter { writers[$0] > 0 }.randomElement(using: &random))
            let slot = Int.random(in: 0..<writers[kind], using: &random)
            if !running[kind][slot].kill(parkFirst: parkPython) { unparked += 1 }
            kills[kind] += 1
            finished.append(running[kind][slot])
            generations[kind][slot] += 1
            running[kind][slot] = try start(kind, slot, generations[kind][slot])
        }
        for writer in running.joined() {
            writer.kill(parkFirst: true)
            finished.append(writer)
        }

        let acks = finished.flatMap { $0.acks.withLock { $0 } }
        let died = finished.filter(\.diedOnItsOwn)
        let leftovers = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter {
            $0 != "logs"
        }.sorted()
        let inspected = try python.runScript(script, ["inspect", "--cache", path])
        XCTAssertNil(inspected["error"] as? String, "the final file is JSON")
        XCTAssertNil(inspected["msal_error"] as? String, "MSAL for Python reads the final file")
        let pythonTokens = (inspected["access_tokens"] as? [String: [String]]) ?? [:]
        let ours = TokenCache(settings: CacheSettings(location: .file(path: path, isDefault: false)))

        // The newest acknowledged write of each (writer slot, account); secrets sort by
        // generation, then index, within a slot.
        var newest: [String: Ack] = [:]
        for ack in acks {
            let slot = Int(ack.writer.dropFirst().prefix { $0 != "-" }) ?? -1
            let homeAccountId =
                ack.writer.hasPrefix("p")
                ? Self.pythonHomeAccountId(slot: slot, account: ack.account)
                : Self.ourHomeAccountId(slot: slot, account: ack.account)
            if (newest[homeAccountId]?.secret ?? "") < ack.secret { newest[homeAccountId] = ack }
        }
        // Lock holds within msal-extensions' own race (see the class comment).
        let raceWindows = acks.filter { $0.fallback || !$0.protected }.map { ($0.entered, $0.exited + 2) }
        let ourAcks = acks.filter { $0.writer.hasPrefix("s") }
        var lost: [String] = []
        var lostInTheirRace: [String] = []
        for (homeAccountId, ack) in newest.sorted(by: { $0.key < $1.key }) {
            let theirs = pythonTokens[homeAccountId] ?? []
            let mine = try ours.readBlocking { store in
                store.accessToken(
                    homeAccountId: homeAccountId, environments: ["login.microsoftonline.com"], realm: Self.tenant,
                    clientId: Self.clientId, scopes: ["user.read"])?.secret
            }
            let keptForPython = theirs.contains { $0 >= ack.secret }
            let keptForUs = (mine ?? "") >= ack.secret
            guard !keptForPython || !keptForUs else { continue }
            let description =
                "writer \(ack.writer) account \(ack.account): acknowledged \(ack.secret) "
                + String(format: "(lock %.3f-%.3f)", ack.entered, ack.exited)
                + "; MSAL for Python reads \(theirs), we read \(mine ?? "nothing")"
            if raceWindows.contains(where: { $0.0 <= ack.exited && ack.entered <= $0.1 }) {
                lostInTheirRace.append(description)
            } else {
                lost.append(description)
            }
        }
        let pythonAcks = acks.filter { $0.writer.hasPrefix("p") }
        print(
            "AdversarialCacheMSALExtensionsSoakTests: \(String(format: "%.0f", seconds)) s, \(acks.count) acknowledged "
                + "writes (\(pythonAcks.count) by Python), \(newest.count) accounts checked, kills: \(kills[1]) of ours, "
                + "\(kills[0]) of Python's (\(unparked) did not park in time), Python lock fallbacks: "
                + "\(pythonAcks.filter(\.fallback).count), Python writes not under a lock at the lock path: "
                + "\(pythonAcks.filter { !$0.protected }.count), of ours: \(ourAcks.filter { !$0.protected }.count), "
                + "lost in msal-extensions' race: \(lostInTheirRace.count), writers that died on their own: "
                + "\(died.map(\.name)), "
                + "files left: \(leftovers)")
        for line in lostInTheirRace { print("  lost in msal-extensions' race: \(line)") }
        XCTAssertEqual(lost.count, 0, "acknowledged writes lost:\n" + lost.joined(separator: "\n"))
        // A file moved aside (its ctime is when) within msal-extensions' race is reported with it.
        let quarantined = leftovers.filter { $0.contains(".corrupt-") }.map { name -> (String, Double) in
            var info = stat()
            _ = stat(folder.appendingPathComponent(name).path, &info)
            return (name, Double(info.st_ctim.tv_sec) + Double(info.st_ctim.tv_nsec) / 1e9)
        }
        let quarantinedInTheirRace = quarantined.filter { file in
            raceWindows.contains { $0.0 <= file.1 && file.1 <= $0.1 }
        }
        for (name, _) in quarantinedInTheirRace { print("  moved aside in msal-extensions' race: \(name)") }
        XCTAssertEqual(
            quarantined.count, quarantinedInTheirRace.count, "never quarantined (outside their race): \(leftovers)")
        // A writer only ends when killed: one that ended first failed a write (or could not read the file).
        for writer in died where parkPython || !writer.isPython {
            XCTFail("writer \(writer.name) ended before it was killed: \(writer.errorTail)")
        }
        if writers[0] > 0 { XCTAssertGreaterThan(pythonAcks.count, Int(seconds), "Python writers got work done") }
        if writers[1] > 0 {
            XCTAssertGreaterThan(acks.count - pythonAcks.count, Int(seconds), "our writers got work done")
        }
        // One kill every 0.4 to 1.2 s, plus a Python writer's time to park and the restart.
        XCTAssertGreaterThanOrEqual(kills[0] + kills[1], Int(seconds / 4), "writers were killed")
    }

    /// Skips (or fails with `MSAL_REQUIRE_INTEROP=1`) when msal-extensions is not in the venv. A
    /// venv made before it was in the requirements is brought up to date first (once).
    static func requireMSALExtensions(_ python: MSALPython, file: StaticString = #filePath, line: UInt = #line)
        throws
    {
        func importable() throws -> Bool {
            try MSALPython.run([python.python.path, "-c", "import msal_extensions, portalocker"]).status == 0
        }
        if try importable() { return }
        if setUpOnce.withLock({ first in
            defer { first = false }
            return first
        }) {
            let venv = python.python.deletingLastPathComponent().deletingLastPathComponent().path
            let setup = MSALPython.packageRoot.appendingPathComponent("scripts/interop.sh").path
            _ = try? MSALPython.run([setup, "--setup-only"], environment: ["MSAL_INTEROP_VENV": venv])
            if try importable() { return }
        }
        let problem =
            "msal-extensions is not importable from \(python.python.path) (run scripts/interop.sh --setup-only)"
        if ProcessInfo.processInfo.environment["MSAL_REQUIRE_INTEROP"] == "1" {
            XCTFail("MSAL_REQUIRE_INTEROP=1 but \(problem)", file: file, line: line)
        }
        throw XCTSkip(problem)
    }

    private static let setUpOnce = Locked(true)
}

extension MSALPython {
    /// Runs a Python script of `Tests/Interop` with the venv's interpreter and returns the JSON
    /// object it prints.
    func runScript(_ script: URL, _ arguments: [String]) throws -> [String: Any] {
        let result = try Self.run([python.path, script.path] + arguments)
        guard result.status == 0,
            let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        else {
            throw SetupProblem(
                description: "\(script.lastPathComponent) \(arguments.first ?? "") exited \(result.status): "
                    + "\(result.stdout.prefix(500)) \(result.stderr.prefix(2000))")
        }
        return object
    }
}
