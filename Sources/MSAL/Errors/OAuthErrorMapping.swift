import Foundation

/// Which error code a server's OAuth `error` (and `suberror`) stands for, as in MSAL for
/// iOS/macOS. One table, matched case-insensitively.
enum OAuthErrorMapping {
    /// Where the error came from: the token endpoint's JSON, or the authorize redirect.
    enum Endpoint: Sendable, Hashable {
        case token
        case authorize
    }

    /// The server error code for "the user must reset the password".
    static let resetPasswordRequiredSTSCode = 50142

    /// The mapped (not yet classified) code for a server error.
    ///
    /// - `invalid_request` → -42002, or -50142 when `stsErrorCodes` contains 50142;
    ///   `invalid_client` → -42003; `invalid_scope` → -42005; `invalid_grant` → -42004;
    ///   `unauthorized_client` → -42006, or -50004 with suberror `protection_policy_required`;
    ///   `interaction_required` → -50002; `access_denied` and `tokenTransferFailedOTC` → -50005;
    ///   `server_error` → -50006.
    /// - At the authorize endpoint only: `invalid_grant` with suberror `transfer_token_expired`, and
    ///   `access_denied` with `tts_denied` or `user_skipped` → -50005; `invalid_grant` with
    ///   `insufficient_device_strength` → -50007.
    /// - Anything else, including a missing or blank error → -42104 (authorization failed).
    static func code(
        forOAuthError error: String?, subError: String?, stsErrorCodes: [Int], endpoint: Endpoint
    ) -> ErrorCode {
        let error = normalized(error)
        let subError = normalized(subError)
        switch error {
        case "invalid_request":
            return stsErrorCodes.contains(resetPasswordRequiredSTSCode)
                ? .msal(.serverInvalidRequestResetPasswordRequired) : .msalInternal(.internalErrorInvalidRequest)
        case "invalid_client":
            return .msalInternal(.internalErrorInvalidClient)
        case "invalid_scope":
            return .msalInternal(.internalErrorInvalidScope)
        case "invalid_grant":
            if endpoint == .authorize && subError == "transfer_token_expired" {
                return .msal(.userCanceled)
            }
            if endpoint == .authorize && subError == "insufficient_device_strength" {
                return .msal(.insufficientDeviceStrength)
            }
            return .msalInternal(.internalErrorInvalidGrant)
        case "unauthorized_client":
            return subError == "protection_policy_required"
                ? .msal(.serverProtectionPoliciesRequired) : .msalInternal(.internalErrorUnauthorizedClient)
        case "interaction_required":
            return .msal(.interactionRequired)
        case "access_denied", "tokentransferfailedotc":
            // With suberror tts_denied or user_skipped (authorize) this is the same code.
            return .msal(.userCanceled)
        case "server_error":
            return .msal(.serverError)
        default:
            return .msalInternal(.internalErrorAuthorizationFailed)
        }
    }

    /// Whether a suberror names an app protection policy requirement.
    static func isProtectionPolicyRequired(subError: String?) -> Bool {
        normalized(subError) == "protection_policy_required"
    }

    /// Lowercased and trimmed; empty when missing.
    static func normalized(_ value: String?) -> String {
        (value ?? "").trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
    }
}
