import Foundation
import MSALNative

/// Serialises refreshes of the same token across processes that share a cache file, so that
/// of several processes finding the same expired token, one redeems the refresh token and the
/// others, after waiting, find the new access token in the file (reference: "refresh only if still
/// needed"). Without it, processes race with the same refresh token, and a provider that rotates
/// refresh tokens with reuse detection signs the user out.
///
/// One lock file beside the cache file (`<cache>.refresh.lock`, never through a symbolic link),
/// and a one-byte POSIX record lock per refresh, at an offset derived from the refresh's key
/// (``RecordLockFile``). Record locks belong to the process, so the file's descriptor is shared by
/// every app object of the process on that file, and a byte one of them holds is busy for the
/// others too; the kernel releases the locks of a process that dies.
final class RefreshLock: Sendable {
    private let path: String
    private let file = Locked<RecordLockFile?>(nil)

    init(cacheFilePath: String) {
        path = cacheFilePath + ".refresh.lock"
    }

    /// Runs `body` while holding the lock for `key`, waiting at most `timeout` seconds for another
    /// holder (then running anyway: a refresh is never blocked for good by a stuck process).
    func withLock<Result: Sendable>(
        key: String, timeout: TimeInterval, _ body: () async throws -> Result
    ) async throws -> Result {
        guard let file = openFile() else { return try await body() }
        let offset = Int64(Self.offset(for: key))
        let acquired = try await acquire(file, offset: offset, timeout: timeout)
        defer { if acquired { file.unlock(byte: offset) } }
        return try await body()
    }

    /// The byte the lock for `key` covers: a stable hash (FNV-1a) folded into 1 MiB of offsets.
    static func offset(for key: String) -> Int {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in key.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        return Int(hash % (1 << 20))
    }

    private func openFile() -> RecordLockFile? {
        file.withLock { current in
            if let current { return current }
            // The cache folder exists once the cache was written; without it (or in a folder
            // this process cannot write) there is nothing to share.
            current = try? RecordLockFile(path: path)
            return current
        }
    }

    private func acquire(_ file: RecordLockFile, offset: Int64, timeout: TimeInterval) async throws -> Bool {
        var wait = LockWait(timeout: timeout, backoff: .refreshLock)
        // A lock that cannot be tried (an error) is not waited for: `.taken(false)`.
        let taken = try await wait.suspending { () -> LockWait.Attempt<Bool> in
            guard let free = try? file.tryLock(byte: offset) else { return .taken(false) }
            return free ? .taken(true) : .wait(.refreshLock)
        }
        guard let taken else {
            Log.warning("Another process held the refresh lock too long; refreshing anyway")
            return false
        }
        return taken
    }
}
