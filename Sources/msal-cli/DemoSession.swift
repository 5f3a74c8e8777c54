import Foundation
@_spi(Testing) import MSAL
import MSALTestSupport

/// What the demo's steps share: the emulator (in this process), the application wired to it, the
/// scripted browser, and the accounts signed in so far.
final class DemoSession {
    let emulator: EntraEmulator
    let application: MSALPublicClientApplication
    /// A second application for the B2C user flows: like MSAL, one application serves one kind of
    /// authority (the B2C seed sample configures its own application for its policies too).
    let b2cApplication: MSALPublicClientApplication
    let browser: ScriptedBrowser
    let clientId = EmulatorClient.sample.clientId
    let b2cAuthority: MSALB2CAuthority
    /// Alice's account, once the first step signed her in.
    var alice: MSALAccount?
    /// Alice's first access token (step 1) and when it expires.
    var firstResult: MSALResult?

    /// Access tokens the emulator issues at first live 302 seconds: with MSAL's 300-second
    /// expiration buffer they are usable for 2 seconds (see the refresh step).
    static let shortAccessTokenLifetime = 302

    init() throws {
        var configuration = EntraEmulator.Configuration()
        configuration.deviceCodeInterval = 1
        configuration.lifetimes.accessToken = Self.shortAccessTokenLifetime
        emulator = try EntraEmulator(configuration: configuration)
        let caFile = emulator.certificateAuthority.certificateFile
        b2cAuthority = try MSALB2CAuthority(
            url: emulator.authority(.b2cLogin(tenant: EmulatorTenant.contosoB2C.domains[0], policy: "B2C_1_signin")))
        let config = MSALPublicClientApplicationConfig(
            clientId: clientId, redirectUri: nil,
            authority: try MSALAADAuthority(url: MSALPublicClientApplicationConfig.defaultAuthorityURL))
        config.certificateAuthorityFile = caFile
        config.cacheConfig.inMemoryOnly = true
        config.connectTo = emulator.connectTo
        Self.shareClock(of: emulator, with: config)
        application = try MSALPublicClientApplication(configuration: config)
        let b2cConfig = MSALPublicClientApplicationConfig(clientId: clientId, redirectUri: nil, authority: b2cAuthority)
        b2cConfig.certificateAuthorityFile = caFile
        b2cConfig.cacheConfig.inMemoryOnly = true
        b2cConfig.knownAuthorities = [b2cAuthority]
        b2cConfig.connectTo = emulator.connectTo
        Self.shareClock(of: emulator, with: b2cConfig)
        b2cApplication = try MSALPublicClientApplication(configuration: b2cConfig)
        browser = ScriptedBrowser(caFile: caFile, connectTo: emulator.connectTo)
    }

    /// The applications tell time by the emulator's clock (as tests made with
    /// `EntraEmulator.applicationConfiguration` do), so the refresh step moves that clock instead
    /// of waiting; device-code polling still waits on the real clock.
    private static func shareClock(of emulator: EntraEmulator, with config: MSALPublicClientApplicationConfig) {
        config.useClock(
            now: { [weak emulator] in emulator?.now ?? Date() },
            sleep: { seconds in try await Task.sleep(for: .milliseconds(Int((seconds * 1000).rounded()))) })
    }

    /// Interactive parameters that sign in through the scripted browser.
    func interactive(_ scopes: [String]) -> MSALInteractiveTokenParameters {
        let webview = MSALWebviewParameters()
        webview.customWebview = browser
        return MSALInteractiveTokenParameters(scopes: scopes, webviewParameters: webview)
    }

    /// A silent request for `account`.
    func silent(
        _ scopes: [String], _ account: MSALAccount, forceRefresh: Bool = false, authority: MSALAuthority? = nil
    ) async throws -> MSALResult {
        let parameters = MSALSilentTokenParameters(scopes: scopes, account: account)
        parameters.forceRefresh = forceRefresh
        parameters.authority = authority
        return try await application.acquireTokenSilent(with: parameters)
    }

    /// Alice's account, or a failure when the first step did not sign her in.
    func aliceAccount() throws -> MSALAccount {
        guard let alice else { throw DemoFailure("no account from the interactive sign-in (step 1)") }
        return alice
    }

    /// The error `body` fails with; a failure when it succeeds.
    func expectError(_ body: () async throws -> Void) async throws -> NSError {
        do {
            try await body()
        } catch {
            return error as NSError
        }
        throw DemoFailure("the call succeeded, but it should have failed")
    }

    /// Records `text` as checked when `condition` holds; fails the step otherwise.
    func check(_ condition: Bool, _ text: String) throws {
        guard condition else { throw DemoFailure(text) }
        DemoTranscript.checked(text)
    }

    func note(_ text: String) {
        DemoTranscript.note(text)
    }

    /// How many token requests the emulator received.
    var tokenRequests: Int { emulator.requestCount(.token) }

    /// "MSAL -50002 (interactionRequired)", for notes.
    static func describe(_ error: NSError) -> String {
        let info = MSALErrorInfo(error)
        var text = "\(error.domain) \(error.code)"
        if let known = info.msalError { text += " (\(known))" }
        if let detail = info.internalCodeValue { text += ", internal \(detail)" }
        if let oauth = info.oauthError { text += ", OAuth \(oauth)" }
        if let status = info.httpStatusCode { text += ", HTTP \(status)" }
        return text
    }
}
