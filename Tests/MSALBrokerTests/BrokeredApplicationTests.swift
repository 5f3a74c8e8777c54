import Foundation
import MSAL
import MSALBroker
import MSALTestSupport
import XCTest

/// An application with the broker on, against the emulated broker on a private bus: sign-in,
/// silent calls, accounts and sign-out through it, its failures as MSAL's errors, and the
/// library's own flows when no broker answers.
final class BrokeredApplicationTests: XCTestCase {
    private var fixture: BrokerFixture!

    override func setUpWithError() throws {
        fixture = try BrokerFixture()
    }

    override func tearDown() {
        fixture?.stop()
        fixture = nil
        MSALGlobalConfig.loggerConfig.removeLogCallback()
    }

    private func application(timeout: Double = 5, busAddress: String? = nil) throws -> MSALPublicClientApplication {
        let config = try fixture.emulator.applicationConfiguration()
        config.brokerAvailability = .auto
        config.brokerConnection = MSALLinuxBroker(busAddress: busAddress ?? fixture.bus.address, timeout: timeout)
        return try MSALPublicClientApplication(configuration: config)
    }

    private func signIn(_ application: MSALPublicClientApplication) async throws -> MSALResult {
        let webview = MSALWebviewParameters()
        webview.customWebview = fixture.emulator.scriptedBrowser()
        return try await application.acquireToken(
            with: MSALInteractiveTokenParameters(scopes: ["User.Read"], webviewParameters: webview))
    }

    func testSignInSilentAccountsAndSignOutGoThroughTheBroker() async throws {
        let application = try application()
        let result = try await signIn(application)
        XCTAssertEqual(fixture.emulator.requestCount(.authorize), 0, "the browser flow ran")
        XCTAssertEqual(fixture.broker.requests.map(\.method), ["acquireTokenInteractively"])
        let username = try XCTUnwrap(fixture.emulator.defaultUsername)
        XCTAssertEqual(result.account.username, username)
        XCTAssertEqual(fixture.broker.signedInUsernames, [username])
        XCTAssertEqual(try application.allAccounts().map(\.username), [username])

        // A good cached token needs no broker.
        let cached = try await application.acquireTokenSilent(
            with: MSALSilentTokenParameters(scopes: ["User.Read"], account: result.account))
        XCTAssertEqual(cached.accessToken, result.accessToken)
        XCTAssertEqual(fixture.broker.requests.count, 1)

        // An expired one: the broker again (there is no refresh token).
        fixture.emulator.advanceClock(by: 2 * 3600)
        let renewed = try await application.acquireTokenSilent(
            with: MSALSilentTokenParameters(scopes: ["User.Read"], account: result.account))
        XCTAssertNotEqual(renewed.accessToken, result.accessToken)
        XCTAssertEqual(fixture.broker.requests.map(\.method), ["acquireTokenInteractively", "acquireTokenSilently"])
        XCTAssertEqual(renewed.account.identifier, result.account.identifier)

        try await application.signout(with: result.account, signoutParameters: MSALSignoutParameters())
        XCTAssertEqual(fixture.broker.requests.last?.method, "removeAccount")
        XCTAssertEqual(fixture.broker.signedInUsernames, [])
        XCTAssertEqual(try application.allAccounts().count, 0)
    }

    func testRecordedRequestsHaveTheBrokersShapes() async throws {
        let application = try application()
        let result = try await signIn(application)
        fixture.emulator.advanceClock(by: 2 * 3600)
        _ = try await application.acquireTokenSilent(
            with: MSALSilentTokenParameters(scopes: ["User.Read"], account: result.account))
        for request in fixture.broker.requests {
            XCTAssertEqual(request.protocolVersion, "0.0")
            XCTAssertNotNil(UUID(uuidString: request.correlationId))
            let object = try XCTUnwrap(request.object)
            let parameters = try XCTUnwrap(object["authParameters"] as? [String: Any])
            XCTAssertEqual(parameters["clientId"] as? String, EmulatorClient.sample.clientId)
            XCTAssertEqual(
                parameters["redirectUri"] as? String, "https://login.microsoftonline.com/common/oauth2/nativeclient")
            XCTAssertEqual(parameters["requestedScopes"] as? [String], ["User.Read"])
            let expected =
                request.method == "acquireTokenSilently"
                ? "https://login.microsoftonline.com/\(result.account.homeAccountId?.tenantId ?? "")"
                : "https://login.microsoftonline.com/common"
            XCTAssertEqual(parameters["authority"] as? String, expected)
        }
        let silent = try XCTUnwrap(fixture.broker.requests.last?.object)
        let account = try XCTUnwrap(silent["account"] as? [String: Any])
        XCTAssertEqual(account["homeAccountId"] as? String, result.account.identifier)
        let inner = try XCTUnwrap((silent["authParameters"] as? [String: Any])?["account"] as? [String: Any])
        XCTAssertEqual(inner["homeAccountId"] as? String, result.account.identifier)
    }

