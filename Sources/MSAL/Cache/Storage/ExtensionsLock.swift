import Foundation
import MSALNative

/// The lock MSAL Python's extension (msal-extensions, used by Azure CLI and many Python tools)
/// takes around every write of a cache file, taken the same way, so that a Python app and this
/// library never lose each other's writes on one file.
///
/// msal-extensions 1.3.1 (`CrossPlatLock`): it waits up to 5 s for an exclusive creation of
/// `<cache>.lockfile`, then opens it, takes its `flock` (portalocker), writes "<pid> <argv0>",
/// rewrites the cache file in place, then unlocks and deletes the lockfile. Here: the exclusive
/// creation and the `flock`, the same contents, and on release the delete then the unlock. An
/// existing lockfile is waited for unless it is stale (``ExtensionsLockStep``): its writer was
/// killed (its PID is gone) or it stayed unlocked for the 5 s msal-extensions itself waits.
/// Taken one try at a time (``attempt(cachePath:)``): the caller waits between tries.
final class ExtensionsLock {
    private let file: LockFile
    private var released = false

    /// The lockfile of the cache file at `cachePath`.
    static func path(forCache cachePath: String) -> String { cachePath + ".lockfile" }

    private init(file: LockFile) {
        self.file = file
    }

    /// One try at the lock of the cache file at `cachePath`: the lock, or `nil` when another
    /// holds it (wait, ``LockWait``, and try again).
    static func attempt(cachePath: String) throws(CacheStorageError) -> ExtensionsLock? {
        let path = Self.path(forCache: cachePath)
        do {
            return try attempt(path).map(ExtensionsLock.init(file:))
        } catch {
            throw FileLock.failure(error, path: path)
        }
    }

    /// One try: the lockfile, locked and ours, or `nil` (wait and try again).
    private static func attempt(_ path: String) throws(FileError) -> LockFile? {
        if let created = try LockFile.createNew(path) {
            // Ours by creation; its flock is free unless a Python process that gave up waiting
            // opened it meanwhile.
            guard try created.tryLock(), try created.isStillAtPath() else { return nil }
            try created.replaceContents(contents)
            return created
        }
        guard let existing = try LockFile.open(path, create: false) else { return nil }  // just deleted
        guard try existing.tryLock() else { return nil }  // held
        // Unlocked: about to be locked by its creator, being released, or stale.
        let status = try existing.status()
        let written = try existing.contents(limit: 64)
        let writer: ExtensionsLockStep.Writer =
            switch ExtensionsLockStep.pid(in: written) {
            case nil: .notWritten
            case let pid?: FileSystem.isProcessAlive(pid) ? .alive : .gone
            }
        let age = FileSystem.wallClockNanoseconds() - status.modifiedNanoseconds
        guard ExtensionsLockStep.decide(writer: writer, ageNanoseconds: age) == .takeOver,
            try existing.isStillAtPath()
        else {
            existing.unlock()
            return nil
        }
        try existing.replaceContents(contents)
        return existing
    }

    /// What msal-extensions writes in it: "<pid> <argv0>".
    private static var contents: [UInt8] {
        Array("\(FileSystem.currentProcessID) \(CommandLine.arguments.first ?? "msal")".utf8)
    }

    /// Whether the lockfile locked is still the one at its path.
    var isStillAtPath: Bool {
        !released && ((try? file.isStillAtPath()) ?? false)
    }

    /// Releases: deletes the lockfile (when it is still the one locked), then unlocks.
    func release() {
        guard !released else { return }
        released = true
        if (try? file.isStillAtPath()) == true { _ = try? FileSystem.remove(file.path) }
        file.unlock()
    }

    deinit {
        release()
    }
}
