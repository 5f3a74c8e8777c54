public import Foundation
import MSALNative

/// The entry point: one object per app registration (client id), for every cloud, tenant and
/// account. Create it once and keep it; it is safe to use from any thread or task.
///
/// ```swift
/// let config = MSALPublicClientApplicationConfig(clientId: "<client id>")
/// let application = try MSALPublicClientApplication(configuration: config)
/// ```
public final class MSALPublicClientApplication: Sendable {
    /// A copy of the configuration the application was created with.
    public let configuration: MSALPublicClientApplicationConfig
    let context: ApplicationContext

    /// Creates the application.
    ///
    /// - Throws: -50000 with internal -42000 when the client id is empty, the authority uses
    ///   `http` without being a known loopback authority, the redirect URI cannot work, or the
    ///   cache encryption key is not 32 random bytes (``MSALCacheConfig/encryptionKey``).
    public convenience init(configuration: MSALPublicClientApplicationConfig) throws {
        try self.init(configuration: configuration, now: nil)
    }

    /// Creates an application for `clientId` with the default configuration.
    public convenience init(clientId: String) throws {
        try self.init(configuration: MSALPublicClientApplicationConfig(clientId: clientId))
    }

    /// The designated initializer; tests inject the clock here or with the configuration's
    /// `useClock` (`now` wins over it), else the system's is used.
    init(configuration: MSALPublicClientApplicationConfig, now: (@Sendable () -> Date)?) throws {
        let copy = configuration.copy()
        let values = copy.values.withLock { $0 }
        guard !ASCII.trimmed(values.clientId).isEmpty else {
            throw MSALErrors.make(
                .internalErrorInvalidParameter, "clientId is a required parameter and must not be nil or empty.")
        }
        try values.authority.model.validateScheme(knownAuthorities: values.knownAuthorities.map(\.model))
        if let redirectUri = values.redirectUri, !values.bypassRedirectURIValidation {
            _ = try RedirectURI(validating: redirectUri, customWebview: true)
        }
        if let key = values.cacheConfig.encryptionKey, let problem = CacheKeyCheck.problem([UInt8](key)) {
            throw MSALErrors.make(
                .internalErrorInvalidParameter,
                "cacheConfig.encryptionKey must be 32 random bytes (AES-256): \(problem). "
                    + "Generate 32 random bytes once and keep them in your secret store.")
        }
        try values.cacheConfig.resolveStoreKey()
        let transport = CurlHTTPTransport(configuration: ApplicationContext.transportConfiguration(for: values))
        self.configuration = copy
        let systemNow: @Sendable () -> Date = { Date() }
        let clockNow: @Sendable () -> Date = now ?? values.clock?.now ?? systemNow
        let sleep: @Sendable (TimeInterval) async throws -> Void = values.clock?.sleep ?? ApplicationContext.systemSleep
        self.context = ApplicationContext(configuration: values, transport: transport, now: clockNow, sleep: sleep)
    }

    // MARK: Accounts

    /// Every account signed in to this app (or its family of apps) in the cache.
    ///
    /// - Throws: an `MSALErrorDomain` error when the cache cannot be read.
    public func allAccounts() throws -> [MSALAccount] {
        try accounts(matching: AccountQuery())
    }

    /// The account with `identifier` (``MSALAccount/identifier``), or `nil`.
    public func account(forIdentifier identifier: String) throws -> MSALAccount? {
        try accounts(matching: AccountQuery(identifier: identifier)).first
    }

