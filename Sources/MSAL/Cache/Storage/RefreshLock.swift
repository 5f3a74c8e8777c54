import Foundation
import Glibc
import MSALNative

/// Serialises refreshes of the same token across processes that share a cache file, so that
/// of several processes finding the same expired token, one redeems the refresh token and the
/// others, after waiting, find the new access token in the file (reference: "refresh only if still
/// needed"). Without it, processes race with the same refresh token, and a provider that rotates
/// refresh tokens with reuse detection signs the user out.
///
/// One lock file beside the cache file (`<cache>.refresh.lock`), and a one-byte POSIX record lock
/// (`fcntl`) per refresh, at an offset derived from the refresh's key. Record locks belong to the
/// process: threads of one process never wait for each other here (``SingleFlight`` already joins
/// them), and the kernel releases the locks of a process that dies. The file stays open for the
/// application's lifetime, because closing any descriptor of it would drop the process's locks.
final class RefreshLock: Sendable {
    private let path: String
    private let descriptor = Locked<Int32?>(nil)

    init(cacheFilePath: String) {
        path = cacheFilePath + ".refresh.lock"
    }

    deinit {
        descriptor.withLock { if let fd = $0 { close(fd) } }
    }

    /// Runs `body` while holding the lock for `key`, waiting at most `timeout` seconds for another
    /// process (then running anyway: a refresh is never blocked for good by a stuck process).
    func withLock<Result: Sendable>(
        key: String, timeout: TimeInterval, _ body: () async throws -> Result
    ) async throws -> Result {
        guard let fd = openFile() else { return try await body() }
        let offset = off_t(Self.offset(for: key))
        let acquired = try await acquire(fd, offset: offset, timeout: timeout)
        defer { if acquired { Self.set(fd, F_UNLCK, offset: offset) } }
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

    private func openFile() -> Int32? {
        descriptor.withLock { current in
            if let current { return current }
            // The cache folder exists once the cache was written; without it there is nothing to share.
            let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            guard fd >= 0 else { return nil }
            current = fd
            return fd
        }
    }

    private func acquire(_ fd: Int32, offset: off_t, timeout: TimeInterval) async throws -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        var pause = 2
        while !Self.set(fd, F_WRLCK, offset: offset) {
            guard errno == EACCES || errno == EAGAIN || errno == EINTR else { return false }
            guard Date() < deadline else {
                Log.warning("Another process held the refresh lock too long; refreshing anyway")
                return false
            }
            try await Task.sleep(for: .milliseconds(pause))
            pause = min(pause * 2, 50)
        }
        return true
    }

    /// `fcntl(F_SETLK)` for one byte at `offset`; `true` when it succeeded.
    @discardableResult
    private static func set(_ fd: Int32, _ type: Int32, offset: off_t) -> Bool {
        var lock = flock()
        lock.l_type = Int16(type)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = offset
        lock.l_len = 1
        return fcntl(fd, F_SETLK, &lock) == 0
    }
}
