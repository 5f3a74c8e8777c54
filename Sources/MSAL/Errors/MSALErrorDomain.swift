// The error domain and the userInfo keys of every error the library reports. Each key's value
// equals its identifier, as in MSAL for iOS/macOS, so code that reads `userInfo` keeps working.

/// The domain of errors produced by the library itself. Network failures keep
/// `NSURLErrorDomain`; compare `error.domain` with this constant before reading ``MSALError``.
public let MSALErrorDomain = "MSALErrorDomain"

/// The OAuth `error` string the server returned (for example `invalid_grant`); use it for
/// diagnostics, and the error code for decisions.
public let MSALOAuthErrorKey = "MSALOAuthErrorKey"

/// The server's `suberror` (for example `basic_action`, `consent_required`); present only when
/// the server sent one. Log it; the error code already says what to do.
public let MSALOAuthSubErrorKey = "MSALOAuthSubErrorKey"

/// A human-readable description of the server's suberror, when the server sent one.
public let MSALOAuthSubErrorDescriptionKey = "MSALOAuthSubErrorDescriptionKey"

/// The developer-facing explanation of the error. Log it; do not show it to end users and do not
/// branch on its text, which may change.
public let MSALErrorDescriptionKey = "MSALErrorDescriptionKey"

/// The server's `error_codes` array (`[Int]`, for example `[50076]`), for diagnostics and support
/// requests.
public let MSALSTSErrorCodesKey = "MSALSTSErrorCodesKey"

/// The detailed ``MSALInternalError`` raw value (an `Int`) of an ``MSALError/internal`` error; log it
/// and show a generic failure to the user.
public let MSALInternalErrorCodeKey = "MSALInternalErrorCodeKey"

/// The HTTP response headers (`[String: String]`) of the failed request, when there was one.
public let MSALHTTPHeadersKey = "MSALHTTPHeadersKey"

/// The HTTP status code of the failed request as a `String` (for example `"404"`).
public let MSALHTTPResponseCodeKey = "MSALHTTPResponseCodeKey"

/// The correlation id (a UUID string) of the request that failed; quote it when asking for support.
public let MSALCorrelationIDKey = "MSALCorrelationIDKey"

/// The scopes (`[String]`) the server declined in an ``MSALError/serverDeclinedScopes`` error.
public let MSALDeclinedScopesKey = "MSALDeclinedScopesKey"

/// The scopes (`[String]`) the server granted in an ``MSALError/serverDeclinedScopes`` error; retry
/// with exactly these to get a token.
public let MSALGrantedScopesKey = "MSALGrantedScopesKey"

/// The result that was obtained but rejected (for example for declined scopes); use its token only
/// if the granted scopes are enough for your call.
public let MSALInvalidResultKey = "MSALInvalidResultKey"

/// The displayable user id (user name) the error refers to, for example in a protection policy
/// error; pass it to the compliance remediation.
public let MSALDisplayableUserIdKey = "MSALDisplayableUserIdKey"

/// The version of the authentication broker that produced the error. Not set on Linux (the Linux
/// broker's errors carry ``MSALBrokerStatusKey``); kept so code written for MSAL compiles.
public let MSALBrokerVersionKey = "MSALBrokerVersionKey"

/// The status the Linux broker gave for a failure (`InteractionRequired`, `UserCanceled`, ...),
/// with its sub-status after a colon when it gave one. Ours; MSAL for iOS has no such key.
public let MSALBrokerStatusKey = "MSALBrokerStatusKey"

/// The home account id the error refers to, for example in a protection policy error.
public let MSALHomeAccountIdKey = "MSALHomeAccountIdKey"

/// `1` (an `NSNumber`) when the error was answered from the client-side throttling cache without a
/// network request; wait before sending the same request again.
public let MSALThrottlingCacheHitKey = "MSALThrottlingCacheHitKey"

/// On a -50002 error from
/// ``MSALPublicClientApplication/acquireToken(forChallenge:with:)``: the claims JSON of the
/// resource's challenge (a `String`), to pass to the interactive call through
/// ``MSALClaimsRequest/init(jsonString:)``. Absent when the challenge had no claims. Ours.
public let MSALClaimsChallengeKey = "MSALClaimsChallengeKey"