    /// The account signed in as `username` (compared case-insensitively), or `nil`.
    ///
    /// - Throws: -50000 with internal -42000 when `username` is empty.
    public func account(forUsername username: String) throws -> MSALAccount? {
        guard !username.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw MSALErrors.make(.internalErrorInvalidParameter, "No username is provided.")
        }
        return try accounts(matching: AccountQuery(username: username)).first
    }

    /// The accounts matching `parameters`.
    public func accounts(for parameters: MSALAccountEnumerationParameters) throws -> [MSALAccount] {
        try accounts(
            matching: AccountQuery(
                identifier: parameters.identifier, username: parameters.username,
                tenantProfileIdentifier: parameters.tenantProfileIdentifier,
                returnOnlySignedInAccounts: parameters.returnOnlySignedInAccounts))
    }

    /// Signs `account` out of this app: its tokens for this app are deleted and it is marked
    /// signed out, so it no longer appears in ``allAccounts()``, silent requests for it need
    /// interaction, and the next interactive sign-in asks for credentials. Other apps sharing the
    /// cache keep their tokens.
    public func remove(_ account: MSALAccount) throws {
        guard let homeAccountId = account.identifier else { return }
        let clientId = context.clientId
        do {
            try context.cache.modifyBlocking {
                $0.removeAccount(homeAccountId: homeAccountId, clientId: clientId)
            }
        } catch {
            throw MSALErrors.classify(error)
        }
    }

    private func accounts(matching query: AccountQuery) throws -> [MSALAccount] {
        let clientId = context.clientId
        do {
            return try context.cache.readBlocking { store in
                store.accounts(
                    clientId: clientId, familyId: store.familyId(clientId: clientId), environments: nil,
                    query: query)
            }.map(ResultBuilder.account)
        } catch {
            throw MSALErrors.classify(error)
        }
    }

    // MARK: Silent

    /// Gets a token without showing anything: from the cache, or by redeeming the account's
    /// refresh token.
    ///
    /// - Throws: -50002 (`interactionRequired`) when the user must sign in again: call
    ///   ``acquireToken(with:)``; -50003 when scopes were declined; `NSURLErrorDomain` errors when
    ///   the network failed; -50000 otherwise (see `MSALInternalErrorCodeKey`).
    public func acquireTokenSilent(with parameters: MSALSilentTokenParameters) async throws -> MSALResult {
        let values = parameters.shared.withLock { $0 }
        let request = SilentFlow.Request(
            scopes: values.scopes, account: values.account, loginHint: parameters.loginHint,
            authority: values.authority, claims: values.claimsRequest,
            correlationId: values.correlationId ?? CorrelationID.make(),
            extraQueryParameters: values.extraQueryParameters,
            forceRefresh: parameters.forceRefresh, resource: values.resourceIndicator)
        do {
            return try await SilentFlow(context: context).run(request)
        } catch {
            throw MSALErrors.classify(error, correlationId: request.correlationId)
        }
    }

    /// The completion-block form of ``acquireTokenSilent(with:)``. The block runs on
    /// ``MSALTokenParameters/completionBlockQueue`` when set, else on the thread that produced the
    /// result.
    public func acquireTokenSilent(
        with parameters: MSALSilentTokenParameters, completionBlock: @escaping MSALCompletionBlock
    ) {
        let queue = parameters.completionBlockQueue
        let box = CompletionBox(block: completionBlock)
        Task {
            do {
                let result = try await acquireTokenSilent(with: parameters)
                Self.complete(queue) { box.block(result, nil) }
            } catch {
                let nsError = error as NSError
                Self.complete(queue) { box.block(nil, nsError) }
            }
        }
    }

    /// Runs `block` on `queue`, or at once when `queue` is nil.
    static func complete(_ queue: DispatchQueue?, _ block: @escaping @Sendable () -> Void) {
        if let queue { queue.async(execute: block) } else { block() }
    }
}

extension MSALPublicClientApplication {
    /// Signs the user in interactively: the system browser with a loopback redirect (or your
    /// custom web view), authorization code with PKCE, then the tokens cached.
    ///
    /// - Throws: -50005 (`userCanceled`) when the user closed the browser or it timed out; -50003
    ///   when scopes were declined; -50000 with internal -42402 when another interactive sign-in
    ///   is running; `NSURLErrorDomain` errors for network failures.
    public func acquireToken(with parameters: MSALInteractiveTokenParameters) async throws -> MSALResult {
        let values = parameters.shared.withLock { $0 }
        let interactive = parameters.interactiveValues
        let request = InteractiveFlow.Request(
            scopes: values.scopes, extraScopesToConsent: interactive.extra ?? [], account: values.account,
            loginHint: interactive.loginHint, domainHint: interactive.domainHint, promptType: interactive.prompt,
            authority: values.authority, claims: values.claimsRequest,
            correlationId: values.correlationId ?? CorrelationID.make(),
            extraQueryParameters: values.extraQueryParameters, webview: parameters.webviewParameters.settings,
            resource: values.resourceIndicator)
        do {
            return try await InteractiveFlow(context: context).run(request)
        } catch {
            throw MSALErrors.classify(error, correlationId: request.correlationId)
        }
    }

    /// The completion-block form of ``acquireToken(with:)``. The block runs on
    /// ``MSALTokenParameters/completionBlockQueue`` when set, else on the main queue (as MSAL).
    public func acquireToken(
        with parameters: MSALInteractiveTokenParameters, completionBlock: @escaping MSALCompletionBlock
    ) {
        let queue = parameters.completionBlockQueue ?? .main
        let box = CompletionBox(block: completionBlock)
        Task {
            do {
                let result = try await acquireToken(with: parameters)
                Self.complete(queue) { box.block(result, nil) }
            } catch {
                let nsError = error as NSError
                Self.complete(queue) { box.block(nil, nsError) }
            }
        }
    }

    /// Completes the interactive sign-in in progress with `response`, the redirect URL your app
    /// received itself (a desktop app registered for its redirect URI's scheme).
    ///
    /// - Returns: `false` when `response` is not the redirect of the sign-in in progress.
    @discardableResult
    public static func handleMSALResponse(_ response: URL, sourceApplication: String?) -> Bool {
        WebAuthSessionCoordinator.shared.handle(url: response)
    }

    /// Cancels the interactive sign-in in progress; it fails with -50005 (`userCanceled`).
    ///
    /// - Returns: whether a sign-in was in progress.
    @discardableResult
    public static func cancelCurrentWebAuthSession() -> Bool {
        WebAuthSessionCoordinator.shared.cancelCurrent()
    }
}

