import Foundation
import MSAL
import MSALBroker
import MSALTestSupport
import XCTest

/// Accounts told apart by their source, as MSAL for Python does (`account_source` on the cache's
/// Account entity), and the broker's accounts listed with the cached ones
/// (``MSALPublicClientApplication/accountsFromDevice(for:)``), through the emulated broker on a
/// private bus.
final class BrokerAccountSourceTests: XCTestCase {
    private var fixture: BrokerFixture!

    override func setUpWithError() throws {
        fixture = try BrokerFixture()
    }

    override func tearDown() {
        fixture?.stop()
        fixture = nil
        MSALGlobalConfig.loggerConfig.removeLogCallback()
    }

    /// A configuration of its own cache file (or `cacheOf`'s), with the broker on or off.
    private func configuration(
        broker: Bool, busAddress: String? = nil, timeout: Double = 5,
        cacheOf other: MSALPublicClientApplicationConfig? = nil
    ) throws -> MSALPublicClientApplicationConfig {
        let config = try fixture.emulator.applicationConfiguration()
        if let other { config.cacheConfig.cacheFileURL = other.cacheConfig.cacheFileURL }
        if broker {
            config.brokerAvailability = .auto
            config.brokerConnection = MSALLinuxBroker(busAddress: busAddress ?? fixture.bus.address, timeout: timeout)
        }
        return config
    }

    private func signIn(_ application: MSALPublicClientApplication) async throws -> MSALResult {
        let webview = MSALWebviewParameters()
        webview.customWebview = fixture.emulator.scriptedBrowser()
        return try await application.acquireToken(
            with: MSALInteractiveTokenParameters(scopes: ["User.Read"], webviewParameters: webview))
    }

    private func silent(_ application: MSALPublicClientApplication, _ account: MSALAccount) async throws -> MSALResult {
        try await application.acquireTokenSilent(
            with: MSALSilentTokenParameters(scopes: ["User.Read"], account: account))
    }

    /// The Account entities of the cache file.
    private func cachedAccounts(_ config: MSALPublicClientApplicationConfig) throws -> [[String: Any]] {
        let url = try XCTUnwrap(config.cacheConfig.cacheFileURL)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        return (object["Account"] as? [String: Any] ?? [:]).values.compactMap { $0 as? [String: Any] }
    }

    /// Sets (or, with `nil`, removes) `account_source` of every Account entity of the cache file.
    private func setAccountSource(_ source: String?, in config: MSALPublicClientApplicationConfig) throws {
        let url = try XCTUnwrap(config.cacheConfig.cacheFileURL)
        var object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        var accounts = try XCTUnwrap(object["Account"] as? [String: [String: Any]])
        for key in accounts.keys { accounts[key]?["account_source"] = source }
        object["Account"] = accounts
        try JSONSerialization.data(withJSONObject: object).write(to: url)
    }

    // MARK: Account sources

    func testTheBrokersAccountsAreCachedWithMSALPythonsBrokerSource() async throws {
        let config = try configuration(broker: true)
        let application = try MSALPublicClientApplication(configuration: config)
        let result = try await signIn(application)
        XCTAssertEqual(try cachedAccounts(config).map { $0["account_source"] as? String }, ["broker"])

        // A silent renewal through the broker keeps it.
        fixture.emulator.advanceClock(by: 2 * 3600)
        _ = try await silent(application, result.account)
        XCTAssertEqual(fixture.broker.requests.last?.method, "acquireTokenSilently")
        XCTAssertEqual(try cachedAccounts(config).map { $0["account_source"] as? String }, ["broker"])
    }

