/// Which user agent shows the sign-in pages. The names and raw values are those of MSAL for
/// macOS, so samples written for it compile unchanged; on Linux they mean:
///
/// | case | on Linux |
/// |---|---|
/// | ``default`` | the ``MSALWebviewParameters/customWebview`` when one is set, else the system browser |
/// | ``authenticationSession`` | always the system browser (a custom web view is ignored) |
/// | ``wkWebView`` | the ``MSALWebviewParameters/customWebview`` you set (required) |
///
/// The system browser is opened with `$BROWSER` (or `xdg-open`) and the redirect is received on a
/// loopback listener (`http://localhost:<port>`, RFC 8252 §7.3). iOS's `safariViewController`
/// has no Linux counterpart and does not exist here.
public enum MSALWebviewType: Int, Sendable, CaseIterable {
    /// The custom web view when one is set, else the system browser with a loopback redirect.
    case `default` = 0
    /// The system browser with a loopback redirect, even when a custom web view is set: the Linux
    /// counterpart of `ASWebAuthenticationSession` (the user's browser, with its cookies and SSO).
    case authenticationSession = 1
    /// The app's own web view, set in ``MSALWebviewParameters/customWebview``: any type conforming
    /// to ``MSALWebviewProvider`` (an embedded UI, a test driver, a headless automation).
    /// Acquiring a token fails with ``MSALError/internal`` (-42000) when none is set.
    case wkWebView = 2
}
