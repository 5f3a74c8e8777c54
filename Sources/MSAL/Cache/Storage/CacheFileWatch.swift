import Glibc

/// Tells a cache read whether the cache file may have changed since the last look, without a
/// `stat` of the file each time.
///
/// An inotify watch on the file's folder queues an event when anything happens to the file:
/// replaced by a rename (how this library and MSAL .NET write), rewritten in place (how MSAL
/// Python's extensions write), deleted, or its attributes changed. The kernel queues the event
/// during the other process's system call, so a read that follows it sees it: reading an empty
/// queue is one non-blocking `read` (about a quarter of a microsecond here, against half to one
/// for a `stat` of a path several folders deep). When the watch cannot answer (no inotify, the
/// folder removed, a queue overflow) or a second has passed, the caller falls back to its
/// `stat`, which stays the authority; the time limit also covers writers inotify does not see
/// (another machine writing to a network file system).
final class CacheFileWatch {
    private let descriptor: Int32
    private let fileName: [UInt8]
    private var lastFullCheck: Int64
    /// Set when the watch can no longer see changes (its folder went away, say): every answer is
    /// then "look", and the cache makes a new watch at its next load.
    private(set) var broken = false

    /// The longest time answers come from the watch alone.
    static let fullCheckIntervalNanoseconds: Int64 = 1_000_000_000

    /// Watches the folder of `path`; `nil` when inotify or the folder is not available.
    init?(path: String) {
        let slash = path.utf8.lastIndex(of: UInt8(ascii: "/"))
        let folder = slash.map { String(path[..<$0]) }.flatMap { $0.isEmpty ? "/" : $0 } ?? "."
        fileName = Array(slash.map { path.utf8[path.utf8.index(after: $0)...] } ?? path.utf8[...])
        let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { return nil }
        let mask =
            IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE
            | IN_DELETE_SELF | IN_MOVE_SELF
        guard inotify_add_watch(descriptor, folder, UInt32(mask)) >= 0 else {
            close(descriptor)
            return nil
        }
        self.descriptor = descriptor
        lastFullCheck = Self.now()
    }

    deinit {
        close(descriptor)
    }

    /// Whether the file certainly has not changed since the previous call (or since the watch was
    /// made). `false` means: look (`stat`); it is also the answer once a second has passed.
    func isQuiet() -> Bool {
        var quiet = true
        withUnsafeTemporaryAllocation(byteCount: 4096, alignment: 8) { buffer in
            while true {
                let count = read(descriptor, buffer.baseAddress, buffer.count)
                if count > 0 {
                    if !eventsAreElsewhere(UnsafeRawBufferPointer(rebasing: buffer[..<count])) { quiet = false }
                    continue
                }
                if count < 0, errno == EINTR { continue }
                // EAGAIN: the queue is empty. Anything else: the watch cannot be trusted.
                if count < 0, errno != EAGAIN { broken = true }
                break
            }
        }
        let now = Self.now()
        if !quiet || broken || now - lastFullCheck >= Self.fullCheckIntervalNanoseconds {
            lastFullCheck = now
            return false
        }
        return true
    }

    /// Whether every event in `events` concerns another file of the folder.
    private func eventsAreElsewhere(_ events: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        var elsewhere = true
        let headerSize = MemoryLayout<inotify_event>.size
        while offset + headerSize <= events.count {
            let event = events.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
            let nameLength = Int(event.len)
            let mask = Int32(bitPattern: event.mask)
            if mask & Int32(IN_Q_OVERFLOW | IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF | IN_UNMOUNT) != 0 {
                // The watch itself is gone or lost events: from now on the caller looks every time.
                if mask & Int32(IN_Q_OVERFLOW) == 0 { broken = true }
                elsewhere = false
            } else if nameLength > 0, offset + headerSize + nameLength <= events.count {
                let name = UnsafeRawBufferPointer(
                    rebasing: events[(offset + headerSize)..<(offset + headerSize + nameLength)])
                // The name is padded with NULs.
                let actual = name.prefix { $0 != 0 }
                if actual.elementsEqual(fileName) { elsewhere = false }
            }
            offset += headerSize + nameLength
        }
        return elsewhere
    }

    private static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC_COARSE, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }
}
