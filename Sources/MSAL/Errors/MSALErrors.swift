import Foundation

/// The one place that creates the errors the library hands to apps.
///
/// Every error is a real `NSError` instance (`NSError(domain:code:userInfo:)`): on Linux,
/// `catch let error as NSError`, `as? NSError` and `is NSError` match only real instances, not
/// Swift errors bridged on the fly. Errors are classified by default (see ``classify(_:correlationId:)``),
/// so whatever layer creates an error, the app sees MSAL's public shape.
///
/// ```swift
/// throw MSALErrors.make(.internalErrorInvalidParameter, "The scopes are empty. Pass at least one scope.",
///                       ErrorDetails(correlationId: correlationId))
/// ```
enum MSALErrors {
    /// An error in ``MSALErrorDomain`` for a top-level code.
    ///
    /// - Parameters:
    ///   - code: the mapped code, before classification.
    ///   - message: for developers, in English: what was wrong and what to do. Never a token,
    ///     code or password. Stored as it is under ``MSALErrorDescriptionKey``, and under
    ///     `NSLocalizedDescriptionKey` with control characters escaped (``TerminalText``): it may
    ///     quote a server's text, and apps print `localizedDescription` to terminals and logs.
    ///   - details: the optional `userInfo` facts.
    ///   - classify: `false` keeps `code` at the top level (only for tests and for converting later).
    static func make(
        _ code: MSALError, _ message: String, _ details: ErrorDetails = ErrorDetails(), classify: Bool = true
    ) -> NSError {
        make(.msal(code), message, details, classify: classify)
    }

    /// An error in ``MSALErrorDomain`` for a detailed code; after classification it is reported as
    /// ``MSALError/internal`` with `code` under ``MSALInternalErrorCodeKey``.
    static func make(
        _ code: MSALInternalError, _ message: String, _ details: ErrorDetails = ErrorDetails(), classify: Bool = true
    ) -> NSError {
        make(.msalInternal(code), message, details, classify: classify)
    }

    /// An error in ``MSALErrorDomain`` for a mapped code, such as the one
    /// ``OAuthErrorMapping/code(forOAuthError:subError:stsErrorCodes:endpoint:)`` returns.
    static func make(
        _ code: ErrorCode, _ message: String, _ details: ErrorDetails = ErrorDetails(), classify: Bool = true
    ) -> NSError {
        var userInfo = details.userInfo()
        userInfo[NSLocalizedDescriptionKey] = TerminalText.escaped(message, keepingLineFeeds: true)
        userInfo[MSALErrorDescriptionKey] = message
        let error = NSError(domain: MSALErrorDomain, code: code.rawValue, userInfo: userInfo)
        return classify ? self.classify(error) : error
    }

    /// A copy of `error` with more `userInfo` entries (replacing entries with the same key), for
    /// facts known only later, such as the rejected result under ``MSALInvalidResultKey``.
    static func adding(_ entries: [String: Any], to error: NSError) -> NSError {
        var userInfo = error.userInfo
        userInfo.merge(entries) { _, new in new }
        return NSError(domain: error.domain, code: error.code, userInfo: userInfo)
    }
}
