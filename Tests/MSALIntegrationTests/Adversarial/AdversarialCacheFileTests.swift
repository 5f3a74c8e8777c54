import Foundation
import Glibc
import MSALNative
import MSALTestSupport
import XCTest

@testable import MSAL

/// The base of the adversarial cache tests (issue 19, part 1): a private folder with the cache
/// file, an emulator, applications on that file, the `msal` tool run against it with a time
/// bound, and every log line the library writes (with its level).
class AdversarialCacheCase: XCTestCase {
    var emulator: EntraEmulator!
    var folder: URL!
    var cacheFile: URL { folder.appendingPathComponent("msal_cache.json") }
    /// Paths the test made immutable (`chattr +i`), undone in tearDown.
    var immutable: [String] = []
    let logLines = Locked<[(level: MSALLogLevel, message: String)]>([])

    override func setUpWithError() throws {
        emulator = try EmulatedApp.makeEmulator()
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("msal-adv-cache-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let lines = logLines
        MSALGlobalConfig.loggerConfig.logLevel = .verbose
        MSALGlobalConfig.loggerConfig.piiEnabled = false
        MSALGlobalConfig.loggerConfig.setLogCallback { level, message, _ in
            if let message { lines.withLock { $0.append((level, message)) } }
        }
    }

    override func tearDown() {
        MSALGlobalConfig.loggerConfig.removeLogCallback()
        MSALGlobalConfig.loggerConfig.logLevel = .info
        for path in immutable.reversed() { _ = try? Self.run(["/usr/bin/chattr", "-i", path], timeout: 10) }
        _ = try? Self.run(["/bin/chmod", "-R", "u+rwx", folder.path], timeout: 10)
        emulator.stop()
        try? FileManager.default.removeItem(at: folder)
    }

    /// An application on the real cloud host (routed to the emulator) with its cache at `file`.
    func makeApp(file: URL? = nil) throws -> EmulatedApp {
        let file = file ?? cacheFile
        return try EmulatedApp(emulator: emulator) { config in
            config.cacheConfig.inMemoryOnly = false
            config.cacheConfig.cacheFileURL = file
        }
    }

    /// Signs Alice in through a new application on `file` (a write of the cache).
    @discardableResult
    func signIn(file: URL? = nil) async throws -> MSALResult {
        try await makeApp(file: file).signIn(["User.Read"]) { $0.loginHint = EmulatorUser.alice.username }
    }

    /// The names in the test's folder (or `path`), sorted.
    func names(in path: String? = nil) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path ?? folder.path)) ?? []).sorted()
    }

    /// ``names(in:)`` without the lock files (`<cache>.lock`, msal-extensions' `<cache>.lockfile`).
    func namesBesideLocks() -> [String] {
        names().filter { !$0.hasSuffix(".lock") && !$0.hasSuffix(".lockfile") }
    }

    /// Log lines at warning level or above.
    var warnings: [String] {
        logLines.withLock { $0 }.filter { $0.level == .warning || $0.level == .error }.map(\.message)
    }

    // MARK: Processes

    struct Outcome {
        var status: Int32
        var output: String
        var errorOutput: String
        /// The process was still running at the time bound and was killed.
        var timedOut: Bool
        var all: String { output + errorOutput }
    }

    /// Runs a program (output through files) for at most `timeout` seconds, then SIGKILLs it.
    static func run(_ command: [String], environment: [String: String]? = nil, timeout: TimeInterval) throws
        -> Outcome
    {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("msal-adv-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let out = scratch.appendingPathComponent("stdout")
        let err = scratch.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        if let environment { process.environment = environment }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        let ended = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in ended.signal() }
        try process.run()
        let timedOut = ended.wait(timeout: .now() + timeout) == .timedOut
        if timedOut {
            kill(process.processIdentifier, SIGKILL)
            ended.wait()
        }
        return Outcome(
            status: process.terminationStatus, output: (try? String(contentsOf: out, encoding: .utf8)) ?? "",
            errorOutput: (try? String(contentsOf: err, encoding: .utf8)) ?? "", timedOut: timedOut)
    }

    /// The `msal` tool built next to the test bundle.
    static func tool() throws -> String {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [directory, directory.deletingLastPathComponent(), Bundle.main.bundleURL] {
            let url = candidate.appendingPathComponent("msal")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url.path }
        }
        throw XCTSkip("the msal executable was not built next to the tests (\(directory.path))")
    }

    /// Runs `msal arguments --client-id <sample> --cache <cache>` against the emulator, at most 10 s.
    func msal(_ arguments: [String], cache: String? = nil, timeout: TimeInterval = 10) throws -> Outcome {
        var environment = ProcessInfo.processInfo.environment.filter {
            !$0.key.hasPrefix("MSAL_") && $0.key != "BROWSER"
        }
        environment["HOME"] = folder.path
        // The file itself is under test: kept as plaintext, whatever keyrings the machine offers.
        environment["MSAL_CACHE_BACKEND"] = "plaintext"
        environment["MSAL_CA_FILE"] = emulator.certificateAuthority.certificateFile
        environment["MSAL_CONNECT_TO"] = emulator.connectTo.joined(separator: ",")
        return try Self.run(
            [try Self.tool()] + arguments + [
                "--client-id", EmulatorClient.sample.clientId, "--cache", cache ?? cacheFile.path,
            ], environment: environment, timeout: timeout)
    }

    /// Runs `body` on another thread and waits at most `timeout` seconds for it; `nil` when it
    /// did not return in time (it is left running).
    func bounded<T: Sendable>(_ timeout: TimeInterval, _ body: @escaping @Sendable () -> T) -> T? {
        let result = Locked<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread {
            let value = body()
            result.withLock { $0 = value }
            done.signal()
        }.start()
        guard done.wait(timeout: .now() + timeout) == .success else { return nil }
        return result.withLock { $0 }
    }

    /// Makes `path` unwritable even for root: `chattr +i` as root (undone in tearDown), else
    /// `chmod a-w`. Skips when neither can be done.
    func makeUnwritable(_ path: String) throws {
        if getuid() == 0 {
            let outcome = try Self.run(["/usr/bin/chattr", "+i", path], timeout: 10)
            guard outcome.status == 0 else {
                throw XCTSkip("running as root and chattr +i is not possible here: \(outcome.all)")
            }
            immutable.append(path)
        } else {
            var info = stat()
            XCTAssertEqual(stat(path, &info), 0)
            XCTAssertEqual(chmod(path, info.st_mode & 0o555), 0)
        }
    }
}

