public import Foundation

/// A web view the app supplies to show the sign-in pages: the Linux counterpart of giving MSAL a
/// `WKWebView`. Set it in ``MSALWebviewParameters/customWebview``.
///
/// The library calls ``authorize(startURL:redirectURIPrefix:)`` with the authorize URL; the web view
/// loads it, lets the user (or a script) sign in, follows redirects, and returns the first URL that
/// starts with `redirectURIPrefix`, without loading it. The library checks that URL (redirect URI,
/// `state`, errors) and redeems the code.
///
/// ```swift
/// struct EmbeddedSignIn: MSALWebviewProvider {
///     func authorize(startURL: URL, redirectURIPrefix: String) async throws -> URL {
///         try await myWindow.showSignIn(startURL) { url in url.absoluteString.hasPrefix(redirectURIPrefix) }
///     }
/// }
/// let webviewParameters = MSALWebviewParameters()
/// webviewParameters.webviewType = .wkWebView
/// webviewParameters.customWebview = EmbeddedSignIn()
/// ```
///
/// Cancelling: throw `CancellationError` (the user closed the window) and `acquireToken` fails with
/// ``MSALError/userCanceled``. The library cancels the calling task when the app calls
/// `cancelCurrentWebAuthSession()`, when the redirect arrives through `handleMSALResponse`, or when
/// the caller's task is cancelled: stop and return (throw) promptly then, because the next
/// interactive session starts only after this call has returned.
///
/// Errors: an `NSError` in ``MSALErrorDomain`` or `NSURLErrorDomain` is reported as it is (for
/// example `MSALErrors` you received, or `URLError(.notConnectedToInternet)` when the page could not
/// load); any other error is reported as ``MSALError/internal`` with it under `NSUnderlyingErrorKey`.
public protocol MSALWebviewProvider: Sendable {
    /// Shows `startURL` and returns the URL that the sign-in redirected to.
    ///
    /// - Parameters:
    ///   - startURL: the authorize URL to load (https, carrying `state`, PKCE and the redirect URI).
    ///   - redirectURIPrefix: the redirect URI of the request, such as `http://localhost:53117` or
    ///     `myapp://auth`; the first navigation to a URL starting with it ends the sign-in.
    /// - Returns: that URL, with its query and fragment (`code`, `state` or `error`).
    /// - Throws: `CancellationError` when the user closed the web view; any other error when the
    ///   page could not be shown.
    func authorize(startURL: URL, redirectURIPrefix: String) async throws -> URL
}
