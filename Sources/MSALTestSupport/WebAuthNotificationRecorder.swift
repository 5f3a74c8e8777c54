import Foundation
import MSAL

/// Records the web-auth notifications (``/MSAL/MSALWebAuthDidStartLoadNotification`` and its
/// siblings) posted while it lives, so tests can assert which were posted and with what userInfo.
///
/// Call ``stop()`` when done; until then it observes `NotificationCenter.default`.
public final class NotificationRecorder: @unchecked Sendable {
    // @unchecked: `records` is only touched while holding `lock`; observers are set once in init.
    private let lock = NSLock()
    private var records: [(name: String, userInfo: [AnyHashable: Any])] = []
    private var observers: [NSObjectProtocol] = []

    /// Starts observing the four web-auth notifications.
    public init() {
        for name in [
            MSALWebAuthDidStartLoadNotification, MSALWebAuthDidFinishLoadNotification, MSALWebAuthDidFailNotification,
            MSALWebAuthDidCompleteNotification,
        ] {
            observers.append(
                NotificationCenter.default.addObserver(forName: Notification.Name(name), object: nil, queue: nil) {
                    [weak self] note in
                    guard let self else { return }
                    lock.lock()
                    records.append((note.name.rawValue, note.userInfo ?? [:]))
                    lock.unlock()
                })
        }
    }

    /// Stops observing; what was recorded stays readable.
    public func stop() {
        for observer in observers {
            NotificationCenter.default.removeObserver(observer)
        }
        observers = []
    }

    /// The names of the notifications recorded, in the order they were posted.
    public var names: [String] {
        lock.lock()
        defer { lock.unlock() }
        return records.map(\.name)
    }

    /// The userInfo of each recorded notification, in the same order as ``names``.
    public var userInfos: [[AnyHashable: Any]] {
        lock.lock()
        defer { lock.unlock() }
        return records.map(\.userInfo)
    }
}