    func testInteractionRequiredIsMinus50002WithTheBrokersStatus() async throws {
        let application = try application()
        let result = try await signIn(application)
        fixture.emulator.advanceClock(by: 2 * 3600)
        fixture.broker.behavior = .interactionRequired
        let error = await failure {
            _ = try await application.acquireTokenSilent(
                with: MSALSilentTokenParameters(scopes: ["User.Read"], account: result.account))
        }
        XCTAssertEqual(error?.domain, MSALErrorDomain)
        XCTAssertEqual(error?.code, MSALError.interactionRequired.rawValue)
        XCTAssertEqual(error?.userInfo[MSALBrokerStatusKey] as? String, "InteractionRequired:0")
    }

    func testUserCancelIsMinus50005() async throws {
        let application = try application()
        fixture.broker.behavior = .userCanceled
        let error = await failure { _ = try await self.signIn(application) }
        XCTAssertEqual(error?.code, MSALError.userCanceled.rawValue)
        XCTAssertEqual(fixture.emulator.requestCount(.authorize), 0)
    }

    func testAHangingBrokerFailsSilentCallsAtTheDeadline() async throws {
        let application = try application(timeout: 0.5)
        let result = try await signIn(application)
        fixture.emulator.advanceClock(by: 2 * 3600)
        fixture.broker.behavior = .never
        let started = Date()
        let error = await failure {
            _ = try await application.acquireTokenSilent(
                with: MSALSilentTokenParameters(scopes: ["User.Read"], account: result.account))
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 3)
        XCTAssertEqual(error?.code, MSALError.internal.rawValue)
        XCTAssertEqual(
            error?.userInfo[MSALInternalErrorCodeKey] as? Int,
            MSALInternalError.internalErrorBrokerResponseNotReceived.rawValue)
    }

    func testGarbageIsACorruptedResponse() async throws {
        let application = try application()
        fixture.broker.behavior = .garbage
        let error = await failure { _ = try await self.signIn(application) }
        XCTAssertEqual(error?.code, MSALError.internal.rawValue)
        XCTAssertEqual(
            error?.userInfo[MSALInternalErrorCodeKey] as? Int,
            MSALInternalError.internalErrorBrokerCorruptedResponse.rawValue)
    }

    func testTheOtherReplyShapesGiveTheSameToken() async throws {
        let usual = try await signIn(try application())
        let application = try application()
        fixture.broker.behavior = .alternateShapes
        let result = try await signIn(application)
        XCTAssertEqual(Set(result.scopes.map { $0.lowercased() }), Set(usual.scopes.map { $0.lowercased() }))
        XCTAssertTrue(result.scopes.contains { $0.lowercased() == "user.read" }, "\(result.scopes)")
        let lifetime = result.expiresOn?.timeIntervalSince(fixture.emulator.now) ?? 0
        XCTAssertEqual(lifetime, 3600, accuracy: 2)
        // The cached token is used until it expires, as with the usual shapes.
        let cached = try await application.acquireTokenSilent(
            with: MSALSilentTokenParameters(scopes: ["User.Read"], account: result.account))
        XCTAssertEqual(cached.accessToken, result.accessToken)
        XCTAssertEqual(fixture.broker.requests.count, 2)
    }

