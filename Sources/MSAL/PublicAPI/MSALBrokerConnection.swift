public import Foundation

/// Whether an application signs in through a broker: MSAL for iOS's setting, with its names and
/// raw values. On Linux the broker is the Microsoft identity broker of Intune-managed desktops,
/// reached through an ``MSALBrokerConnection`` (the `MSALBroker` product's `MSALLinuxBroker`).
public enum MSALBrokeredAvailability: Int, Sendable, CaseIterable {
    /// Through the broker when ``MSALPublicClientApplicationConfig/brokerConnection`` is set and a
    /// broker answers, for Microsoft Entra ID (AAD) authorities; the library's own flows otherwise.
    case auto = 0
    /// Never through a broker (the default on Linux: opt in, as with MSAL for Python).
    case none = 1
}

/// How MSAL reaches a broker: one method of the broker's D-Bus interface, a JSON request in and
/// a JSON reply out. The `MSALBroker` product implements it (`MSALLinuxBroker`); tests may too.
///
/// MSAL builds the requests and reads the replies; an implementation only carries them.
public protocol MSALBrokerConnection: Sendable {
    /// Calls `method` (such as `acquireTokenSilently`) with the JSON `request` and returns the
    /// broker's JSON reply.
    ///
    /// - Parameters:
    ///   - method: the broker method's name.
    ///   - correlationId: the request's correlation id.
    ///   - request: the JSON request.
    ///   - interactive: whether the call shows the user a sign-in: it has no deadline then, and
    ///     ends when the task calling it is cancelled.
    /// - Throws: ``MSALBrokerConnectionError``.
    func call(method: String, correlationId: UUID, request: String, interactive: Bool) async throws -> String
}

/// Why a broker call failed before the broker answered with JSON.
public enum MSALBrokerConnectionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No broker is there (nothing owns its name, no bus, or no D-Bus library); MSAL then uses
    /// its own flows.
    case unavailable(String)
    /// The broker did not answer within the deadline (in seconds).
    case timedOut(Double)
    /// The broker answered with an error of the transport (a D-Bus error's name and message).
    case failed(name: String, message: String)
    /// The interactive call was cancelled (and the broker told so).
    case cancelled

    /// What failed, in words.
    public var description: String {
        switch self {
        case .unavailable(let why): return "no broker: \(why)"
        case .timedOut(let seconds): return "the broker did not answer within \(seconds) s"
        case .failed(let name, let message): return "the broker failed: \(name): \(message)"
        case .cancelled: return "the broker's sign-in was cancelled"
        }
    }
}
