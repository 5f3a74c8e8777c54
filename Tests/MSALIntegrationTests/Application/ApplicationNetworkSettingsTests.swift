import Foundation
import MSALNative
import MSALTestSupport
import XCTest

@testable import MSAL

/// Routing, trust, retries, timeouts and the proxy are settings of each application: two
/// applications in one process never see each other's, and nothing global has to change.
final class ApplicationNetworkSettingsTests: XCTestCase {
    private func deviceCodeSignIn(_ application: MSALPublicClientApplication, _ emulator: EntraEmulator) async throws
        -> MSALResult
    {
        try await application.acquireTokenWithDeviceCode(parameters: MSALTokenParameters(scopes: ["User.Read"])) {
            info in
            try? emulator.approveDeviceCode(userCode: info.userCode)
        }
    }

    func testTwoApplicationsRouteTheSameHostToTheirOwnEmulators() async throws {
        let first = try EmulatedApp.makeEmulator()
        let second = try EmulatedApp.makeEmulator()
        defer {
            first.stop()
            second.stop()
        }
        // Both made before either is used: the second's settings must not leak into the first.
        let one = try MSALPublicClientApplication(configuration: first.applicationConfiguration(cache: .inMemory))
        let two = try MSALPublicClientApplication(configuration: second.applicationConfiguration(cache: .inMemory))
        XCTAssertEqual(one.configuration.connectTo, first.connectTo)
        _ = try await deviceCodeSignIn(two, second)
        _ = try await deviceCodeSignIn(one, first)
        XCTAssertEqual(first.tokenRequestCount(grantType: .deviceCode), 1)
        XCTAssertEqual(second.tokenRequestCount(grantType: .deviceCode), 1)
        XCTAssertTrue(MSALGlobalConfig.httpConfig.proxy == nil, "nothing global was set")
    }

    func testRetrySettingsOfOneApplicationLeaveAnotherAlone() async throws {
        let emulator = try EmulatedApp.makeEmulator()
        defer { emulator.stop() }
        let strictConfig = try emulator.applicationConfiguration(cache: .inMemory)
        strictConfig.httpConfig.retryCount = 0
        let strict = try MSALPublicClientApplication(configuration: strictConfig)
        let lenientConfig = try emulator.applicationConfiguration(cache: .inMemory)
        lenientConfig.httpConfig.retryInterval = 0.01
        let lenient = try MSALPublicClientApplication(configuration: lenientConfig)
        XCTAssertEqual(lenient.configuration.httpConfig.retryCount, MSALGlobalConfig.httpConfig.retryCount)

        emulator.inject(.serverError(), at: .deviceCode)
        do {
            _ = try await deviceCodeSignIn(strict, emulator)
            XCTFail("a 500 without a retry fails")
        } catch {}
        XCTAssertEqual(emulator.requestCount(.deviceCode), 1, "no retry")

        emulator.inject(.serverError(), at: .deviceCode)
        _ = try await deviceCodeSignIn(lenient, emulator)
        XCTAssertEqual(emulator.requestCount(.deviceCode), 3, "one retry, as the global default says")
    }

    func testTheProxyOfAnApplicationCarriesItsRequests() async throws {
        let emulator = try EmulatedApp.makeEmulator()
        defer { emulator.stop() }
        let tunnels = Locked<[String]>([])
        let proxy = try LoopbackHTTPServer { request in
            tunnels.withLock { $0.append("\(request.method) \(request.target)") }
            return .respond(.text(status: 403, "no tunnel"))
        }
        defer { proxy.stop() }
        let config = try emulator.applicationConfiguration(cache: .inMemory)
        config.connectTo = []
        config.httpConfig.proxy = proxy.baseURL.absoluteString
        config.httpConfig.retryCount = 0
        let application = try MSALPublicClientApplication(configuration: config)
        let other = try MSALPublicClientApplication(configuration: emulator.applicationConfiguration(cache: .inMemory))

        do {
            _ = try await deviceCodeSignIn(application, emulator)
            XCTFail("the proxy refuses every tunnel")
        } catch {}
        XCTAssertGreaterThan(proxy.acceptedConnections, 0)
        XCTAssertTrue(
            tunnels.withLock { $0 }.allSatisfy { $0 == "CONNECT login.microsoftonline.com:443" },
            "\(tunnels.withLock { $0 })")
        let before = proxy.acceptedConnections
        _ = try await deviceCodeSignIn(other, emulator)
        XCTAssertEqual(proxy.acceptedConnections, before, "another application does not use it")
    }
}