    func testAReplyOfTheWrongTypesIsACorruptedResponseNamingTheField() async throws {
        let application = try application()
        fixture.broker.behavior = .reply(#"{"brokerTokenResponse":{"accessToken":"eyJ.secret.sig","expiresOn":true}}"#)
        let error = await failure { _ = try await self.signIn(application) }
        XCTAssertEqual(
            error?.userInfo[MSALInternalErrorCodeKey] as? Int,
            MSALInternalError.internalErrorBrokerCorruptedResponse.rawValue)
        let message = error?.userInfo[MSALErrorDescriptionKey] as? String ?? ""
        XCTAssertTrue(message.contains("brokerTokenResponse.expiresOn has the wrong type"), message)
        XCTAssertFalse(message.contains("secret"), message)
    }

    func testTheBrokersEchoNeverReachesTheErrorOrTheLog() async throws {
        let lines = LogLines()
        MSALGlobalConfig.loggerConfig.logLevel = .verbose
        defer { MSALGlobalConfig.loggerConfig.logLevel = .info }
        MSALGlobalConfig.loggerConfig.setLogCallback { _, message, _ in lines.append(message ?? "") }
        let application = try application()
        let username = try XCTUnwrap(fixture.emulator.defaultUsername)
        let echo = "AADSTS50076: \(username) must sign in again for claims {\"access_token\":\"at-secret\"}"
        let reply = try JSONSerialization.data(withJSONObject: [
            "brokerTokenResponse": ["error": ["status": "InteractionRequired", "subStatus": 6, "context": echo]]
        ])
        fixture.broker.behavior = .reply(String(decoding: reply, as: UTF8.self))
        let error = await failure { _ = try await self.signIn(application) }
        XCTAssertEqual(error?.code, MSALError.interactionRequired.rawValue)
        XCTAssertEqual(error?.userInfo[MSALBrokerStatusKey] as? String, "InteractionRequired:6")
        let texts = [error?.localizedDescription ?? "", error?.userInfo[MSALErrorDescriptionKey] as? String ?? ""]
        for text in texts + lines.all {
            XCTAssertFalse(text.contains(username), text)
            XCTAssertFalse(text.contains("at-secret"), text)
        }
        XCTAssertTrue(texts[1].contains("AADSTS50076"), texts[1])

        // A D-Bus error's message is the broker's text too.
        fixture.broker.behavior = .dbusError(
            name: "com.microsoft.identity.Error", message: "no session for \(username)")
        let dbus = await failure { _ = try await self.signIn(application) }
        let dbusText = dbus?.userInfo[MSALErrorDescriptionKey] as? String ?? ""
        XCTAssertTrue(dbusText.contains("com.microsoft.identity.Error"), dbusText)
        XCTAssertFalse(dbusText.contains(username), dbusText)
    }

    func testNoBrokerMeansTheLibrarysOwnFlowsAndOneLogLine() async throws {
        let lines = LogLines()
        MSALGlobalConfig.loggerConfig.setLogCallback { _, message, _ in lines.append(message ?? "") }
        let empty = try PrivateDBus()
        defer { empty.stop() }
        let application = try application(busAddress: empty.address)
        let result = try await signIn(application)
        XCTAssertEqual(fixture.emulator.requestCount(.authorize), 1, "the browser flow did not run")
        fixture.emulator.advanceClock(by: 2 * 3600)
        _ = try await application.acquireTokenSilent(
            with: MSALSilentTokenParameters(scopes: ["User.Read"], account: result.account))
        XCTAssertEqual(fixture.emulator.tokenRequestCount(grantType: .refreshToken), 1)
        XCTAssertEqual(lines.all.filter { $0.contains("No broker answers") }.count, 1, "\(lines.all)")
        XCTAssertEqual(fixture.broker.requests.count, 0)
    }

    func testB2CNeverGoesThroughTheBroker() async throws {
        let b2c = fixture.emulator.authority(.b2cLogin(tenant: "contosob2c.onmicrosoft.com", policy: "B2C_1_SignIn"))
        let config = try fixture.emulator.applicationConfiguration(authority: b2c)
        config.brokerAvailability = .auto
        config.brokerConnection = MSALLinuxBroker(busAddress: fixture.bus.address, timeout: 5)
        let application = try MSALPublicClientApplication(configuration: config)
        let webview = MSALWebviewParameters()
        webview.customWebview = fixture.emulator.scriptedBrowser()
        let parameters = MSALInteractiveTokenParameters(scopes: ["User.Read"], webviewParameters: webview)
        parameters.loginHint = EmulatorUser.dave.username
        _ = try await application.acquireToken(with: parameters)
        XCTAssertEqual(fixture.emulator.requestCount(.authorize), 1)
        XCTAssertEqual(fixture.broker.requests.count, 0)
    }

    func testTheBrokerIsOffByDefault() async throws {
        let config = try fixture.emulator.applicationConfiguration()
        XCTAssertEqual(config.brokerAvailability, .none)
        config.brokerConnection = MSALLinuxBroker(busAddress: fixture.bus.address, timeout: 5)
        let application = try MSALPublicClientApplication(configuration: config)
        _ = try await signIn(application)
        XCTAssertEqual(fixture.emulator.requestCount(.authorize), 1)
        XCTAssertEqual(fixture.broker.requests.count, 0)
    }

    func testNoTokenReachesTheLog() async throws {
        let lines = LogLines()
        MSALGlobalConfig.loggerConfig.logLevel = .verbose
        defer { MSALGlobalConfig.loggerConfig.logLevel = .info }
        MSALGlobalConfig.loggerConfig.setLogCallback { _, message, _ in lines.append(message ?? "") }
        let application = try application()
        let result = try await signIn(application)
        fixture.emulator.advanceClock(by: 2 * 3600)
        let renewed = try await application.acquireTokenSilent(
            with: MSALSilentTokenParameters(scopes: ["User.Read"], account: result.account))
        XCTAssertFalse(lines.all.isEmpty)
        for token in [result.accessToken, renewed.accessToken, result.idToken ?? "-"] {
            let signature = String(token.split(separator: ".").last ?? "")
            XCTAssertFalse(lines.all.contains { $0.contains(signature) }, "a token is in the log")
        }
    }

    private func failure(_ body: @escaping () async throws -> Void) async -> NSError? {
        do {
            try await body()
            XCTFail("no error")
            return nil
        } catch {
            return error as NSError
        }
    }
}

/// Log lines gathered from the callback's threads.
final class LogLines: @unchecked Sendable {
    // @unchecked: `lines` is behind `lock`.
    private let lock = NSLock()
    private var lines: [String] = []

    func append(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
}