    func testTheLibrarysOwnSignInsRecordTheirGrantAsMSALPythonDoes() async throws {
        let config = try configuration(broker: false)
        let application = try MSALPublicClientApplication(configuration: config)
        let result = try await signIn(application)
        XCTAssertEqual(try cachedAccounts(config).map { $0["account_source"] as? String }, ["authorization_code"])
        // A refresh does not say how the account was established: the source is kept.
        fixture.emulator.advanceClock(by: 2 * 3600)
        _ = try await silent(application, result.account)
        XCTAssertEqual(fixture.emulator.tokenRequestCount(grantType: .refreshToken), 1)
        XCTAssertEqual(try cachedAccounts(config).map { $0["account_source"] as? String }, ["authorization_code"])

        let device = try configuration(broker: false)
        let deviceApplication = try MSALPublicClientApplication(configuration: device)
        let emulator = fixture.emulator
        _ = try await deviceApplication.acquireTokenWithDeviceCode(
            parameters: MSALTokenParameters(scopes: ["User.Read"])
        ) { info in
            try? emulator.approveDeviceCode(userCode: info.userCode)
        }
        XCTAssertEqual(
            try cachedAccounts(device).map { $0["account_source"] as? String },
            ["urn:ietf:params:oauth:grant-type:device_code"])
    }

    func testABrokerAccountWithTheBrokerOffGetsCachedTokensThenNeedsInteraction() async throws {
        let brokered = try configuration(broker: true)
        let result = try await signIn(try MSALPublicClientApplication(configuration: brokered))
        let off = try MSALPublicClientApplication(configuration: try configuration(broker: false, cacheOf: brokered))
        let account = try XCTUnwrap(try off.allAccounts().first)
        XCTAssertEqual(account.identifier, result.account.identifier)

        // A good access token is the cache's, broker or not.
        let cached = try await silent(off, account)
        XCTAssertEqual(cached.accessToken, result.accessToken)

        // Once it expired: no refresh token exists and the broker is off, so the user signs in.
        fixture.emulator.advanceClock(by: 2 * 3600)
        do {
            _ = try await silent(off, account)
            XCTFail("a token without the broker")
        } catch {
            XCTAssertEqual((error as NSError).code, MSALError.interactionRequired.rawValue)
        }
        XCTAssertEqual(fixture.broker.requests.map(\.method), ["acquireTokenInteractively"])
        XCTAssertEqual(fixture.emulator.tokenRequestCount(grantType: .refreshToken), 0)
    }

    func testAnAccountAnotherGrantEstablishedUsesItsRefreshTokenNotTheBroker() async throws {
        let own = try configuration(broker: false)
        let result = try await signIn(try MSALPublicClientApplication(configuration: own))
        let brokered = try MSALPublicClientApplication(configuration: try configuration(broker: true, cacheOf: own))
        fixture.emulator.advanceClock(by: 2 * 3600)
        let renewed = try await silent(brokered, result.account)
        XCTAssertNotEqual(renewed.accessToken, result.accessToken)
        XCTAssertEqual(fixture.emulator.tokenRequestCount(grantType: .refreshToken), 1)
        XCTAssertEqual(fixture.broker.requests.count, 0)
    }

    func testAnAccountOfUnknownSourceAsksTheBroker() async throws {
        let own = try configuration(broker: false)
        let result = try await signIn(try MSALPublicClientApplication(configuration: own))
        try setAccountSource(nil, in: own)  // as an older library cached it
        let brokered = try MSALPublicClientApplication(configuration: try configuration(broker: true, cacheOf: own))
        fixture.emulator.advanceClock(by: 2 * 3600)
        // The broker does not know this account: its answer, not the refresh token, decides.
        do {
            _ = try await silent(brokered, result.account)
            XCTFail("the refresh token was used")
        } catch {
            XCTAssertEqual((error as NSError).code, MSALError.interactionRequired.rawValue)
        }
        XCTAssertEqual(fixture.broker.requests.map(\.method), ["acquireTokenSilently"])
        XCTAssertEqual(fixture.emulator.tokenRequestCount(grantType: .refreshToken), 0)
    }

    // MARK: Accounts from the device

