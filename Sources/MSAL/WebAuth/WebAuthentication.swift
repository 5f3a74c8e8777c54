import Foundation
import MSALNative

/// One interactive web authentication, from reserving the session to the checked redirect: what
/// the interactive flow calls.
///
/// ```swift
/// let web = try WebAuthentication(
///     settings: parameters.webviewParameters.settings, configuredRedirectURI: config.redirectUri,
///     correlationId: correlationId)                       // -42402, -42011, port in use
/// var request = try AuthorizationRequest(
///     authorizeEndpoint: endpoint, clientId: clientId, redirectURI: web.redirectURI,
///     scope: scopes, correlationId: correlationId)
/// request.loginHint = ...
/// let response = try await web.authorize(request)        // opens, waits, parses, checks state
/// // redeem response.code with request.pkce.verifier and web.redirectURI
/// ```
///
/// Creating it reserves the process's one interactive session and, for the system browser, binds
/// the loopback port; ``authorize(_:)`` (or ``authorize(startURL:)``) runs once and releases both.
/// A value dropped without running releases them too (or call ``abandon()``).
final class WebAuthentication: Sendable {
    /// The redirect URI to send in the authorize and token requests (for a loopback redirect
    /// without a port, with the port just bound).
    let redirectURI: String
    /// The validated redirect URI as configured.
    let redirect: RedirectURI
    /// Whether the system browser (with a loopback listener) is used rather than a custom web view.
    let usesSystemBrowser: Bool
    let correlationId: UUID
    private let session: WebAuthSession
    private let provider: any MSALWebviewProvider
    private let listener: LoopbackRedirectListener?
    private let used = Locked(false)

    /// Reserves the session, validates the redirect URI and prepares the user agent.
    ///
    /// - Parameters:
    ///   - settings: the web view parameters' snapshot.
    ///   - configuredRedirectURI: the app's redirect URI (`nil`: `http://localhost`).
    ///   - environment: where `$BROWSER` and `PATH` are read (tests pass their own).
    ///   - coordinator: the session coordinator (tests pass their own).
    /// - Throws: -50000 + -42000 (`wkWebView` without a custom web view), -42011 (invalid redirect
    ///   URI), -42402 (another session in progress), -50000 when the loopback port cannot be bound.
    init(
        settings: WebviewSettings,
        configuredRedirectURI: String?,
        correlationId: UUID,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        coordinator: WebAuthSessionCoordinator = .shared
    ) throws {
        let userAgent = try settings.userAgent(correlationId: correlationId)
        var custom: (any MSALWebviewProvider)?
        if case .custom(let provider) = userAgent { custom = provider }
        let redirect = try RedirectURI(
            validating: configuredRedirectURI, customWebview: custom != nil, correlationId: correlationId)
        let session = try coordinator.begin(redirectURI: redirect, correlationId: correlationId)
        self.redirect = redirect
        self.correlationId = correlationId
        self.session = session
        if let custom {
            provider = custom
            listener = nil
            redirectURI = redirect.string
            usesSystemBrowser = false
        } else {
            let listener: LoopbackRedirectListener
            do {
                listener = try LoopbackRedirectListener(
                    redirect: redirect,
                    pages: .init(successMessage: settings.successPageMessage, errorMessage: settings.errorPageMessage),
                    correlationId: correlationId)
            } catch {
                session.end()
                throw error
            }
            session.setLoopbackPort(listener.port)
            self.listener = listener
            provider = SystemBrowserWebview(
                listener: listener,
                browser: SystemBrowser(browserCommand: settings.browserCommand, environment: environment),
                timeout: settings.loopbackTimeout, correlationId: correlationId)
            redirectURI = listener.redirectURI
            usesSystemBrowser = true
        }
    }

    deinit {
        abandon()
    }

    /// Releases the session and the loopback port without running (the request could not be built).
    func abandon() {
        listener?.close()
        session.end()
    }

