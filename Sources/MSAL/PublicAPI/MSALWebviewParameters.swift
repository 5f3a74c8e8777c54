public import Foundation
import MSALNative

/// How the sign-in pages of an interactive `acquireToken` are shown. Pass one to
/// `MSALInteractiveTokenParameters(scopes:webviewParameters:)`.
///
/// On Linux there is no view controller to present from, so the only initializer is ``init()``
/// (MSAL for iOS/macOS has `init(authPresentationViewController:)`). By default the system browser
/// opens the sign-in page and the redirect comes back to a loopback listener on
/// `http://localhost:<port>` (RFC 8252 §7.3); set ``customWebview`` to show the pages in the
/// app's own UI or to drive them from a test. See `Docs/WebViews.md`.
///
/// The token parameters keep a copy of these settings when `acquireToken` starts; changing them
/// later affects only later calls.
public final class MSALWebviewParameters: Sendable {
    private let values = Locked(WebviewSettings())

    /// Settings for the system browser and a loopback redirect: ``MSALWebviewType/default``, no
    /// custom web view, a 600-second wait for the browser to come back.
    public init() {}

    /// Which user agent shows the sign-in pages. Default ``MSALWebviewType/default``: the custom
    /// web view when one is set, else the system browser.
    public var webviewType: MSALWebviewType {
        get { values.withLock { $0.webviewType } }
        set { values.withLock { $0.webviewType = newValue } }
    }

    /// The app's own web view: used with ``MSALWebviewType/wkWebView`` (where it is required) and
    /// ``MSALWebviewType/default``; ignored with ``MSALWebviewType/authenticationSession``.
    public var customWebview: (any MSALWebviewProvider)? {
        get { values.withLock { $0.customWebview } }
        set { values.withLock { $0.customWebview = newValue } }
    }

    /// Kept for source compatibility with MSAL for iOS/macOS. On Linux the system browser always
    /// uses the user's browser profile (its cookies give single sign-on); a custom web view decides
    /// for itself whether it keeps cookies. Default `false`.
    public var prefersEphemeralWebBrowserSession: Bool {
        get { values.withLock { $0.prefersEphemeralWebBrowserSession } }
        set { values.withLock { $0.prefersEphemeralWebBrowserSession = newValue } }
    }

    /// How long, in seconds, to wait for the browser to come back to the loopback redirect URI
    /// before `acquireToken` fails with ``MSALError/userCanceled`` (the user most likely closed the
    /// tab). Default 600; values below 1 are raised to 1. Applies to the system browser only.
    public var loopbackTimeout: TimeInterval {
        get { values.withLock { $0.loopbackTimeout } }
        set { values.withLock { $0.loopbackTimeout = max(1, newValue.isFinite ? newValue : 600) } }
    }

    /// The text of the page the loopback listener shows in the browser after a successful
    /// redirect. Plain text (HTML is escaped). Default: "Sign-in complete. You can close this
    /// window and return to the application."
    public var successPageMessage: String {
        get { values.withLock { $0.successPageMessage } }
        set { values.withLock { $0.successPageMessage = newValue } }
    }

    /// The text of the page the loopback listener shows in the browser when the identity provider
    /// redirected with an error. Plain text (HTML is escaped); the error itself is reported to the
    /// app, not shown in the page. Default: "Sign-in failed. Return to the application for details."
    public var errorPageMessage: String {
        get { values.withLock { $0.errorPageMessage } }
        set { values.withLock { $0.errorPageMessage = newValue } }
    }

    /// The command that opens the system browser, instead of `$BROWSER` and then `xdg-open`. Same
    /// syntax as `$BROWSER`: one or more commands separated by `:`, tried in order; `%s` stands for
    /// the URL (appended when absent); words are split on spaces (quotes group), never run by a
    /// shell. Default `nil`.
    public var browserCommand: String? {
        get { values.withLock { $0.browserCommand } }
        set { values.withLock { $0.browserCommand = newValue } }
    }

    /// A copy of the current settings, taken when a request starts.
    var settings: WebviewSettings {
        values.withLock { $0 }
    }
}