extension MSALPublicClientApplication {
    /// Signs in with the device code flow: `deviceCodeCallback` receives the code and the page
    /// where the user enters it on any device; the call returns once the user finished. Cancel the
    /// task to stop waiting.
    ///
    /// - Throws: -50005 when the user declined or the task was cancelled; -50000 with internal
    ///   -42104 (`MSALOAuthErrorKey` `expired_token`) when the code expired.
    public func acquireTokenWithDeviceCode(
        parameters: MSALTokenParameters, deviceCodeCallback: @escaping MSALDeviceCodeCallback
    ) async throws -> MSALResult {
        let values = parameters.shared.withLock { $0 }
        let request = DeviceCodeFlow.Request(
            scopes: values.scopes, authority: values.authority, claims: values.claimsRequest,
            correlationId: values.correlationId ?? CorrelationID.make(),
            extraQueryParameters: values.extraQueryParameters, resource: values.resourceIndicator)
        do {
            return try await DeviceCodeFlow(context: context).run(request, callback: deviceCodeCallback)
        } catch {
            throw MSALErrors.classify(error, correlationId: request.correlationId)
        }
    }

    /// The completion-block form of ``acquireTokenWithDeviceCode(parameters:deviceCodeCallback:)``.
    public func acquireTokenWithDeviceCode(
        parameters: MSALTokenParameters, deviceCodeCallback: @escaping MSALDeviceCodeCallback,
        completionBlock: @escaping MSALCompletionBlock
    ) {
        let queue = parameters.completionBlockQueue
        let box = CompletionBox(block: completionBlock)
        Task {
            do {
                let result = try await acquireTokenWithDeviceCode(
                    parameters: parameters, deviceCodeCallback: deviceCodeCallback)
                Self.complete(queue) { box.block(result, nil) }
            } catch {
                let nsError = error as NSError
                Self.complete(queue) { box.block(nil, nsError) }
            }
        }
    }

    /// Imports a refresh token obtained elsewhere (for example from ADAL or another tool): it is
    /// redeemed for `scopes` at the configured authority, and the account and tokens are cached
    /// like any sign-in.
    public func acquireToken(byRefreshToken refreshToken: String, scopes: [String]) async throws -> MSALResult {
        let correlationId = UUID()
        do {
            return try await RefreshTokenImportFlow(context: context).run(
                refreshToken: refreshToken, scopes: scopes, authority: nil, correlationId: correlationId)
        } catch {
            throw MSALErrors.classify(error, correlationId: correlationId)
        }
    }

    /// The completion-block form of ``acquireToken(byRefreshToken:scopes:)``.
    public func acquireToken(
        byRefreshToken refreshToken: String, scopes: [String], completionBlock: @escaping MSALCompletionBlock
    ) {
        let box = CompletionBox(block: completionBlock)
        Task {
            do {
                box.block(try await acquireToken(byRefreshToken: refreshToken, scopes: scopes), nil)
            } catch {
                box.block(nil, error as NSError)
            }
        }
    }

    /// Signs `account` out: its tokens removed for this app (or, with the wipe options, for every
    /// app or the whole cache), then, with ``MSALSignoutParameters/signoutFromBrowser``, the
    /// browser session ended at the provider.
    public func signout(with account: MSALAccount, signoutParameters: MSALSignoutParameters) async throws {
        let correlationId = UUID()
        do {
            try await SignoutFlow(context: context).run(
                account: account, parameters: signoutParameters, correlationId: correlationId)
        } catch {
            throw MSALErrors.classify(error, correlationId: correlationId)
        }
    }

    /// The completion-block form of ``signout(with:signoutParameters:)``; the block runs on the main
    /// queue.
    public func signout(
        with account: MSALAccount, signoutParameters: MSALSignoutParameters,
        completionBlock: @escaping MSALSignoutCompletionBlock
    ) {
        let box = CompletionBox(block: completionBlock)
        Task {
            do {
                try await signout(with: account, signoutParameters: signoutParameters)
                Self.complete(.main) { box.block(true, nil) }
            } catch {
                let nsError = error as NSError
                Self.complete(.main) { box.block(false, nsError) }
            }
        }
    }
}

extension MSALPublicClientApplication {
    /// A corrupt cache file that this application moved aside: the cache path, the new path
    /// (`nil` when it could not be moved) and why the file was not a cache document.
    package struct CacheQuarantineNotice: Sendable, Equatable {
        package var path: String
        package var movedTo: String?
        package var reason: String
    }

    /// The corrupt cache files this application moved aside since the last call (each told once),
    /// for the `msal` tool to tell its user. Apps learn of them from the warning-level log line.
    package func takeCacheQuarantines() -> [CacheQuarantineNotice] {
        context.cache.takeQuarantines().map {
            CacheQuarantineNotice(path: $0.path, movedTo: $0.movedTo, reason: $0.reason)
        }
    }
}
