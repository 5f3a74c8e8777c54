import Foundation
import MSAL

/// What the caches of a command's applications had to do that the user must hear of, told on
/// standard error once the command ends, with or without `--verbose`: a corrupt cache file moved
/// aside (the accounts in it are no longer signed in here, and the file may be recovered).
enum CacheNotices {
    private final class Tracked: @unchecked Sendable {
        // Guarded by `lock`.
        private var applications: [MSALPublicClientApplication] = []
        private var endings: [@Sendable () -> Void] = []
        private let lock = NSLock()

        func add(_ ending: @escaping @Sendable () -> Void) {
            lock.withLock { endings.append(ending) }
        }

        func takeEndings() -> [@Sendable () -> Void] {
            lock.withLock {
                defer { endings = [] }
                return endings
            }
        }

        func add(_ application: MSALPublicClientApplication) {
            lock.withLock { applications.append(application) }
        }

        func all() -> [MSALPublicClientApplication] {
            lock.withLock { applications }
        }
    }

    private static let tracked = Tracked()

    /// Remembers `application`, whose cache notices ``report()`` tells.
    static func track(_ application: MSALPublicClientApplication) {
        tracked.add(application)
    }

    /// Runs `work` when the command ends (``report()``): remembering what was told.
    static func atEnd(_ work: @escaping @Sendable () -> Void) {
        tracked.add(work)
    }

    /// Prints each notice not yet told, and runs the work kept for the end.
    static func report() {
        for work in tracked.takeEndings() { work() }
        for application in tracked.all() {
            for notice in application.takeCacheQuarantines() {
                Console.error(message(notice))
            }
        }
    }

    static func message(_ notice: MSALPublicClientApplication.CacheQuarantineNotice) -> String {
        guard let movedTo = notice.movedTo else {
            return "msal: warning: the token cache \(notice.path) is not a valid cache document (\(notice.reason)) "
                + "and could not be moved aside; it was read as empty."
        }
        return "msal: warning: the token cache \(notice.path) was not a valid cache document (\(notice.reason)); "
            + "it was moved to \(movedTo) and the cache starts empty (sign in again)."
    }
}
