public import Foundation
@_spi(Testing) public import MSAL
import MSALNative

extension EntraEmulator {
    /// Where the token cache of an ``applicationConfiguration(clientId:authority:redirectUri:cache:)``
    /// lives.
    public enum TestCache: Sendable, Hashable {
        /// A file in a new temporary folder, removed when the emulator stops: the real file cache,
        /// locks and all, as the app would use it.
        case temporaryFile
        /// In memory only: nothing is written.
        case inMemory
    }

    /// A configuration for an application that talks to this emulator and to nothing else.
    ///
    /// ```swift
    /// let emulator = try EntraEmulator()
    /// defer { emulator.stop() }
    /// let application = try MSALPublicClientApplication(configuration: emulator.applicationConfiguration())
    /// ```
    ///
    /// What it sets, all on this configuration only (tests can run in parallel, each with its own
    /// emulator):
    /// - trust: ``TestCertificateAuthority/certificateFile`` as `certificateAuthorityFile`;
    /// - routing: ``connectTo``, so `login.microsoftonline.com` and the other host names the
    ///   emulator poses as reach it (and a typo in a host name fails instead of reaching the
    ///   internet: no other host is routed);
    /// - the authority, also listed in `knownAuthorities` unless it is on a Microsoft cloud host
    ///   (a loopback authority from ``authority(_:host:)``, B2C, CIAM, AD FS);
    /// - the token cache: a file in a temporary folder, or memory (`cache`);
    /// - the clock: the application reads the emulator's (``now``), so ``advanceClock(by:)`` moves
    ///   both, and device-code polling advances it instead of waiting.
    ///
    /// - Parameters:
    ///   - clientId: the app registration; default ``EmulatorClient/sample``. Register others with
    ///     ``add(client:)``.
    ///   - authority: default `https://login.microsoftonline.com/common`, routed here.
    ///   - redirectUri: `nil` for `http://localhost` on a port chosen at sign-in.
    ///   - cache: where tokens are cached; default a temporary file.
    /// - Throws: when `authority` is not a valid authority URL or the folder cannot be made.
    public func applicationConfiguration(
        clientId: String = EmulatorClient.sample.clientId,
        authority: URL? = nil,
        redirectUri: String? = nil,
        cache: TestCache = .temporaryFile
    ) throws -> MSALPublicClientApplicationConfig {
        let url = authority ?? MSALPublicClientApplicationConfig.defaultAuthorityURL
        let msalAuthority = try MSALAuthority.authority(with: url)
        let config = MSALPublicClientApplicationConfig(
            clientId: clientId, redirectUri: redirectUri, authority: msalAuthority)
        if !Self.isCloudHost(url.host ?? "") {
            config.knownAuthorities = [msalAuthority]
        }
        config.certificateAuthorityFile = certificateAuthority.certificateFile
        config.connectTo = connectTo
        switch cache {
        case .inMemory:
            config.cacheConfig.inMemoryOnly = true
        case .temporaryFile:
            let folder = FileManager.default.temporaryDirectory
                .appendingPathComponent("msal-emulator-cache-\(UUID().uuidString)", isDirectory: true)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            temporaryFolders.withLock { $0.append(folder) }
            config.cacheConfig.cacheFileURL = folder.appendingPathComponent("msal_cache.json")
        }
        config.useClock(
            now: { [weak self] in self?.now ?? Date() },
            sleep: { [weak self] seconds in
                // Polling waits on the shared clock; the short real pause lets the test's other
                // tasks (approving the device code) run.
                self?.advanceClock(by: seconds)
                try await Task.sleep(for: .milliseconds(2))
            })
        return config
    }

    /// A scripted browser that trusts this emulator and reaches it by its host names: the web
    /// view of interactive sign-ins in tests (`MSALWebviewParameters.customWebview`).
    public func scriptedBrowser() -> ScriptedBrowser {
        ScriptedBrowser(caFile: certificateAuthority.certificateFile, connectTo: connectTo)
    }

    /// Whether `host` is a Microsoft cloud host (`login.microsoftonline.com` and its aliases).
    private static func isCloudHost(_ host: String) -> Bool {
        EmulatorCloud.all.contains { cloud in cloud.aliases.contains { $0.lowercased() == host.lowercased() } }
    }
}
