import Foundation
import MSALTestSupport
import XCTest

/// `msal` with `--broker` (or `MSAL_BROKER=1`) against the emulated broker on a private bus:
/// login, accounts, token and logout through it, and `msal doctor`'s broker line.
final class CLIBrokerTests: XCTestCase {
    private var environment: CLITestEnvironment!
    private var bus: PrivateDBus!
    private var broker: EmulatedBroker!

    override func setUpWithError() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-daemon") else {
            throw XCTSkip("dbus-daemon is not installed (Debian: dbus)")
        }
        environment = try CLITestEnvironment()
        bus = try PrivateDBus()
        broker = try EmulatedBroker(emulator: environment.emulator, busAddress: bus.address)
    }

    override func tearDown() {
        broker?.stop()
        bus?.stop()
        environment?.tearDown()
    }

    private var brokerBus: [String: String] { ["MSAL_BROKER_BUS": bus.address] }

    func testLoginTokenAccountsAndLogoutGoThroughTheBroker() throws {
        let login = try environment.run(["login", "--broker", "--scopes", "User.Read"], extra: brokerBus)
        XCTAssertEqual(login.status, 0, login.errorOutput)
        let username = try XCTUnwrap(environment.emulator.defaultUsername)
        XCTAssertTrue(login.output.contains("Signed in as \(username)"), login.output)
        // Whether a broker answers, then the sign-in.
        XCTAssertEqual(broker.requests.map(\.method), ["getLinuxBrokerVersion", "acquireTokenInteractively"])
        XCTAssertEqual(environment.emulator.requestCount(.authorize), 0, "the browser flow ran")

        let accounts = try environment.run(["accounts"], extra: brokerBus.merging(["MSAL_BROKER": "1"]) { $1 })
        XCTAssertEqual(accounts.status, 0, accounts.errorOutput)
        XCTAssertTrue(accounts.output.contains(username), accounts.output)

        // The tool runs on its own clock: --force-refresh skips the cached token.
        let token = try environment.run(
            ["token", "--force-refresh", "--scopes", "User.Read"], extra: brokerBus.merging(["MSAL_BROKER": "1"]) { $1 }
        )
        XCTAssertEqual(token.status, 0, token.errorOutput)
        XCTAssertTrue(token.output.hasPrefix("eyJ"), token.output)
        XCTAssertEqual(broker.requests.last?.method, "acquireTokenSilently")

        let logout = try environment.run(["logout", "--broker"], extra: brokerBus)
        XCTAssertEqual(logout.status, 0, logout.errorOutput)
        XCTAssertEqual(broker.requests.last?.method, "removeAccount")
        XCTAssertEqual(broker.signedInUsernames, [])
    }

    func testAccountsWithTheBrokerListTheBrokersAccounts() throws {
        let login = try environment.run(["login", "--broker", "--scopes", "User.Read"], extra: brokerBus)
        XCTAssertEqual(login.status, 0, login.errorOutput)
        let username = try XCTUnwrap(environment.emulator.defaultUsername)
        // Signed out of the cache only: the broker still has the account.
        let logout = try environment.run(["logout"], extra: brokerBus)
        XCTAssertEqual(logout.status, 0, logout.errorOutput)
        XCTAssertEqual(broker.signedInUsernames, [username])

        let cached = try environment.run(["accounts"], extra: brokerBus)
        XCTAssertEqual(cached.status, 0, cached.errorOutput)
        XCTAssertFalse(cached.output.contains(username), cached.output)

        let device = try environment.run(["accounts", "--broker"], extra: brokerBus)
        XCTAssertEqual(device.status, 0, device.errorOutput)
        XCTAssertTrue(device.output.contains(username), device.output)
        XCTAssertEqual(broker.requests.last?.method, "getAccounts")
    }

    func testDoctorSaysWhetherABrokerAnswers() throws {
        let answering = try environment.run(["doctor", "-o", "json"], extra: brokerBus)
        let report = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(answering.output.utf8)) as? [String: Any], answering.output)
        let found = try XCTUnwrap(report["broker"] as? [String: Any])
        XCTAssertEqual(found["version"] as? String, EmulatedBroker.version)

        broker.stop()
        let silent = try environment.run(["doctor"], extra: brokerBus)
        XCTAssertTrue(silent.output.contains("broker: none on \(bus.address)"), silent.output)
    }
}
