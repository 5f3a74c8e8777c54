public import Foundation
public import MSAL
import MSALBrokerNative

/// The Microsoft identity broker of Linux desktops (Intune-managed Ubuntu and RHEL), reached over
/// D-Bus: the name `com.microsoft.identity.broker1` on the session bus, or on the bus of
/// ``busAddress``. Set it as an application's ``/MSAL/MSALPublicClientApplicationConfig/brokerConnection``
/// and turn ``/MSAL/MSALPublicClientApplicationConfig/brokerAvailability`` to `.auto`.
///
/// D-Bus is spoken through sd-bus of libsystemd, opened when the first call needs it: a program
/// using this type starts where libsystemd is missing, and MSAL then uses its own flows. Every
/// call has a deadline (``timeout``), except the interactive sign-in, which waits for the user
/// and ends when its task is cancelled (the broker is then told with `cancelInteractiveFlow`).
public final class MSALLinuxBroker: MSALBrokerConnection {
    /// The broker's bus name.
    public static let busName = "com.microsoft.identity.broker1"
    /// The broker's object path.
    public static let objectPath = "/com/microsoft/identity/broker1"
    /// The broker's interface.
    public static let interface = "com.microsoft.identity.Broker1"
    /// The protocol version clients send.
    public static let protocolVersion = "0.0"

    /// The D-Bus address of the bus (such as `unix:path=/tmp/bus`), or `nil` for the user's session
    /// bus.
    public let busAddress: String?
    /// The deadline of every call but the interactive sign-in, in seconds.
    public let timeout: Double

    /// A broker on the session bus (`busAddress` `nil`), or on the bus at `busAddress`, whose calls
    /// (but the interactive one) fail after `timeout` seconds.
    public init(busAddress: String? = nil, timeout: Double = 10) {
        self.busAddress = busAddress
        self.timeout = timeout
    }

    /// The broker's version (`getLinuxBrokerVersion`'s `linuxBrokerVersion`), which also says
    /// that a broker answers.
    ///
    /// - Throws: ``/MSAL/MSALBrokerConnectionError``; `.failed` when the reply has no version.
    public func version() async throws -> String {
        let reply = try await call(
            method: "getLinuxBrokerVersion", correlationId: UUID(),
            request: #"{"msalCppVersion":"1.28.0"}"#, interactive: false)
        guard let object = try? JSONSerialization.jsonObject(with: Data(reply.utf8)) as? [String: Any],
            let version = object["linuxBrokerVersion"] as? String
        else {
            throw MSALBrokerConnectionError.failed(name: "malformed-reply", message: "no linuxBrokerVersion")
        }
        return version
    }

    /// Calls `method` of the broker with the protocol version, `correlationId` and `request`, on a
    /// thread of its own; within ``timeout`` unless `interactive`, when it ends with the task.
    ///
    /// - Throws: ``/MSAL/MSALBrokerConnectionError``: `.unavailable` when nothing owns the
    ///   broker's name (or there is no bus, or no libsystemd), `.timedOut`, `.failed` with a D-Bus
    ///   error, `.cancelled`.
    public func call(method: String, correlationId: UUID, request: String, interactive: Bool) async throws
        -> String
    {
        if !interactive {
            // sd-bus bounds the call by the timeout, but not always its connection's handshake (a
            // bus daemon that stopped answering holds it for sd-bus's own, longer limits): the
            // caller is answered at the deadline in any case, and the thread ends on its own.
            let outcome = CallOutcome()
            let limit = timeout
            return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<String, any Error>) in
                outcome.start(continuation)
                Thread { [self] in
                    outcome.finish(Result { try send(method, correlationId, request, timeout: limit) })
                }.start()
                DispatchQueue.global().asyncAfter(deadline: .now() + limit + Self.deadlineGrace) {
                    outcome.finish(.failure(MSALBrokerConnectionError.timedOut(limit)))
                }
            }
        }
        // An interactive call waits for the user; cancelling its task tells the broker, and the
        // caller is answered at once (the thread that waits ends when the broker answers it).
        let outcome = CallOutcome()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<String, any Error>) in
                outcome.start(continuation)
                guard !Task.isCancelled else {
                    outcome.finish(.failure(MSALBrokerConnectionError.cancelled))
                    return
                }
                Thread { [self] in
                    outcome.finish(
                        Result { try send(method, correlationId, request, timeout: Self.interactiveLimit) })
                }.start()
            }
        } onCancel: { [self] in
            outcome.finish(.failure(MSALBrokerConnectionError.cancelled))
            Thread { [self] in
                _ = try? send(
                    "cancelInteractiveFlow", correlationId,
                    #"{"correlationId":"\#(correlationId.uuidString.lowercased())"}"#,
                    timeout: timeout)
            }.start()
        }
    }

    /// How long after its deadline a call that sd-bus did not end is answered anyway.
    static let deadlineGrace: Double = 0.25

    /// The longest an interactive call waits for the user when its task is never cancelled.
    static let interactiveLimit: Double = 24 * 3600

    /// One blocking call, its failures as ``MSALBrokerConnectionError``s.
    func send(_ method: String, _ correlationId: UUID, _ request: String, timeout: Double) throws -> String {
        do {
            return try BrokerBus.call(
                address: busAddress, destination: Self.busName, path: Self.objectPath, interface: Self.interface,
                member: method, arguments: (Self.protocolVersion, correlationId.uuidString.lowercased(), request),
                timeout: timeout)
        } catch {
            switch error {
            case .libraryMissing(let why): throw MSALBrokerConnectionError.unavailable(why)
            case .connect: throw MSALBrokerConnectionError.unavailable(error.description)
            case .timeout: throw MSALBrokerConnectionError.timedOut(timeout)
            case .error(let name, let message) where error.isNameAbsent:
                throw MSALBrokerConnectionError.unavailable("\(name): \(message)")
            case .error(let name, let message): throw MSALBrokerConnectionError.failed(name: name, message: message)
            case .call: throw MSALBrokerConnectionError.failed(name: "bus", message: error.description)
            }
        }
    }
}

/// The continuation of a call, resumed once: by its answer, its deadline or its cancellation.
private final class CallOutcome: @unchecked Sendable {
    // @unchecked: every stored value is behind `lock`.
    private let lock = NSLock()
    private var continuation: CheckedContinuation<String, any Error>?
    private var early: Result<String, any Error>?

    func start(_ continuation: CheckedContinuation<String, any Error>) {
        let pending: Result<String, any Error>? = lock.withLock {
            if let early { return early }
            self.continuation = continuation
            return nil
        }
        if let pending { continuation.resume(with: pending) }
    }

    func finish(_ result: Result<String, any Error>) {
        let waiting: CheckedContinuation<String, any Error>? = lock.withLock {
            if let continuation {
                self.continuation = nil
                early = result  // any later finish is ignored
                return continuation
            }
            if early == nil { early = result }
            return nil
        }
        waiting?.resume(with: result)
    }
}