/// What may sit at the cache path, and what a reader may find in it: FIFOs, devices, sockets,
/// read-only folders, corrupt files, a byte order mark.
final class AdversarialCacheFileTests: AdversarialCacheCase {
    // MARK: Non-regular files

    /// A FIFO at the cache path: `msal accounts` must not hang in `open` (today it does, forever).
    func testFIFOAtTheCachePathIsRefusedPromptlyByTheCLI() throws {
        XCTAssertEqual(mkfifo(cacheFile.path, 0o600), 0)
        let outcome = try msal(["accounts"])
        XCTAssertFalse(outcome.timedOut, "msal accounts returned within 10 s")
        XCTAssertNotEqual(outcome.status, 0, "refused: \(outcome.all)")
        XCTAssertTrue(outcome.errorOutput.contains(cacheFile.path), "the error names the path: \(outcome.all)")
        XCTAssertEqual(namesBesideLocks(), ["msal_cache.json"], "nothing renamed or created beside it")
        XCTAssertEqual(Self.fileType(cacheFile.path), S_IFIFO, "still the FIFO")
    }

    /// A FIFO at the cache path: the library's reads (listing accounts, a silent call) must
    /// return promptly with a clear error.
    func testFIFOAtTheCachePathIsRefusedPromptlyByTheLibrary() async throws {
        // An account to ask for, signed in with a cache elsewhere.
        let elsewhere = folder.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        let account = try await signIn(file: elsewhere.appendingPathComponent("msal_cache.json")).account
        XCTAssertEqual(mkfifo(cacheFile.path, 0o600), 0)
        let application = try makeApp().application
        let path = cacheFile.path
        defer { Self.unblockReaders(path) }

        let listed: String? = bounded(10) {
            do {
                return "no error, \(try application.allAccounts().count) accounts"
            } catch {
                return (error as NSError).description
            }
        }
        XCTAssertTrue(
            listed?.contains(path) == true,
            "allAccounts returned within 10 s with an error naming the path: \(listed ?? "still blocked after 10 s")")

        let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: account)
        let silent: String? = bounded(10) {
            let outcome = Locked("")
            let done = DispatchSemaphore(value: 0)
            Task {
                do {
                    _ = try await application.acquireTokenSilent(with: parameters)
                    outcome.withLock { $0 = "no error" }
                } catch {
                    outcome.withLock { $0 = (error as NSError).description }
                }
                done.signal()
            }
            done.wait()
            return outcome.withLock { $0 }
        }
        XCTAssertTrue(
            silent?.contains(path) == true,
            "acquireTokenSilent returned within 10 s with an error naming the path: "
                + (silent ?? "still blocked after 10 s"))
        XCTAssertEqual(namesBesideLocks(), ["elsewhere", "msal_cache.json"], "nothing renamed or created beside it")
        XCTAssertEqual(Self.fileType(path), S_IFIFO, "still the FIFO")
    }

    /// A symlink to `/dev/null` at the cache path: reads and writes refuse it; the link and the
    /// device stay as they are, no `*.corrupt-*`, no regular file in its place.
    func testSymlinkToADeviceIsRefusedAndLeftAlone() async throws {
        try FileManager.default.createSymbolicLink(atPath: cacheFile.path, withDestinationPath: "/dev/null")
        let listed = try msal(["accounts"])
        XCTAssertFalse(listed.timedOut)
        XCTAssertNotEqual(listed.status, 0, "msal accounts refuses a device: \(listed.all)")
        XCTAssertTrue(listed.errorOutput.contains(cacheFile.path), "the error names the path: \(listed.all)")
        do {
            try await signIn()
            XCTFail("a sign-in writing the cache to a device must fail")
        } catch {
            XCTAssertTrue((error as NSError).description.contains(cacheFile.path), "\(error)")
        }
        XCTAssertEqual(
            try FileManager.default.destinationOfSymbolicLink(atPath: cacheFile.path), "/dev/null", "still the link")
        var device = stat()
        XCTAssertEqual(stat("/dev/null", &device), 0)
        XCTAssertEqual(device.st_mode & S_IFMT, S_IFCHR, "/dev/null is still the device")
        XCTAssertFalse(names().contains { $0.contains(".corrupt-") }, "\(names())")
    }

    /// Character devices at the cache path (as root: `--cache /dev/urandom`, `--cache /dev/null`;
    /// here private device nodes in the test's folder): a read-only command must not rename the
    /// random device to `*.corrupt-*`, and a sign-in must not replace the null device with a
    /// regular file holding tokens; both refuse it with an error naming the path.
    func testCharacterDevicesAtTheCachePathAreRefusedNeverRenamedOrReplaced() async throws {
        guard getuid() == 0 else { throw XCTSkip("device nodes need root (mknod)") }
        XCTAssertEqual(mknod(cacheFile.path, S_IFCHR | 0o600, Self.device(1, 9)), 0, "a random device node")
        let listed = try msal(["accounts"])
        XCTAssertFalse(listed.timedOut)
        XCTAssertNotEqual(listed.status, 0, "msal accounts refuses a device: \(listed.all)")
        XCTAssertTrue(listed.errorOutput.contains(cacheFile.path), "the error names the path: \(listed.all)")
        XCTAssertEqual(namesBesideLocks(), ["msal_cache.json"], "not renamed: \(names())")
        XCTAssertEqual(Self.fileType(cacheFile.path), S_IFCHR)

        unlink(cacheFile.path)  // (already gone when it was renamed)
        XCTAssertEqual(mknod(cacheFile.path, S_IFCHR | 0o600, Self.device(1, 3)), 0, "a null device node")
        do {
            try await signIn()
            XCTFail("a sign-in writing the cache to a device must fail")
        } catch {
            XCTAssertTrue((error as NSError).description.contains(cacheFile.path), "\(error)")
        }
        XCTAssertEqual(Self.fileType(cacheFile.path), S_IFCHR, "still the device, not a file with tokens")
        XCTAssertEqual(namesBesideLocks(), ["msal_cache.json"], "\(names())")
    }

    /// A UNIX socket at the cache path: refused by reads and writes, never replaced.
    func testSocketAtTheCachePathIsRefusedAndNeverReplaced() async throws {
        let socket = try Self.bindSocket(cacheFile.path)
        defer { close(socket) }
        let listed = try msal(["accounts"])
        XCTAssertFalse(listed.timedOut)
        XCTAssertNotEqual(listed.status, 0, "msal accounts refuses a socket: \(listed.all)")
        XCTAssertTrue(listed.errorOutput.contains(cacheFile.path), "the error names the path: \(listed.all)")
        do {
            try await signIn()
            XCTFail("a sign-in writing the cache over a socket must fail")
        } catch {
            XCTAssertTrue((error as NSError).description.contains(cacheFile.path), "\(error)")
        }
        XCTAssertEqual(Self.fileType(cacheFile.path), S_IFSOCK, "still the socket, not a file with tokens")
        XCTAssertFalse(names().contains { $0.contains(".corrupt-") }, "\(names())")
    }

    // MARK: Read-only folders

    /// A cache in a folder that cannot be written (read-only filesystem, copied cache; as root
    /// `chattr +i`): listing accounts and a silent call that needs no refresh work; a write fails
    /// with an error naming the cache.
    func testReadOnlyCacheFolderServesReadsAndRefusesWritesClearly() async throws {
        let signedIn = try await signIn()
        for name in names() where name != "msal_cache.json" {
            try FileManager.default.removeItem(at: folder.appendingPathComponent(name))  // the lock files
        }
        try makeUnwritable(cacheFile.path)
        try makeUnwritable(folder.path)
        emulator.resetCounters()

        let listed = try msal(["accounts"])
        XCTAssertEqual(listed.status, 0, "msal accounts works read-only: \(listed.all)")
        XCTAssertTrue(listed.output.contains(EmulatorUser.alice.username), listed.all)

        let app = try makeApp()
        let accounts = try app.application.allAccounts()
        XCTAssertEqual(accounts.map(\.username), [EmulatorUser.alice.username])
        let account = try XCTUnwrap(accounts.first)
        let silent = try await app.application.acquireTokenSilent(
            with: MSALSilentTokenParameters(scopes: ["User.Read"], account: account))
        XCTAssertEqual(silent.accessToken, signedIn.accessToken, "served from the read-only cache")
        XCTAssertEqual(emulator.requestCount(.token), 0)

        do {
            try app.application.remove(account)
            XCTFail("signing out needs a write, which is impossible here")
        } catch {
            let description = (error as NSError).description
            XCTAssertTrue(description.contains(cacheFile.path) || description.contains(folder.path), description)
        }
        XCTAssertEqual(names(), ["msal_cache.json"], "nothing created")
    }

    // MARK: Corrupt files

    /// A corrupt file is moved aside, and `msal accounts` (without --verbose) says where.
    func testQuarantineOfACorruptFileIsReportedByTheCLI() throws {
        try Data("{\"Account\": {\"x\": ".utf8).write(to: cacheFile)
        let outcome = try msal(["accounts"])
        XCTAssertFalse(outcome.timedOut)
        let moved = try XCTUnwrap(names().first { $0.hasPrefix("msal_cache.json.corrupt-") }, "\(names())")
        XCTAssertTrue(
            outcome.all.contains(folder.appendingPathComponent(moved).path), "the new path is printed: \(outcome.all)")
    }

    /// A corrupt file is moved aside, and the library says so with the new file's name, even with
    /// PII logging off (the default): in the error it returns, or in a log line at warning level
    /// (or above).
    func testQuarantineOfACorruptFileIsLoggedAtWarningWithTheNewPath() throws {
        // Ours, damaged (a file that is not a token cache at all is refused, never moved).
        try Data("{\"Account\": {}, \"AccessToken\": {\"k\": 1}}} garbage".utf8).write(to: cacheFile)
        let app = try makeApp()
        var reports: [String] = []
        do {
            let accounts = try app.application.allAccounts()
            XCTAssertEqual(accounts.count, 0)
        } catch {
            reports.append((error as NSError).description)
        }
        let moved = try XCTUnwrap(names().first { $0.hasPrefix("msal_cache.json.corrupt-") }, "\(names())")
        reports += warnings
        XCTAssertTrue(reports.contains { $0.contains(moved) }, "the error or a warning names \(moved): \(reports)")
    }

    /// A UTF-8 byte order mark before a valid document is not corruption.
    func testByteOrderMarkBeforeValidJSONIsReadAsValid() async throws {
        try await signIn()
        let document = try Data(contentsOf: cacheFile)
        try (Data([0xEF, 0xBB, 0xBF]) + document).write(to: cacheFile)
        let listed = try msal(["accounts"])
        XCTAssertEqual(listed.status, 0, listed.all)
        XCTAssertTrue(listed.output.contains(EmulatorUser.alice.username), "the account is listed: \(listed.all)")
        let app = try makeApp()
        XCTAssertEqual(try app.application.allAccounts().map(\.username), [EmulatorUser.alice.username])
        XCTAssertFalse(names().contains { $0.contains(".corrupt-") }, "not quarantined: \(names())")
    }

    // MARK: Helpers

    /// The type of what is at `path` (`S_IFIFO`, `S_IFLNK`, ...), links not followed; 0 when nothing.
    static func fileType(_ path: String) -> mode_t {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & S_IFMT : 0
    }

    /// A device number (Linux's encoding for majors below 4096 and minors below 256).
    static func device(_ major: UInt32, _ minor: UInt32) -> dev_t {
        dev_t(major << 8 | minor)
    }

    /// Opens the FIFO for writing and closes it, so a reader blocked in `open` goes on (to EOF).
    static func unblockReaders(_ path: String) {
        for _ in 0..<50 {
            let descriptor = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
            if descriptor < 0 { return }  // no reader waiting (ENXIO)
            close(descriptor)
            usleep(20_000)
        }
    }

    /// A listening UNIX socket bound at `path`.
    static func bindSocket(_ path: String) throws -> Int32 {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw XCTSkip("no UNIX sockets here") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(descriptor)
            throw XCTSkip("socket path too long: \(path)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0 else {
            close(descriptor)
            throw XCTSkip("cannot bind a UNIX socket at \(path): errno \(errno)")
        }
        return descriptor
    }
}
