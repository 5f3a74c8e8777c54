public import Foundation

/// A typed view of an error the library returned: its codes and the `userInfo` entries MSAL
/// defines, read without casts.
///
/// ```swift
/// let info = MSALErrorInfo(error)
/// if info.msalError == .serverDeclinedScopes, let granted = info.grantedScopes { ... }
/// ```
///
/// The error itself stays a real `NSError`, so `error as NSError`, `catch let error as NSError`
/// and `userInfo[MSALGrantedScopesKey]` work as with MSAL for iOS/macOS.
public struct MSALErrorInfo: Sendable, Hashable {
    /// The error's domain: ``MSALErrorDomain``, or for example `NSURLErrorDomain` for network failures.
    public let domain: String
    /// The error's code in its domain.
    public let code: Int
    /// The top-level code when the domain is ``MSALErrorDomain`` and the code is known; branch on it.
    public let msalError: MSALError?
    /// The detailed code under ``MSALInternalErrorCodeKey`` as a raw value (it can also be an
    /// ``MSALError`` raw value such as -50006 for a server error). Log it.
    public let internalCodeValue: Int?
    /// ``internalCodeValue`` as an ``MSALInternalError``, when it is one.
    public let internalCode: MSALInternalError?
    /// The OAuth `error` the server returned (``MSALOAuthErrorKey``).
    public let oauthError: String?
    /// The server's `suberror` (``MSALOAuthSubErrorKey``).
    public let subError: String?
    /// The suberror's description (``MSALOAuthSubErrorDescriptionKey``).
    public let subErrorDescription: String?
    /// The developer-facing description (``MSALErrorDescriptionKey``, else `localizedDescription`).
    public let errorDescription: String?
    /// The correlation id of the failed request (``MSALCorrelationIDKey``); quote it for support.
    public let correlationId: UUID?
    /// The granted scopes of a declined-scopes error (``MSALGrantedScopesKey``).
    public let grantedScopes: [String]?
    /// The declined scopes of a declined-scopes error (``MSALDeclinedScopesKey``).
    public let declinedScopes: [String]?
    /// The HTTP status of the failed request (from the string under ``MSALHTTPResponseCodeKey``).
    public let httpStatusCode: Int?
    /// The HTTP response headers (``MSALHTTPHeadersKey``).
    public let httpHeaders: [String: String]?
    /// The server's `error_codes` (``MSALSTSErrorCodesKey``).
    public let stsErrorCodes: [Int]?
    /// The user name the error refers to (``MSALDisplayableUserIdKey``).
    public let displayableUserId: String?
    /// The home account id the error refers to (``MSALHomeAccountIdKey``).
    public let homeAccountId: String?
    /// `true` when the error came from client-side throttling (``MSALThrottlingCacheHitKey``);
    /// wait before sending the same request again.
    public let isThrottled: Bool

    /// Reads an error. Any error works: a Swift error that is not an `NSError` is read through its
    /// bridged domain and code.
    public init(_ error: any Error) {
        let nsError = error as NSError
        let userInfo = nsError.userInfo
        domain = nsError.domain
        code = nsError.code
        msalError = domain == MSALErrorDomain ? MSALError(rawValue: code) : nil
        internalCodeValue = Self.intValue(userInfo[MSALInternalErrorCodeKey])
        internalCode = internalCodeValue.flatMap(MSALInternalError.init(rawValue:))
        oauthError = userInfo[MSALOAuthErrorKey] as? String
        subError = userInfo[MSALOAuthSubErrorKey] as? String
        subErrorDescription = userInfo[MSALOAuthSubErrorDescriptionKey] as? String
        errorDescription =
            (userInfo[MSALErrorDescriptionKey] as? String) ?? (userInfo[NSLocalizedDescriptionKey] as? String)
        correlationId =
            (userInfo[MSALCorrelationIDKey] as? String).flatMap(UUID.init(uuidString:))
            ?? (userInfo[MSALCorrelationIDKey] as? UUID)
        grantedScopes = Self.strings(userInfo[MSALGrantedScopesKey])
        declinedScopes = Self.strings(userInfo[MSALDeclinedScopesKey])
        httpStatusCode = Self.intValue(userInfo[MSALHTTPResponseCodeKey])
        httpHeaders = Self.headers(userInfo[MSALHTTPHeadersKey])
        stsErrorCodes = (userInfo[MSALSTSErrorCodesKey] as? [Any]).map { $0.compactMap(Self.intValue) }
        displayableUserId = userInfo[MSALDisplayableUserIdKey] as? String
        homeAccountId = userInfo[MSALHomeAccountIdKey] as? String
        isThrottled = (Self.intValue(userInfo[MSALThrottlingCacheHitKey]) ?? 0) != 0
    }

    /// An integer stored as `Int`, `NSNumber` or a decimal string.
    static func intValue(_ value: Any?) -> Int? {
        switch value {
        case let value as Int: value
        case let value as NSNumber: value.intValue
        case let value as String: Int(value.trimmingCharacters(in: .whitespaces))
        default: nil
        }
    }

    private static func strings(_ value: Any?) -> [String]? {
        if let strings = value as? [String] { return strings }
        if let set = value as? Set<String> { return set.sorted() }
        return (value as? [Any]).map { $0.compactMap { $0 as? String } }
    }

    private static func headers(_ value: Any?) -> [String: String]? {
        if let headers = value as? [String: String] { return headers }
        guard let dictionary = value as? [String: Any] else { return nil }
        return dictionary.compactMapValues { $0 as? String }
    }
}
