import Foundation
import MSAL

/// What the caches of a command's applications had to do that the user must hear of, told on
/// standard error once the command ends, with or without `--verbose`: a corrupt cache file moved
/// aside (the accounts in it are no longer signed in here, and the file may be recovered).
enum CacheNotices {
    private final class Tracked: @unchecked Sendable {
        // Guarded by `lock`.
        private var applications: [MSALPublicClientApplication] = []
        private let lock = NSLock()

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

    /// Prints each notice not yet told.
    static func report() {
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
