import Foundation
import Glibc
import MSALTestSupport
import XCTest

@testable import msal_cli

/// `msal doctor` run as a subprocess against the emulator: the clock against the authority's
/// `Date` header, no D-Bus, a plaintext cache, and who holds the cache's locks.
final class CLIDoctorTests: XCTestCase {
    private var environment: CLITestEnvironment!

    override func setUpWithError() throws {
        environment = try CLITestEnvironment()
    }

    override func tearDown() {
        environment?.tearDown()
    }

    private func doctorJSON(extra: [String: String] = [:]) throws -> (status: Int32, report: [String: Any]) {
        let result = try environment.run(["doctor", "-o", "json"], extra: extra)
        let report = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any],
            result.output + result.errorOutput)
        return (result.status, report)
    }

    func testTheClockIsMeasuredAgainstTheAuthoritysDateHeader() throws {
        let (status, report) = try doctorJSON()
        XCTAssertEqual(status, 0)
        let clock = try XCTUnwrap(report["clock"] as? [String: Any])
        XCTAssertLessThan(abs(try XCTUnwrap(clock["skew_seconds"] as? Double)), 3, "\(clock)")
        XCTAssertTrue((clock["url"] as? String ?? "").hasSuffix("/v2.0/.well-known/openid-configuration"))

        // The authority's clock 10 minutes ahead: this machine is behind, beyond the 5 minutes.
        environment.emulator.advanceClock(by: 600)
        let (skewedStatus, skewed) = try doctorJSON()
        XCTAssertEqual(skewedStatus, 1, "a clock off by more than 5 minutes fails the check")
        let skew = try XCTUnwrap((skewed["clock"] as? [String: Any])?["skew_seconds"] as? Double)
        XCTAssertEqual(skew, 600, accuracy: 3)
        let text = try environment.run(["doctor"])
        XCTAssertEqual(text.status, 1)
        XCTAssertTrue(text.output.contains(" s behind the authority"), text.output)
        XCTAssertTrue(text.output.contains("more than 5 minutes"), text.output)
        XCTAssertTrue(text.output.contains("timedatectl set-ntp true"), text.output)
        XCTAssertEqual(text.errorOutput, "", "results on standard output")
    }

    /// The JSON says what the text says: no proxy is `null` ("none"), not an empty object.
    func testNoProxyIsNullInJSONAndTheVariablesWhenSet() throws {
        let (_, none) = try doctorJSON(extra: ["https_proxy": "", "all_proxy": "", "no_proxy": ""])
        XCTAssertTrue(none.keys.contains("proxy"))
        XCTAssertTrue(none["proxy"] is NSNull, "\(none["proxy"] ?? "absent")")
        XCTAssertTrue(try environment.run(["doctor"]).output.contains("proxy: none"))
        let (_, set) = try doctorJSON(extra: ["https_proxy": "http://127.0.0.1:3128"])
        XCTAssertEqual(set["proxy"] as? [String: String], ["https_proxy": "http://127.0.0.1:3128"])
    }

    func testAnUnreachableAuthorityIsReportedNotFatal() throws {
        let result = try environment.run(
            ["doctor"], extra: ["MSAL_CONNECT_TO": "login.microsoftonline.com:443:127.0.0.1:1"])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.output.contains("clock: not measured"), result.output)
        XCTAssertTrue(result.output.contains("cache: "), "the other findings are printed: \(result.output)")
    }

    func testNoSessionBusIsNamedWithWhatItMeans() throws {
        let (_, report) = try doctorJSON(extra: ["DBUS_SESSION_BUS_ADDRESS": ""])
        let stores = try XCTUnwrap(report["key_stores"] as? [[String: Any]])
        let secretService = try XCTUnwrap(stores.first { ($0["store"] as? String ?? "").hasPrefix("Secret Service") })
        XCTAssertEqual(secretService["available"] as? Bool, false)
        XCTAssertTrue(
            (secretService["problem"] as? String ?? "").contains("no D-Bus session bus here"), "\(secretService)")

        // A bus named but not there: the probe tries it, and says so.
        let nowhere = "unix:path=" + environment.directory.appendingPathComponent("no-bus").path
        let withBus = try doctorJSON(extra: ["DBUS_SESSION_BUS_ADDRESS": nowhere]).report
        let problem =
            (withBus["key_stores"] as? [[String: Any]])?.first { ($0["store"] as? String ?? "").hasPrefix("Secret") }?[
                "problem"] as? String ?? ""
        XCTAssertTrue(problem.contains("connecting to the D-Bus session bus"), problem)
    }

    func testAPlaintextCacheIsSaidToBeOneWithAdvice() throws {
        XCTAssertEqual(try environment.deviceCodeLogin(as: EmulatorUser.bob.username).status, 0)
        let (status, report) = try doctorJSON(extra: ["CREDENTIALS_DIRECTORY": ""])
        XCTAssertEqual(status, 0)
        let cache = try XCTUnwrap(report["cache"] as? [String: Any])
        XCTAssertEqual(cache["path"] as? String, environment.cacheFile)
        XCTAssertEqual(cache["exists"] as? Bool, true)
        XCTAssertEqual(cache["mode"] as? String, "0600")
        XCTAssertEqual(cache["storage"] as? String, "plaintext file")
        let stores = try XCTUnwrap(report["key_stores"] as? [[String: Any]])
        let credential = try XCTUnwrap(stores.first { $0["store"] as? String == "systemd credential msal-cache-key" })
        XCTAssertEqual(credential["available"] as? Bool, false, "no $CREDENTIALS_DIRECTORY: not a service")
        XCTAssertTrue((report["advice"] as? String ?? "").contains("plaintext"), "\(report["advice"] ?? "")")

        // With the credential provisioned, it is the key store the tool uses (CacheBackendDecision).
        let credentials = environment.directory.appendingPathComponent("credentials")
        try FileManager.default.createDirectory(at: credentials, withIntermediateDirectories: true)
        try Data((0..<32).map { UInt8($0 * 7 + 7) }).base64EncodedData().write(
            to: credentials.appendingPathComponent("msal-cache-key"))
        let before = try Data(contentsOf: URL(fileURLWithPath: environment.cacheFile))
        let provisioned = try doctorJSON(
            extra: ["CREDENTIALS_DIRECTORY": credentials.path, "MSAL_CACHE_BACKEND": "systemd-credential"]
        ).report
        let used = try XCTUnwrap(
            (provisioned["key_stores"] as? [[String: Any]])?.first {
                $0["store"] as? String == "systemd credential msal-cache-key"
            })
        XCTAssertEqual(used["available"] as? Bool, true)
        XCTAssertEqual(used["active"] as? Bool, true)
        XCTAssertNil(provisioned["advice"] as? String)
        XCTAssertEqual(
            (provisioned["cache"] as? [String: Any])?["storage"] as? String,
            "plaintext file until its next change, then encrypted with the key store in use below")
        XCTAssertEqual(
            try Data(contentsOf: URL(fileURLWithPath: environment.cacheFile)), before, "doctor changed nothing")
        XCTAssertTrue(FileManager.default.fileExists(atPath: environment.cacheFile), "the probe left the cache alone")
    }

    func testEachKeyStoreIsProbedOnceTheOneInUseToo() throws {
        let credentials = environment.directory.appendingPathComponent("credentials")
        try FileManager.default.createDirectory(at: credentials, withIntermediateDirectories: true)
        try Data((0..<32).map { UInt8($0 * 7 + 7) }).base64EncodedData().write(
            to: credentials.appendingPathComponent("msal-cache-key"))
        // A probe of the systemd credential store reads the credential: each open is one probe.
        for backend in ["systemd-credential", "plaintext"] {
            let opens = try OpenCounter(folder: credentials.path)
            let report = try doctorJSON(
                extra: [
                    "CREDENTIALS_DIRECTORY": credentials.path, "MSAL_CACHE_BACKEND": backend,
                    "DBUS_SESSION_BUS_ADDRESS": "",
                ]
            ).report
            let store = try XCTUnwrap(
                (report["key_stores"] as? [[String: Any]])?.first {
                    $0["store"] as? String == "systemd credential msal-cache-key"
                })
            XCTAssertEqual(store["available"] as? Bool, true, backend)
            XCTAssertEqual(store["active"] as? Bool, backend == "systemd-credential", backend)
            XCTAssertEqual(opens.opens(of: "msal-cache-key"), 1, "\(backend): one probe of the credential store")
        }

        // A cache encrypted with the credential's key: with no backend named, the commands use the
        // store that holds the key, whatever else works here, and so does the report.
        let service = ["CREDENTIALS_DIRECTORY": credentials.path, "DBUS_SESSION_BUS_ADDRESS": ""]
        let login = try environment.deviceCodeLogin(
            as: EmulatorUser.bob.username, extra: service.merging(["MSAL_CACHE_BACKEND": "systemd-credential"]) { $1 })
        XCTAssertEqual(login.status, 0, login.errorOutput)
        let opens = try OpenCounter(folder: credentials.path)
        let report = try doctorJSON(extra: service.merging(["MSAL_CACHE_BACKEND": ""]) { $1 }).report
        let active = (report["key_stores"] as? [[String: Any]] ?? []).filter { $0["active"] as? Bool == true }
        XCTAssertEqual(active.map { $0["store"] as? String }, ["systemd credential msal-cache-key"], "\(report)")
        XCTAssertEqual(
            (report["cache"] as? [String: Any])?["storage"] as? String,
            "encrypted file, its key in the key store in use below")
        XCTAssertNil(report["advice"] as? String)
        XCTAssertEqual(opens.opens(of: "msal-cache-key"), 1, "one probe of the store in use")
    }

    func testTheFindingsFollowTheCommandsDecision() {
        let probes: [(CacheBackend, CacheBackendProbe)] = [
            (.secretService, .unavailable("no bus")), (.kernelKeyring, .available),
            (.systemdCredential, .unavailable("no credential")),
        ]
        let plaintext = DoctorCommand.findings(
            .use(.plaintext), probes: probes, fileIsPlaintext: true, fileIsEncrypted: false)
        XCTAssertNil(plaintext.active)
        XCTAssertEqual(plaintext.storage, "plaintext file")
        XCTAssertTrue(plaintext.advice?.contains("--cache-backend kernel-keyring") == true, plaintext.advice ?? "")
        let none = DoctorCommand.findings(
            .use(.plaintext), probes: probes.map { ($0.0, .unavailable("x")) }, fileIsPlaintext: true,
            fileIsEncrypted: false)
        XCTAssertTrue(none.advice?.contains("no key store works here") == true, none.advice ?? "")
        XCTAssertEqual(
            DoctorCommand.findings(.use(.kernelKeyring), probes: probes, fileIsPlaintext: false, fileIsEncrypted: true),
            .init(active: .kernelKeyring, storage: "encrypted file, its key in the key store in use below"))
        // The key holder, used without a probe by the commands, failing its probe here.
        let holder = DoctorCommand.findings(
            .use(.systemdCredential), probes: probes, fileIsPlaintext: false, fileIsEncrypted: true)
        XCTAssertEqual(holder.active, .systemdCredential)
        XCTAssertEqual(
            holder.advice, "the key store in use does not work here, so the cache cannot be opened: no credential")
        let refused = DoctorCommand.findings(
            .refuse("no key store that holds its key is available"), probes: probes, fileIsPlaintext: false,
            fileIsEncrypted: true)
        XCTAssertNil(refused.active)
        XCTAssertTrue(refused.storage.hasPrefix("encrypted file"), refused.storage)
        XCTAssertEqual(refused.advice, "msal would stop here: no key store that holds its key is available")
    }

    func testTheProcessHoldingTheCacheLockIsNamed() throws {
        XCTAssertEqual(try environment.deviceCodeLogin(as: EmulatorUser.bob.username).status, 0)
        let free = try doctorJSON().report
        let freeLocks = try XCTUnwrap(free["locks"] as? [[String: Any]])
        XCTAssertEqual(freeLocks.map { $0["state"] as? String }, ["free", "absent"])

        let holder = open(environment.cacheFile + ".lock", O_RDWR)
        XCTAssertGreaterThanOrEqual(holder, 0)
        defer { close(holder) }
        XCTAssertEqual(flock(holder, LOCK_EX), 0)
        try Data("\(getpid()) python3".utf8).write(to: URL(fileURLWithPath: environment.cacheFile + ".lockfile"))
        let held = try doctorJSON().report
        let locks = try XCTUnwrap(held["locks"] as? [[String: Any]])
        XCTAssertEqual(locks.map { $0["state"] as? String }, ["held", "held"])
        XCTAssertEqual(locks.map { $0["pid"] as? Int }, [Int(getpid()), Int(getpid())])

        // A lockfile whose writer is gone is stale.
        try Data("999999999 python3".utf8).write(to: URL(fileURLWithPath: environment.cacheFile + ".lockfile"))
        let text = try environment.run(["doctor"])
        XCTAssertTrue(text.output.contains("msal_cache.json.lockfile: stale by process 999999999"), text.output)
        XCTAssertTrue(text.output.contains("msal_cache.json.lock: held by process \(getpid())"), text.output)
    }

    func testFlockHoldersAreReadFromProcLocks() {
        let locks = """
            1: POSIX  ADVISORY  WRITE 111 08:01:42 0 0
            2: FLOCK  ADVISORY  WRITE 4242 08:01:1234 0 EOF
            2: -> FLOCK  ADVISORY  WRITE 5151 08:01:1234 0 EOF
            """
        XCTAssertEqual(CacheLockState.holder(ofInode: 1234, locks: locks), 4242)
        XCTAssertNil(CacheLockState.holder(ofInode: 42, locks: locks), "a record lock is not the flock")
        XCTAssertNil(CacheLockState.holder(ofInode: 99, locks: locks))
    }
}

/// Counts the opens of the files in a folder (inotify `IN_OPEN`), by name. Closes are watched
/// too: inotify merges an event into an identical one still unread, so open, open would count once,
/// while open, close, open, close does not merge.
private final class OpenCounter {
    private let descriptor: Int32

    init(folder: String) throws {
        descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0, inotify_add_watch(descriptor, folder, UInt32(IN_OPEN | IN_CLOSE)) >= 0 else {
            throw XCTSkip("inotify is not available here")
        }
    }

    deinit {
        close(descriptor)
    }

    /// The opens of the file `name` reported since the last call (or since the watch began).
    func opens(of name: String) -> Int {
        var count = 0
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let length = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard length > 0 else { return count }
            var offset = 0
            let header = MemoryLayout<inotify_event>.size
            while offset + header <= length {
                let event = buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: inotify_event.self) }
                let nameBytes = buffer[(offset + header)..<(offset + header + Int(event.len))].prefix { $0 != 0 }
                if event.mask & UInt32(IN_OPEN) != 0, String(decoding: nameBytes, as: UTF8.self) == name { count += 1 }
                offset += header + Int(event.len)
            }
        }
    }
}
