import Foundation
import MSALNative
import MSALTestSupport
import XCTest

@testable import MSAL

/// An application wired to an emulator: trusts its CA, routes Microsoft host names to it (or where
/// `connectTo` says), signs in with a scripted browser, keeps its cache in memory, and runs on a
/// clock the test moves.
final class EmulatedApp: @unchecked Sendable {
    // @unchecked: the clock is behind a lock; everything else is immutable.
    let emulator: EntraEmulator
    let application: MSALPublicClientApplication
    let browser: ScriptedBrowser
    private let clock: Locked<Date>

    /// An emulator with the suite's shared signing key (see ``EmulatorHarness/makeEmulator(_:)``).
    static func makeEmulator(_ configure: (inout EntraEmulator.Configuration) -> Void = { _ in }) throws
        -> EntraEmulator
    {
        try EmulatorHarness.makeEmulator(configure)
    }

    init(
        emulator: EntraEmulator,
        clientId: String = EmulatorClient.sample.clientId,
        authority: URL = URL(string: "https://login.microsoftonline.com/common")!,
        connectTo: [String]? = nil,
        configure: (MSALPublicClientApplicationConfig) throws -> Void = { _ in }
    ) throws {
        self.emulator = emulator
        let clock = Locked(Date())
        self.clock = clock
        let config = MSALPublicClientApplicationConfig(
            clientId: clientId, redirectUri: nil, authority: try MSALAuthority.authority(with: authority))
        config.certificateAuthorityFile = emulator.certificateAuthority.certificateFile
        config.cacheConfig.inMemoryOnly = true
        config.connectTo = connectTo ?? emulator.connectTo
        try configure(config)
        application = try MSALPublicClientApplication(configuration: config, now: { clock.withLock { $0 } })
        browser = ScriptedBrowser(
            configuration: .init(caFile: emulator.certificateAuthority.certificateFile, connectTo: emulator.connectTo))
    }

    /// Moves the application's clock (and the emulator's, so tokens it issues agree).
    func advance(by seconds: TimeInterval) {
        clock.withLock { $0 = $0.addingTimeInterval(seconds) }
        emulator.advanceClock(by: seconds)
    }

    /// Interactive parameters that sign in through the scripted browser.
    func interactive(_ scopes: [String]) -> MSALInteractiveTokenParameters {
        let webview = MSALWebviewParameters()
        webview.customWebview = browser
        return MSALInteractiveTokenParameters(scopes: scopes, webviewParameters: webview)
    }

    /// Signs in interactively.
    func signIn(_ scopes: [String] = ["User.Read"], configure: (MSALInteractiveTokenParameters) -> Void = { _ in })
        async throws -> MSALResult
    {
        let parameters = interactive(scopes)
        configure(parameters)
        return try await application.acquireToken(with: parameters)
    }
}

/// Asserts `body` fails with `domain`/`code` (and the internal code when given); returns the error.
@discardableResult
func assertFailure(
    domain: String = MSALErrorDomain, code: Int, internalCode: Int? = nil, file: StaticString = #filePath,
    line: UInt = #line, _ body: () async throws -> Void
) async -> NSError? {
    do {
        try await body()
        XCTFail("expected error \(domain) \(code)", file: file, line: line)
        return nil
    } catch let error as NSError {
        XCTAssertEqual(error.domain, domain, "\(error)", file: file, line: line)
        XCTAssertEqual(error.code, code, "\(error)", file: file, line: line)
        if let internalCode {
            XCTAssertEqual(
                error.userInfo[MSALInternalErrorCodeKey] as? Int, internalCode, "\(error)", file: file, line: line)
        }
        return error
    }
}