    func testAccountsFromDeviceListTheBrokersAccountsOncePerHomeAccount() async throws {
        let first = try MSALPublicClientApplication(configuration: try configuration(broker: true))
        let result = try await signIn(first)
        let everyone = MSALAccountEnumerationParameters(identifier: nil, username: nil)
        let mine = try await first.accountsFromDevice(for: everyone)
        XCTAssertEqual(mine.map(\.identifier), [result.account.identifier], "cached and broker accounts merged")
        XCTAssertEqual(mine.map(\.isSSOAccount), [false], "the cached account wins")
        XCTAssertEqual(fixture.broker.requests.last?.method, "getAccounts")
        let request = try XCTUnwrap(fixture.broker.requests.last?.object)
        XCTAssertEqual(request["clientId"] as? String, EmulatorClient.sample.clientId)
        XCTAssertEqual(
            request["redirectUri"] as? String, "https://login.microsoftonline.com/common/oauth2/nativeclient")

        // Another application, with a cache of its own, sees the account through the broker only,
        // and gets a token for it from the broker.
        let second = try MSALPublicClientApplication(configuration: try configuration(broker: true))
        XCTAssertEqual(try second.allAccounts().count, 0)
        let listed = try await second.accountsFromDevice(for: everyone)
        let account = try XCTUnwrap(listed.first)
        XCTAssertEqual(listed.count, 1)
        XCTAssertEqual(account.identifier, result.account.identifier)
        XCTAssertEqual(account.username, result.account.username)
        XCTAssertTrue(account.isSSOAccount)
        XCTAssertEqual(account.tenantProfiles?.first?.tenantId, result.account.homeAccountId?.tenantId)
        let token = try await silent(second, account)
        XCTAssertEqual(token.account.identifier, result.account.identifier)
        XCTAssertEqual(fixture.broker.requests.last?.method, "acquireTokenSilently")

        // The enumeration parameters filter the broker's accounts too.
        let nobody = try await second.accountsFromDevice(
            for: MSALAccountEnumerationParameters(identifier: nil, username: "nobody@contoso.com"))
        XCTAssertEqual(nobody.count, 0)
    }

    func testAccountsFromDeviceWithoutABrokerAreTheCachedOnesWithOneLogLine() async throws {
        let lines = LogLines()
        MSALGlobalConfig.loggerConfig.setLogCallback { _, message, _ in lines.append(message ?? "") }
        let empty = try PrivateDBus()
        defer { empty.stop() }
        let application = try MSALPublicClientApplication(
            configuration: try configuration(broker: true, busAddress: empty.address))
        let result = try await signIn(application)
        let everyone = MSALAccountEnumerationParameters(identifier: nil, username: nil)
        for _ in 0..<2 {
            let accounts = try await application.accountsFromDevice(for: everyone)
            XCTAssertEqual(accounts.map(\.identifier), [result.account.identifier])
        }
        XCTAssertEqual(lines.all.filter { $0.contains("No broker answers") }.count, 1, "\(lines.all)")
    }

    func testAccountsFromDeviceWithTheBrokerOffNeverAskIt() async throws {
        let application = try MSALPublicClientApplication(configuration: try configuration(broker: false))
        let result = try await signIn(application)
        let accounts = try await application.accountsFromDevice(
            for: MSALAccountEnumerationParameters(identifier: nil, username: nil))
        XCTAssertEqual(accounts.map(\.identifier), [result.account.identifier])
        XCTAssertEqual(fixture.broker.requests.count, 0)
    }

    func testAHangingGetAccountsFailsAtTheDeadline() async throws {
        let application = try MSALPublicClientApplication(configuration: try configuration(broker: true, timeout: 0.5))
        fixture.broker.behavior = .never
        let started = Date()
        do {
            _ = try await application.accountsFromDevice(
                for: MSALAccountEnumerationParameters(identifier: nil, username: nil))
            XCTFail("no error")
        } catch {
            let error = error as NSError
            XCTAssertEqual(
                error.userInfo[MSALInternalErrorCodeKey] as? Int,
                MSALInternalError.internalErrorBrokerResponseNotReceived.rawValue)
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 3)
    }

    func testAMalformedGetAccountsIsACorruptedResponse() async throws {
        let application = try MSALPublicClientApplication(configuration: try configuration(broker: true))
        fixture.broker.behavior = .garbage
        do {
            _ = try await application.accountsFromDevice(
                for: MSALAccountEnumerationParameters(identifier: nil, username: nil))
            XCTFail("no error")
        } catch {
            let error = error as NSError
            XCTAssertEqual(
                error.userInfo[MSALInternalErrorCodeKey] as? Int,
                MSALInternalError.internalErrorBrokerCorruptedResponse.rawValue)
        }
    }
}
