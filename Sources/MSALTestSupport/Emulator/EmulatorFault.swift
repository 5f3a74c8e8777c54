public import Foundation
import MSALNative

/// A misbehaviour injected for the next requests to an endpoint with
/// ``EntraEmulator/inject(_:at:count:grantType:)``: an HTTP status, throttling, a slow or dropped
/// connection, an Entra error, fewer scopes than asked, or the real answer rewritten into a
/// hostile one (``rewriteFields(_:)``, ``alterIDToken(_:)``).
public enum EmulatorFault: Sendable, Hashable {
    /// When a throttled client may come back.
    public enum RetryAfter: Sendable, Hashable {
        /// `Retry-After: <seconds>`.
        case seconds(Int)
        /// `Retry-After: <HTTP-date>`.
        case date(Date)

        /// The header value.
        public var headerValue: String {
            switch self {
            case .seconds(let seconds):
                return String(seconds)
            case .date(let date):
                let formatter = DateFormatter()
                formatter.locale = Locale(identifier: "en_US_POSIX")
                formatter.timeZone = TimeZone(identifier: "GMT")
                formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
                return formatter.string(from: date)
            }
        }
    }

    // MARK: Hostile answers: the real answer, rewritten

    /// Answers normally, then rewrites top-level members of the answer's JSON object body (at any
    /// endpoint: token, device code, discovery...). Each value is raw JSON text spliced in as
    /// given, so a test can send what `JSONSerialization` cannot produce (`1e30`, `-1e30`,
    /// `9.3e18`, `"1e30"`, `null`, `[]`, a string of a megabyte, even text that is not JSON);
    /// `nil` removes the member, and a key the answer lacks is added. Error answers are rewritten
    /// too; a body that is not a JSON object (a redirect) is left alone. Build string values with
    /// ``jsonString(_:)``.
    case rewriteFields([String: String?])

    /// `text` as a JSON string literal, for ``rewriteFields(_:)`` and
    /// ``IDTokenAlteration/claims(_:)``.
    public static func jsonString(_ text: String) -> String {
        EmulatorRawJSON.quoted(text)
    }

    /// A well-formed `client_info` (base64url JSON `{"uid": ..., "utid": ...}`) naming `uid` in
    /// home tenant `utid`.
    public static func clientInfo(uid: String, utid: String) -> String {
        let object = EmulatorRawJSON.splice([:], ["uid": jsonString(uid), "utid": jsonString(utid)])
        return Base64URL.encode(Array(object))
    }

    /// Any status with any body and headers (`Content-Type` is added for a JSON-looking body).
    case response(status: Int, body: Data = Data(), headers: [String: String] = [:])
    /// An Entra-shaped throttling answer (429 by default, or 503...) with `Retry-After`.
    case throttled(status: Int = 429, retryAfter: RetryAfter)
    /// Waits, then answers normally (for client timeouts).
    case delay(seconds: Double)
    /// Closes the connection without answering.
    case dropConnection
    /// Sends the first bytes of the normal answer, then closes the connection.
    case truncatedResponse
    /// Answers with this Entra error: a JSON body at the token, device-code and discovery
    /// endpoints, an error redirect at the authorize endpoint.
    case oauthError(EntraErrorResponse)
    /// Answers normally but without these scopes, as when the user declines consent to them:
    /// at the authorize endpoint the code carries the decline (remembered for the user and app),
    /// at the token endpoint the response's `scope` omits them.
    case declineScopes([String])
    /// Answers normally at the token endpoint, but with an id token (still correctly signed) that
    /// a client must reject: the wrong nonce, audience or issuer, or expired.
    case alterIDToken(IDTokenAlteration)

    // Transport misbehaviours: bodies and heads no client should hold in memory (see the
    // ``HTTPServerAction`` cases they become).

    /// A 200 JSON answer whose chunked body never ends (64 KiB chunks of spaces until the client
    /// goes away or the emulator stops).
    case endlessBody
    /// A 200 JSON answer with a body of `bytes` spaces, with `Content-Length` or, when `chunked`,
    /// in chunks with no length announced; generated while sending, never held in memory.
    case oversizedBody(bytes: Int, chunked: Bool = false)
    /// The status line and some headers of a 200 answer, then nothing until the client closes the
    /// connection or the emulator stops (the head is never finished).
    case stallMidHeaders
    /// A status line followed by header fields forever (the head never ends).
    case endlessHeaders

