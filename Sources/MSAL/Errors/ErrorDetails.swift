import Foundation

/// The optional facts an error carries in its `userInfo`, each under the key MSAL for iOS/macOS
/// uses. Every field left `nil` is simply not added.
struct ErrorDetails {
    /// The OAuth `error` string, under ``MSALOAuthErrorKey``.
    var oauthError: String?
    /// The server's `suberror`, under ``MSALOAuthSubErrorKey``.
    var subError: String?
    /// The description of the suberror, under ``MSALOAuthSubErrorDescriptionKey``.
    var subErrorDescription: String?
    /// The server's `error_codes`, under ``MSALSTSErrorCodesKey``.
    var stsErrorCodes: [Int]?
    /// The HTTP status, stored as a string (`"404"`) under ``MSALHTTPResponseCodeKey``.
    var httpStatusCode: Int?
    /// The HTTP response headers, under ``MSALHTTPHeadersKey``.
    var httpHeaders: [String: String]?
    /// The request's correlation id, stored as its UUID string under ``MSALCorrelationIDKey``.
    var correlationId: UUID?
    /// The cause, under `NSUnderlyingErrorKey` (converted to a real `NSError`).
    var underlyingError: (any Error)?
    /// Granted scopes, under ``MSALGrantedScopesKey``.
    var grantedScopes: [String]?
    /// Declined scopes, under ``MSALDeclinedScopesKey``.
    var declinedScopes: [String]?
    /// The rejected result, under ``MSALInvalidResultKey``.
    var invalidResult: Any?
    /// The user name the error refers to, under ``MSALDisplayableUserIdKey``.
    var displayableUserId: String?
    /// The home account id the error refers to, under ``MSALHomeAccountIdKey``.
    var homeAccountId: String?
    /// `true` when the error was answered by client-side throttling (``MSALThrottlingCacheHitKey`` = 1).
    var throttled = false
    /// Further entries, copied as they are (they never replace the entries above).
    var extra: [String: Any] = [:]

    init(
        oauthError: String? = nil,
        subError: String? = nil,
        subErrorDescription: String? = nil,
        stsErrorCodes: [Int]? = nil,
        httpStatusCode: Int? = nil,
        httpHeaders: [String: String]? = nil,
        correlationId: UUID? = nil,
        underlyingError: (any Error)? = nil,
        grantedScopes: [String]? = nil,
        declinedScopes: [String]? = nil,
        invalidResult: Any? = nil,
        displayableUserId: String? = nil,
        homeAccountId: String? = nil,
        throttled: Bool = false,
        extra: [String: Any] = [:]
    ) {
        self.oauthError = oauthError
        self.subError = subError
        self.subErrorDescription = subErrorDescription
        self.stsErrorCodes = stsErrorCodes
        self.httpStatusCode = httpStatusCode
        self.httpHeaders = httpHeaders
        self.correlationId = correlationId
        self.underlyingError = underlyingError
        self.grantedScopes = grantedScopes
        self.declinedScopes = declinedScopes
        self.invalidResult = invalidResult
        self.displayableUserId = displayableUserId
        self.homeAccountId = homeAccountId
        self.throttled = throttled
        self.extra = extra
    }

    /// The `userInfo` entries for these details (without the description keys).
    func userInfo() -> [String: Any] {
        var info = extra
        if let oauthError { info[MSALOAuthErrorKey] = oauthError }
        if let subError { info[MSALOAuthSubErrorKey] = subError }
        if let subErrorDescription { info[MSALOAuthSubErrorDescriptionKey] = subErrorDescription }
        if let stsErrorCodes { info[MSALSTSErrorCodesKey] = stsErrorCodes }
        if let httpStatusCode { info[MSALHTTPResponseCodeKey] = String(httpStatusCode) }
        if let httpHeaders { info[MSALHTTPHeadersKey] = httpHeaders }
        if let correlationId { info[MSALCorrelationIDKey] = correlationId.uuidString }
        if let underlyingError { info[NSUnderlyingErrorKey] = MSALErrors.classify(underlyingError) }
        if let grantedScopes { info[MSALGrantedScopesKey] = grantedScopes }
        if let declinedScopes { info[MSALDeclinedScopesKey] = declinedScopes }
        if let invalidResult { info[MSALInvalidResultKey] = invalidResult }
        if let displayableUserId { info[MSALDisplayableUserIdKey] = displayableUserId }
        if let homeAccountId { info[MSALHomeAccountIdKey] = homeAccountId }
        if throttled { info[MSALThrottlingCacheHitKey] = NSNumber(value: 1) }
        return info
    }
}
