import Foundation
import Glibc
import MSAL
import MSALSecretService
import XCTest

/// The store in processes of their own: without a session bus, with the bus going away (GLib keeps
/// a process's first session bus connection for the process's life), and two applications
/// starting at once. Each child is this test bundle again, with `MSAL_SECRET_SERVICE_CHILD` set,
/// executing only ``testChildEntryPoint()``.
final class SecretServiceProcessTests: XCTestCase {
    private static let childVariable = "MSAL_SECRET_SERVICE_CHILD"

    /// The child: does nothing unless started by a test below.
    func testChildEntryPoint() throws {
        guard let mode = ProcessInfo.processInfo.environment[Self.childVariable] else { return }
        let store = MSALSecretServiceKeyStore(cacheName: "msal-test-no-bus")
        switch mode {
        case "no bus":
            let start = Date()
            XCTAssertThrowsError(try store.loadKey()) { error in
                XCTAssertTrue("\(error)".contains("connecting to the D-Bus session bus"), "\(error)")
            }
            let configuration = MSALPublicClientApplicationConfig(clientId: "04b07795-8ddb-461a-bbee-02f9e1bf7b46")
            configuration.cacheConfig.cacheFileURL = URL(fileURLWithPath: NSTemporaryDirectory())
                .appendingPathComponent("msal-no-bus-\(UUID())/msal_cache.json")
            configuration.cacheConfig.encryptionKeyStore = store
            XCTAssertThrowsError(try MSALPublicClientApplication(configuration: configuration)) { error in
                let error = error as NSError
                XCTAssertEqual(error.domain, MSALErrorDomain)
                XCTAssertEqual(error.code, -50000)
                let description = error.userInfo[MSALErrorDescriptionKey] as? String ?? ""
                XCTAssertTrue(description.contains("key store (Secret Service, collection default"), description)
                XCTAssertTrue(description.contains("there is no D-Bus session bus here"), description)
                XCTAssertTrue(description.contains("use the kernel keyring (MSALKernelKeyring)"), description)
            }
            XCTAssertLessThan(Date().timeIntervalSince(start), 3, "answered at once")
        case "bus gone":
            let daemon = try KeyringDaemon()
            defer { daemon.stop() }
            try store.storeKey(Data(repeating: 1, count: 32))
            // The bus goes while a load waits for the (stopped) daemon's answer.
            daemon.signal(SIGSTOP)
            let outcome = SecretServiceFixture.Collected()
            let loading = Thread {
                do {
                    _ = try MSALSecretServiceKeyStore(cacheName: "msal-test-no-bus", timeout: 30).loadKey()
                    outcome.set(Data("loaded".utf8))
                } catch {
                    outcome.set(Data("\(error)".utf8))
                }
            }
            loading.start()
            Thread.sleep(forTimeInterval: 1)
            let stopped = Date()
            daemon.bus.stop()
            // The load fails at once, saying why, and this process lives on.
            let result = String(decoding: outcome.wait(), as: UTF8.self)
            XCTAssertLessThan(Date().timeIntervalSince(stopped), 5, "answered when the bus went, long before 30 s")
            XCTAssertTrue(result.contains("the session bus has gone"), result)
            // A later call finds this process's closed connection, or (once GLib has dropped it) no bus.
            XCTAssertThrowsError(try store.loadKey()) { error in
                let text = "\(error)"
                XCTAssertTrue(
                    text.contains("the session bus has gone") || text.contains("there is no D-Bus session bus here"),
                    text)
            }
        case "create":
            // An application on the parent's private bus; prints the key it ended up with.
            let environment = ProcessInfo.processInfo.environment
            let store = MSALSecretServiceKeyStore(cacheName: environment["MSAL_SECRET_SERVICE_CACHE_NAME"] ?? "")
            let configuration = MSALPublicClientApplicationConfig(clientId: "04b07795-8ddb-461a-bbee-02f9e1bf7b46")
            configuration.cacheConfig.cacheFileURL = URL(
                fileURLWithPath: environment["MSAL_SECRET_SERVICE_CACHE_PATH"] ?? "")
            configuration.cacheConfig.encryptionKeyStore = store
            _ = try MSALPublicClientApplication(configuration: configuration)
            let key = try XCTUnwrap(try store.loadKey())
            print("KEY=\(key.base64EncodedString())")
        default:
            XCTFail("unknown child mode \(mode)")
        }
    }

