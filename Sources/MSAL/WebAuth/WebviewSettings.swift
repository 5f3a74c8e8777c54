import Foundation

/// A snapshot of ``MSALWebviewParameters``, taken when an interactive request starts.
struct WebviewSettings: Sendable {
    static let defaultLoopbackTimeout: TimeInterval = 600
    static let defaultSuccessPageMessage =
        "Sign-in complete. You can close this window and return to the application."
    static let defaultErrorPageMessage = "Sign-in failed. Return to the application for details."

    var webviewType = MSALWebviewType.default
    var customWebview: (any MSALWebviewProvider)?
    var prefersEphemeralWebBrowserSession = false
    var loopbackTimeout = Self.defaultLoopbackTimeout
    var successPageMessage = Self.defaultSuccessPageMessage
    var errorPageMessage = Self.defaultErrorPageMessage
    var browserCommand: String?

    /// Which user agent these settings select.
    enum UserAgent {
        case systemBrowser
        case custom(any MSALWebviewProvider)
    }

    /// The user agent: ``MSALWebviewType/authenticationSession`` always picks the system browser,
    /// ``MSALWebviewType/wkWebView`` requires the custom web view, ``MSALWebviewType/default`` uses
    /// it when set.
    ///
    /// - Throws: -50000 + -42000 for ``MSALWebviewType/wkWebView`` without a custom web view.
    func userAgent(correlationId: UUID? = nil) throws -> UserAgent {
        switch webviewType {
        case .authenticationSession:
            if customWebview != nil {
                Log.info(
                    "webviewType is authenticationSession: the system browser is used and customWebview is ignored.",
                    correlationId: correlationId)
            }
            return .systemBrowser
        case .default:
            return customWebview.map(UserAgent.custom) ?? .systemBrowser
        case .wkWebView:
            guard let customWebview else {
                throw MSALErrors.make(
                    .internalErrorInvalidParameter,
                    "webviewType is wkWebView but customWebview is nil. On Linux, wkWebView means \"the custom web "
                        + "view you set\": set MSALWebviewParameters.customWebview to an MSALWebviewProvider, or use "
                        + "webviewType .default to sign in with the system browser.",
                    ErrorDetails(correlationId: correlationId))
            }
            return .custom(customWebview)
        }
    }
}
