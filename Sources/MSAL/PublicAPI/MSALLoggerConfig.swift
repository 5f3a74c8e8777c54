import Foundation

/// How much the library logs. Raw values match MSAL for iOS/macOS.
public enum MSALLogLevel: Int, Sendable, Comparable {
    /// Log nothing.
    case nothing = 0
    /// Failures only.
    case error = 1
    /// Failures and conditions worth attention.
    case warning = 2
    /// Milestones of each request (the default).
    case info = 3
    /// Everything, including each HTTP request and response status.
    case verbose = 4

    /// The most detailed level.
    public static let last = MSALLogLevel.verbose

    /// Orders levels from ``nothing`` to ``verbose``; a message is delivered when its level is at
    /// most ``MSALLoggerConfig/logLevel``.
    public static func < (lhs: MSALLogLevel, rhs: MSALLogLevel) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}

/// Which personal or secret data may appear in log messages. Raw values match MSAL for iOS/macOS.
public enum MSALLogMaskingLevel: Int, Sendable {
    /// Mask every personal identifier (user names, object ids, tenant ids) and every secret.
    /// The default.
    case maskAllPII = 0
    /// Mask end-user identifiable information (user names, e-mail addresses) and secrets, but
    /// show organisation identifiers such as tenant ids.
    case maskEUIIOnly = 1
    /// Show personal identifiers. Tokens, codes, passwords and other secrets stay masked
    /// unless ``MSALLoggerConfig/piiEnabled`` is also set.
    case maskSecretsOnly = 2
}

/// A function that receives the library's log messages: the level, the message, and whether the
/// message contains personal data.
public typealias MSALLogCallback = @Sendable (MSALLogLevel, String?, Bool) -> Void

/// Logging settings, reached through ``MSALGlobalConfig/loggerConfig``.
///
/// Nothing is logged until a callback is installed with ``setLogCallback(_:)``. Every message
/// that belongs to a request starts with that request's correlation id, so the lines of one
/// token request can be found among many.
public final class MSALLoggerConfig: @unchecked Sendable {
    // Guarded by `lock`. An NSLock (pthread mutex) rather than Synchronization.Mutex: ThreadSanitizer
    // on Linux does not see Mutex's futex and reports false races in every client of the logger.
    private struct State {
        var logLevel: MSALLogLevel = .info
        var logMaskingLevel: MSALLogMaskingLevel = .maskAllPII
        var piiEnabled = false
        var callback: MSALLogCallback?
    }

    private let lock = NSLock()
    private var state = State()

    private func withState<T>(_ body: (inout State) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&state)
    }

    init() {}

    /// The most detailed level delivered to the callback. Default ``MSALLogLevel/info``.
    public var logLevel: MSALLogLevel {
        get { withState { $0.logLevel } }
        set { withState { $0.logLevel = newValue } }
    }

    /// Which personal data is masked in messages. Default ``MSALLogMaskingLevel/maskAllPII``.
    public var logMaskingLevel: MSALLogMaskingLevel {
        get { withState { $0.logMaskingLevel } }
        set { withState { $0.logMaskingLevel = newValue } }
    }

    /// Switches on full PII logging: together with ``MSALLogMaskingLevel/maskSecretsOnly`` (and only
    /// then) messages show tokens, authorization codes, passwords and other secrets. Only for
    /// debugging on a developer's own machine; never in production. Default `false`.
    ///
    /// Unlike MSAL for iOS/macOS, setting it does not change ``logMaskingLevel``: choose the level
    /// of personal data with ``logMaskingLevel`` and switch this on only to see secrets too.
    public var piiEnabled: Bool {
        get { withState { $0.piiEnabled } }
        set { withState { $0.piiEnabled = newValue } }
    }

    /// Installs the function that receives log messages, replacing any earlier one. Set it early,
    /// before the first token request. (MSAL for iOS/macOS allows only one; here a later call
    /// replaces the callback, and messages logged concurrently go to the old or the new one.)
    ///
    /// The callback may run on any thread, concurrently; it must be quick and thread-safe, and must
    /// not call back into the library. Messages may contain personal data only when the third
    /// argument (`containsPII`) is `true`; store such logs securely.
    public func setLogCallback(_ callback: @escaping MSALLogCallback) {
        withState { $0.callback = callback }
    }

    /// The installed log callback, or `nil` when none is installed (nothing is logged then).
    public var callback: MSALLogCallback? {
        withState { $0.callback }
    }

    /// Removes the log callback; nothing is logged afterwards.
    public func removeLogCallback() {
        withState { $0.callback = nil }
    }

    /// The settings and callback as one consistent snapshot, or `nil` when nothing at `level`
    /// would be delivered.
    func sink(for level: MSALLogLevel) -> (callback: MSALLogCallback, masking: MSALLogMaskingLevel, pii: Bool)? {
        withState { state in
            guard level != .nothing, level <= state.logLevel, let callback = state.callback else { return nil }
            return (callback, state.logMaskingLevel, state.piiEnabled)
        }
    }
}