    /// Shows `request`'s authorize URL and checks the redirect.
    ///
    /// - Returns: the code and the other facts of the redirect.
    /// - Throws: the errors of ``authorize(startURL:)`` and of ``AuthorizationResponse/init(url:request:)``.
    func authorize(_ request: AuthorizationRequest) async throws -> AuthorizationResponse {
        let url = try await authorize(startURL: request.url())
        return try AuthorizationResponse(url: url, request: request)
    }

    /// Shows `startURL` in the user agent and returns the redirect URL, posting the web-auth
    /// notifications. Runs once.
    ///
    /// - Throws: ``MSALError/userCanceled`` (closed, timed out, cancelled, or the server's
    ///   `access_denied` is reported later by the response parser); -50000 when the browser could not be
    ///   opened or the custom web view failed; -50000 + -42600 when the user agent returned a URL that
    ///   is not the redirect URI.
    func authorize(startURL: URL) async throws -> URL {
        defer { abandon() }
        let firstRun = used.withLock { used in
            defer { used = true }
            return !used
        }
        guard firstRun else {
            throw MSALErrors.make(
                .internal, "A web authentication runs only once; prepare a new one for another sign-in.",
                ErrorDetails(correlationId: correlationId))
        }
        Log.info("Starting web authentication: \(redacting: startURL)", correlationId: correlationId)
        WebAuthNotifier.didStartLoad(startURL)
        let provider = provider
        let redirectURI = redirectURI
        let correlationId = correlationId
        let result = await session.run {
            do {
                return .success(try await provider.authorize(startURL: startURL, redirectURIPrefix: redirectURI))
            } catch {
                return .failure(Self.userAgentError(error, correlationId: correlationId))
            }
        }
        switch result {
        case .success(let url):
            guard redirect.matches(url, port: listener?.port) else {
                let error = MSALErrors.make(
                    .internalErrorInvalidResponse,
                    "The web view returned '\(Redaction.url(url))', which is not a redirect to '\(redirectURI)'. "
                        + "Return the first URL that starts with the redirect URI prefix.",
                    ErrorDetails(correlationId: correlationId))
                WebAuthNotifier.didFail(error)
                throw error
            }
            Log.info("Web authentication returned to the redirect URI.", correlationId: correlationId)
            WebAuthNotifier.didFinishLoad(url)
            WebAuthNotifier.didComplete(url)
            return url
        case .failure(let error):
            Log.warning("Web authentication failed: \(error.localizedDescription)", correlationId: correlationId)
            WebAuthNotifier.didFail(error)
            throw error
        }
    }

    /// The error reported for what a user agent threw: `CancellationError` → ``MSALError/userCanceled``;
    /// `NSError`s in ``MSALErrorDomain`` or `NSURLErrorDomain` as they are (classified); anything else
    /// → -50000 with it underlying.
    static func userAgentError(_ error: any Error, correlationId: UUID?) -> NSError {
        if error is CancellationError {
            return MSALErrors.make(
                .userCanceled, "The web view was cancelled before it reached the redirect URI.",
                ErrorDetails(correlationId: correlationId))
        }
        let bridged = error as NSError
        if bridged.domain == MSALErrorDomain || bridged.domain == NSURLErrorDomain {
            return MSALErrors.classify(error, correlationId: correlationId)
        }
        // The web view's own error goes underneath as it is (a plain NSError for a Swift error), not
        // classified as a library failure.
        let description = Redaction.text(String(describing: error))
        let underlying =
            (error as AnyObject) is NSError
            ? bridged
            : NSError(
                domain: bridged.domain, code: bridged.code,
                userInfo: bridged.userInfo.merging([NSLocalizedDescriptionKey: description]) { _, new in new })
        return MSALErrors.make(
            .internal, "The custom web view failed: \(description). Its error is under NSUnderlyingErrorKey.",
            ErrorDetails(correlationId: correlationId, extra: [NSUnderlyingErrorKey: underlying]))
    }
}
