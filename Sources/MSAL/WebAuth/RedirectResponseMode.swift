import Foundation

/// How the authorization server hands the authorization code back to the redirect URI: the
/// authorize request's `response_mode`.
///
/// - ``query``: a redirect whose URL carries `code` and `state` (RFC 6749 §4.1.2), so the code
///   passes through the browser's address bar and history.
/// - ``formPost``: an HTML page whose form the browser POSTs to the redirect URI, the parameters
///   in an `application/x-www-form-urlencoded` body (OAuth 2.0 Form Post Response Mode), so the
///   code never appears in a URL. Only the loopback listener can read a POST body.
enum RedirectResponseMode: String, Sendable, CaseIterable {
    case query
    case formPost = "form_post"

    /// The `response_mode` value sent.
    var wireValue: String { rawValue }

    /// The mode a start URL asks for: its `response_mode` parameter (`query` when absent or
    /// another value, which the loopback listener cannot receive differently).
    init(startURL: URL) {
        let value = URLComponents(url: startURL, resolvingAgainstBaseURL: false)?
            .queryItems?.first { $0.name == "response_mode" }?.value
        self = value.flatMap(RedirectResponseMode.init(rawValue:)) ?? .query
    }

    /// The mode for one interactive sign-in.
    ///
    /// - Parameters:
    ///   - supportedByServer: the OpenID configuration's `response_modes_supported` (`nil` when
    ///     the document has none; OpenID Connect Discovery then means `query` and `fragment`).
    ///   - systemBrowser: whether the redirect comes back to the loopback listener; a custom web
    ///     view only sees redirect URLs, never a POST body.
    /// - Returns: ``formPost`` for the system browser when the server lists `form_post`; else ``query``.
    static func choose(supportedByServer: [String]?, systemBrowser: Bool) -> RedirectResponseMode {
        guard systemBrowser, let modes = supportedByServer, modes.contains(formPost.wireValue) else {
            return .query
        }
        return .formPost
    }
}
