/// The detailed codes found under ``MSALInternalErrorCodeKey`` of an ``MSALError/internal`` error.
///
/// Raw values and Swift names match MSAL for iOS/macOS 2.13 (the names are what Swift imports
/// from its Objective-C header). Log the code; most need a fix in the app or its configuration.
/// Codes for the broker, JIT and platform SSO exist for source compatibility; the library never
/// reports them on Linux.
public enum MSALInternalError: Int, Sendable, CaseIterable {
    /// A parameter passed to the library was missing or invalid; the description names it.
    case internalErrorInvalidParameter = -42000
    /// The redirect URI's scheme is not registered for the app; fix the redirect URI configuration.
    case internalErrorRedirectSchemeNotRegistered = -42001
    /// The server rejected the request as malformed (`invalid_request`); check the parameters.
    case internalErrorInvalidRequest = -42002
    /// The server rejected the client (`invalid_client`); check the client id and app registration.
    case internalErrorInvalidClient = -42003
    /// The server rejected the grant (`invalid_grant`), such as an expired or revoked refresh token.
    case internalErrorInvalidGrant = -42004
    /// The server rejected a scope (`invalid_scope`); check the scope names.
    case internalErrorInvalidScope = -42005
    /// The client may not use this grant (`unauthorized_client`); check the app registration.
    case internalErrorUnauthorizedClient = -42006
    /// The server sent a response the library cannot interpret; retry, then report it.
    case internalErrorUnhandledResponse = -42007
    /// An unexpected failure inside the library; report it with the correlation id.
    case internalErrorUnexpected = -42008
    /// The server answered with an unexpected HTTP status; see ``MSALHTTPResponseCodeKey``.
    case internalErrorUnexpectedHttpResponse = -42009
    /// The authority is not trusted or could not be validated; check the URL or `knownAuthorities`.
    case internalErrorFailedAuthorityValidation = -42010
    /// The redirect URI is not valid for this app; fix it in the configuration.
    case internalErrorInvalidRedirectURI = -42011
    /// The user who signed in is not the account the request was made for.
    case internalErrorMismatchedUser = -42101
    /// More than one cached account matches; pass an explicit account.
    case internalErrorAmbiguousAccount = -42102
    /// Sign-in or token redemption failed at the server; read ``MSALOAuthErrorKey`` for the reason.
    case internalErrorAuthorizationFailed = -42104
    /// The request needs an account; pass one from `allAccounts()` or sign in interactively first.
    case internalErrorAccountRequired = -42106
    /// The interactive session was cancelled by the app.
    case internalErrorSessionCanceled = -42401
    /// Another interactive sign-in is in progress; wait for it to finish before starting one.
    case internalErrorInteractiveSessionAlreadyRunning = -42402
    /// No parent view controller was available (Apple platforms only).
    case internalErrorNoViewController = -42403
    /// A URL was to be opened from an app extension (Apple platforms only).
    case internalErrorAttemptToOpenURLFromExtension = -42404
    /// UI was requested inside an app extension (Apple platforms only).
    case internalErrorUINotSupportedInExtension = -42405
    /// The `state` returned by the server does not match the one sent; the sign-in was rejected.
    case internalErrorInvalidState = -42501
    /// The server's response was malformed or missing required fields; retry, then report it.
    case internalErrorInvalidResponse = -42600
    /// The server tried to redirect to a non-HTTPS URL, which is refused.
    case internalErrorNonHttpsRedirect = -42602
    /// Broker: no response was received (Apple platforms only).
    case internalErrorBrokerResponseNotReceived = -42700
    /// Broker: no resume state was found (Apple platforms only).
    case internalErrorBrokerNoResumeStateFound = -42701
    /// Broker: the resume state was unreadable (Apple platforms only).
    case internalErrorBrokerBadResumeStateFound = -42702
    /// Broker: the resume state belongs to another redirect URI (Apple platforms only).
    case internalErrorBrokerMismatchedResumeState = -42703
    /// Broker: the response hash was missing (Apple platforms only).
    case internalErrorBrokerResponseHashMissing = -42704
    /// Broker: the response was corrupted (Apple platforms only).
    case internalErrorBrokerCorruptedResponse = -42705
    /// Broker: the response could not be decrypted (Apple platforms only).
    case internalErrorBrokerResponseDecryptionFailed = -42706
    /// Broker: the response hash did not match (Apple platforms only).
    case internalErrorBrokerResponseHashMismatch = -42707
    /// Broker: the key could not be created (Apple platforms only).
    case internalErrorBrokerKeyFailedToCreate = -42708
    /// Broker: the key was not found (Apple platforms only).
    case internalErrorBrokerKeyNotFound = -42709
    /// Broker: the result could not be read (Apple platforms only).
    case internalErrorBrokerUnknown = -42711
    /// Broker: the application token could not be written (Apple platforms only).
    case internalErrorBrokerApplicationTokenWriteFailed = -42712
    /// Broker: the application token could not be read (Apple platforms only).
    case internalErrorBrokerApplicationTokenReadFailed = -42713
    /// Broker: not available (always the case on Linux).
    case internalBrokerNotAvailable = -42714
    /// JIT link: the server confirmation failed (Apple platforms only).
    case internalErrorJITLinkServerConfirmationError = -42715
    /// JIT link: token acquisition failed (Apple platforms only).
    case internalErrorJITLinkAcquireTokenError = -42716
    /// JIT link: a token for the wrong tenant was acquired (Apple platforms only).
    case internalErrorJITLinkTokenAcquiredWrongTenant = -42717
    /// JIT link: linking failed (Apple platforms only).
    case internalErrorJITLinkError = -42718
    /// JIT compliance check: the device is not compliant (Apple platforms only).
    case internalErrorJITComplianceCheckResultNotCompliant = -42719
    /// JIT compliance check: timed out (Apple platforms only).
    case internalErrorJITComplianceCheckResultTimeout = -42720
    /// JIT compliance check: the result is unknown (Apple platforms only).
    case internalErrorJITComplianceCheckResultUnknown = -42721
    /// JIT compliance check: the link payload was invalid (Apple platforms only).
    case errorJITComplianceCheckInvalidLinkPayload = -42722
    /// JIT compliance check: its view could not be created (Apple platforms only).
    case errorJITComplianceCheckCreateController = -42723
    /// JIT link: the link configuration was not found (Apple platforms only).
    case errorJITLinkConfigNotFound = -42724
    /// JIT link: the link token configuration was invalid (Apple platforms only).
    case errorJITInvalidLinkTokenConfig = -42725
    /// JIT device registration failed (Apple platforms only).
    case errorJITWPJDeviceRegistrationFailed = -42726
    /// JIT device registration: no account identifier (Apple platforms only).
    case errorJITWPJAccountIdentifierNil = -42727
    /// JIT device registration: token acquisition failed (Apple platforms only).
    case errorJITWPJAcquireTokenError = -42728
    /// JIT: the process must be retried (Apple platforms only).
    case errorJITRetryRequired = -42729
    /// JIT troubleshooting: unexpected status (Apple platforms only).
    case errorJITUnknownStatusWebCP = -42730
    /// JIT troubleshooting: its view could not be created (Apple platforms only).
    case errorJITTroubleshootingCreateController = -42731
    /// JIT troubleshooting: token acquisition failed (Apple platforms only).
    case errorJITTroubleshootingAcquireToken = -42732
    /// JIT link: the server confirmation timed out (Apple platforms only).
    case internalErrorJITLinkServerConfirmationTimeout = -42733
    /// JIT troubleshooting is required (Apple platforms only).
    case errorJITTroubleshootingRequired = -42734
    /// JIT troubleshooting: the result is unknown (Apple platforms only).
    case errorJITTroubleshootingResultUnknown = -42735
    /// Platform SSO: the device is not registered (Apple platforms only).
    case errorDeviceNotPSSORegistered = -42736
    /// Platform SSO: the stored key id does not match (Apple platforms only).
    case errorPSSOKeyIdMismatch = -42737
    /// JIT: the error handling configuration was not found (Apple platforms only).
    case errorJITErrorHandlingConfigNotFound = -42738
    /// Platform SSO: the biometric policy does not match (Apple platforms only).
    case errorPSSOBiometricPolicyMismatch = -42739
    /// Platform SSO: an unexpected passkey extension was used (Apple platforms only).
    case errorPSSOInvalidPasskeyExtension = -42740
    /// Platform SSO: saving the login configuration failed (Apple platforms only).
    case errorPSSOSaveLoginConfigFailure = -42741
    /// Platform SSO: the passkey was used without the required biometrics (Apple platforms only).
    case errorPSSOPasskeyLAError = -42742
    /// Platform SSO: no biometrics are enrolled (Apple platforms only).
    case errorPSSOBiometricsNotEnrolled = -42743
    /// Platform SSO: biometrics are not available (Apple platforms only).
    case errorPSSOBiometricsNotAvailable = -42744
    /// The web authentication hand-off URL was invalid (Apple platforms only).
    case internalErrorInvalidASWebAuthenticationURL = -42745
}