    /// What ``alterIDToken(_:)`` changes in the id token.
    public enum IDTokenAlteration: Sendable, Hashable {
        /// `nonce` set to this value (present even when the request had none).
        case nonce(String)
        /// `aud` set to this value.
        case audience(String)
        /// `iss` set to this value.
        case issuer(String)
        /// `exp` this many seconds before the emulator's now (`iat` and `nbf` an hour earlier).
        case expired(secondsAgo: Int)
        /// Unsigned: header `{"alg":"none","typ":"JWT"}` and an empty signature part.
        case unsigned
        /// Header members set to raw JSON text (`nil` removes one), the signature kept: an
        /// unknown or missing `alg`, another `kid`.
        case header([String: String?])
        /// Claims set to raw JSON text (`nil` removes one), the token re-signed with the
        /// emulator's key (so only a client that checks the claims notices): `exp` of `"abc"`,
        /// the `sub`, `oid` or `preferred_username` of another user.
        case claims([String: String?])
        /// `client_info` beside the id token replaced by a well-formed one naming `uid` in home
        /// tenant `utid` (added even when the request did not ask for it).
        case clientInfo(uid: String, utid: String)
        /// Several alterations, applied in order (``unsigned`` last wins over a signature).
        case all([IDTokenAlteration])
    }

    /// `invalid_grant` with a suberror (`bad_token`, `basic_action`, `additional_action`,
    /// `message_only`, `client_mismatch`, `consent_required`, `user_password_expired`, ...).
    public static func invalidGrant(suberror: String? = nil, code: Int = 70000) -> EmulatorFault {
        .oauthError(
            EntraErrorResponse(
                error: "invalid_grant", code: code,
                message: "The provided grant is not valid (injected by the emulator).", suberror: suberror))
    }

    /// `interaction_required` (AADSTS50076, multi-factor authentication required).
    public static func interactionRequired(suberror: String? = nil) -> EmulatorFault {
        .oauthError(
            EntraErrorResponse(
                error: "interaction_required", code: 50076,
                message: "Due to a configuration change, the user must use multi-factor authentication to "
                    + "access the resource (injected by the emulator).",
                suberror: suberror))
    }

    /// `unauthorized_client` + `protection_policy_required` (AADSTS53005): the app must enforce
    /// Intune app protection policies. `adi` carries the user's displayable id when given.
    public static func protectionPolicyRequired(username: String? = nil) -> EmulatorFault {
        .oauthError(
            EntraErrorResponse(
                error: "unauthorized_client", code: 53005,
                message: "Application needs to enforce Intune protection policies (injected by the emulator).",
                suberror: "protection_policy_required",
                extraFields: username.map { ["adi": $0] } ?? [:]))
    }

    /// `invalid_request` with error code 50142: the user must change their password.
    public static var passwordChangeRequired: EmulatorFault {
        .oauthError(
            EntraErrorResponse(
                error: "invalid_request", code: 50142,
                message: "Password change is required due to a Conditional Access policy (injected by the emulator)."))
    }

    /// Azure AD B2C's forgotten-password answer, `access_denied` with `AADB2C90118`.
    public static var b2cForgotPassword: EmulatorFault {
        .oauthError(
            EntraErrorResponse(
                error: "access_denied", b2cCode: "AADB2C90118", message: "The user has forgotten their password."))
    }

    /// A claims challenge: `interaction_required` (AADSTS50076) with `claims` the client must send
    /// back on its next interactive request.
    public static func claimsChallenge(_ claims: String) -> EmulatorFault {
        .oauthError(
            EntraErrorResponse(
                error: "interaction_required", code: 50076,
                message: "A claims challenge must be satisfied (injected by the emulator).", claims: claims))
    }

    /// An Entra-shaped server error (`server_error`, status 500 by default, or 503...).
    public static func serverError(status: Int = 500) -> EmulatorFault {
        .oauthError(
            EntraErrorResponse(
                error: "server_error", code: 90033,
                message: "A transient error has occurred. Please try again (injected by the emulator).",
                status: status))
    }
}
