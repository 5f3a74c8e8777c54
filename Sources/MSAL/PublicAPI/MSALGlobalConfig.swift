/// Process-wide settings that apply to every ``MSALPublicClientApplication``.
///
/// Mirrors `MSALGlobalConfig` of MSAL for iOS/macOS: set the HTTP and logging settings once,
/// early, before the first token request.
public enum MSALGlobalConfig {
    /// The process-wide HTTP defaults (retries, timeouts, limits, proxy): every application's
    /// ``MSALPublicClientApplicationConfig/httpConfig`` follows them for what it does not set.
    public static let httpConfig = MSALHTTPConfig()

    /// Logging settings: level, PII masking and the callback that receives messages.
    public static let loggerConfig = MSALLoggerConfig()
}
