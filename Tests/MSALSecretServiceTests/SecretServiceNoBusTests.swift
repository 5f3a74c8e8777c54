import Foundation
import Glibc
import MSAL
import MSALSecretService
import XCTest

/// The store without a session bus. GLib keeps a process's first session bus connection for the
/// process's life, so each case runs in a child process: this test bundle again, with
/// `MSAL_SECRET_SERVICE_CHILD` set, executing only ``testChildEntryPoint()``.
final class SecretServiceNoBusTests: XCTestCase {
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
        default:
            XCTFail("unknown child mode \(mode)")
        }
    }

    /// Runs ``testChildEntryPoint()`` in a child process in `mode`, with `environment` changed.
    private func child(_ mode: String, _ change: (inout [String: String]) -> Void) throws {
        var environment = ProcessInfo.processInfo.environment
        environment[Self.childVariable] = mode
        change(&environment)
        let result = try SecretServiceFixture.run(
            CommandLine.arguments[0], ["MSALSecretServiceTests.SecretServiceNoBusTests/testChildEntryPoint"],
            environment: environment, timeout: 120)
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertTrue(result.output.contains("Executed 1 test, with 0 failures"), result.output)
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
