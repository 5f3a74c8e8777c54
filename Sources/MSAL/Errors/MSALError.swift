/// The top-level codes of errors in ``MSALErrorDomain``. Raw values and Swift names match MSAL for
/// iOS/macOS, so `MSALError(rawValue: error.code)` works as in its samples.
///
/// Only ``workplaceJoinRequired``, ``interactionRequired``, ``serverDeclinedScopes``,
/// ``serverProtectionPoliciesRequired``, ``userCanceled`` and
/// ``serverInvalidRequestResetPasswordRequired`` are reported at the top level. Every other failure
/// is reported as ``internal`` with the detailed code under ``MSALInternalErrorCodeKey``.
public enum MSALError: Int, Sendable, CaseIterable {
    /// An unrecoverable failure; log it together with ``MSALInternalErrorCodeKey`` and show a
    /// generic error to the user.
    case `internal` = -50000
    /// The resource requires a registered (workplace-joined) device; not possible on Linux, so
    /// tell the user the resource cannot be reached from this device.
    case workplaceJoinRequired = -50001
    /// A token cannot be obtained silently; call `acquireToken` interactively with the same scopes.
    case interactionRequired = -50002
    /// The server declined some scopes; read ``MSALGrantedScopesKey`` and ``MSALDeclinedScopesKey``,
    /// then retry with the granted scopes or ask for consent.
    case serverDeclinedScopes = -50003
    /// The resource is protected by an app protection (Intune) policy the app does not satisfy.
    case serverProtectionPoliciesRequired = -50004
    /// The user (or the app, by cancelling) ended the sign-in; offer to try again.
    case userCanceled = -50005
    /// The server reported an internal error; retry later. Reported under ``internal``.
    case serverError = -50006
    /// The device does not meet the required authentication strength. Reported under ``internal``.
    case insufficientDeviceStrength = -50007
    /// Device management enrollment finished and the request should be retried. Reported under
    /// ``internal``.
    case mdmEnrollmentCompletedNeedsRetry = -50008
    /// The user must reset the password before signing in (server error 50142); sign in
    /// interactively so the user can do so.
    case serverInvalidRequestResetPasswordRequired = -50142
}