    /// Runs ``testChildEntryPoint()`` in a child process in `mode`, with `environment` changed.
    private static func runChild(
        _ mode: String, _ change: (inout [String: String]) -> Void
    ) throws -> (status: Int32, output: String) {
        var environment = ProcessInfo.processInfo.environment
        environment[childVariable] = mode
        change(&environment)
        return try SecretServiceFixture.run(
            CommandLine.arguments[0], ["MSALSecretServiceTests.SecretServiceProcessTests/testChildEntryPoint"],
            environment: environment, timeout: 120)
    }

    /// Runs the child and checks that its one test passed.
    private func child(_ mode: String, _ change: (inout [String: String]) -> Void) throws {
        let result = try Self.runChild(mode, change)
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertTrue(result.output.contains("Executed 1 test, with 0 failures"), result.output)
    }

    /// Outputs of children run on threads of their own.
    private final class Outputs: @unchecked Sendable {
        private let lock = NSLock()
        private var values: [(status: Int32, output: String)] = []

        func append(_ value: (status: Int32, output: String)) { lock.withLock { values.append(value) } }
        var all: [(status: Int32, output: String)] { lock.withLock { values } }
    }

    func testTwoProcessesStartingAtOnceShareOneKey() throws {
        guard ProcessInfo.processInfo.environment[Self.childVariable] == nil else { return }
        let daemon = try KeyringDaemon()
        defer { daemon.stop() }
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("msal-secret-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let cacheName = "msal-test-\(UUID().uuidString.prefix(8))"
        let outputs = Outputs()
        let group = DispatchGroup()
        let address = daemon.bus.address
        let path = folder.appendingPathComponent("cache.json").path
        for _ in 0..<2 {
            group.enter()
            Thread {
                defer { group.leave() }
                do {
                    outputs.append(
                        try Self.runChild("create") { environment in
                            environment["DBUS_SESSION_BUS_ADDRESS"] = address
                            environment["MSAL_SECRET_SERVICE_CACHE_NAME"] = cacheName
                            environment["MSAL_SECRET_SERVICE_CACHE_PATH"] = path
                        })
                } catch {
                    outputs.append((-1, "\(error)"))
                }
            }.start()
        }
        group.wait()
        var keys: [String] = []
        for result in outputs.all {
            XCTAssertEqual(result.status, 0, result.output)
            keys.append(result.output.split(separator: "\n").first { $0.hasPrefix("KEY=") }.map(String.init) ?? "none")
        }
        let stored = try XCTUnwrap(try MSALSecretServiceKeyStore(cacheName: cacheName).loadKey())
        XCTAssertEqual(keys, Array(repeating: "KEY=\(stored.base64EncodedString())", count: 2))
        let items = try daemon.secretTool(["search", "--all", "cache", cacheName])
        XCTAssertEqual(items.output.components(separatedBy: "label = ").count - 1, 1, items.output)
    }

    func testNoSessionBusIsAClearError() throws {
        guard ProcessInfo.processInfo.environment[Self.childVariable] == nil else { return }
        let runtime = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("msal-no-bus-\(UUID())")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: runtime) }
        // Unset, as over SSH or in a container: GLib then tries $XDG_RUNTIME_DIR/bus (an empty
        // folder here) and X11 autolaunch (no $DISPLAY).
        try child("no bus") { environment in
            environment["DBUS_SESSION_BUS_ADDRESS"] = nil
            environment["DISPLAY"] = nil
            environment["XDG_RUNTIME_DIR"] = runtime.path
        }
        // Pointing at a socket that is not there (a bus that has stopped).
        try child("no bus") { environment in
            environment["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=\(runtime.path)/bus"
        }
    }

    func testTheSessionBusGoingAwayIsAClearErrorNotASignal() throws {
        guard ProcessInfo.processInfo.environment[Self.childVariable] == nil else { return }
        try SecretServiceFixture.requireTools()
        try child("bus gone") { environment in
            environment["DBUS_SESSION_BUS_ADDRESS"] = nil
        }
    }
}
