internal import Glibc

/// An inotify watch on a folder, reporting whether anything happened to one name in it.
///
/// The kernel queues an event during the other process's system call (a rename over the name,
/// a write in place, a removal, a change of attributes), so a look that follows the call sees it.
/// Reading an empty queue is one non-blocking `read`.
package final class FolderWatch {
    private let descriptor: Int32
    private let name: [UInt8]

    /// What a look at the queue found.
    package struct Look: Equatable, Sendable {
        /// Some event concerned the watched name (or events were lost).
        package var touched: Bool
        /// The watch can no longer be trusted (its folder went away, a read failed).
        package var broken: Bool

        package init(touched: Bool, broken: Bool) {
            self.touched = touched
            self.broken = broken
        }
    }

    /// Watches the folder of `path` for events on its last component; `nil` when inotify or the
    /// folder is not available.
    package init?(path: String) {
        let folder = FileSystem.folder(of: path)
        name = Array(FileSystem.name(of: path).utf8)
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
    }

    deinit {
        close(descriptor)
    }

    /// Reads every queued event.
    package func look() -> Look {
        var result = Look(touched: false, broken: false)
        withUnsafeTemporaryAllocation(byteCount: 4096, alignment: 8) { buffer in
            while true {
                let count = read(descriptor, buffer.baseAddress, buffer.count)
                if count > 0 {
                    scan(UnsafeRawBufferPointer(rebasing: buffer[..<count]), into: &result)
                    continue
                }
                if count < 0, errno == EINTR { continue }
                // EAGAIN: the queue is empty. Anything else: the watch cannot be trusted.
                if count < 0, errno != EAGAIN { result.broken = true }
                break
            }
        }
        return result
    }

    private func scan(_ events: UnsafeRawBufferPointer, into result: inout Look) {
        var offset = 0
        let headerSize = MemoryLayout<inotify_event>.size
        while offset + headerSize <= events.count {
            let event = events.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
            let nameLength = Int(event.len)
            let mask = Int32(bitPattern: event.mask)
            if mask & Int32(IN_Q_OVERFLOW | IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF | IN_UNMOUNT) != 0 {
                // The watch itself is gone, or events were lost.
                if mask & Int32(IN_Q_OVERFLOW) == 0 { result.broken = true }
                result.touched = true
            } else if nameLength > 0, offset + headerSize + nameLength <= events.count {
                let eventName = UnsafeRawBufferPointer(
                    rebasing: events[(offset + headerSize)..<(offset + headerSize + nameLength)])
                // The name is padded with NULs.
                if eventName.prefix(while: { $0 != 0 }).elementsEqual(name) { result.touched = true }
            }
            offset += headerSize + nameLength
        }
    }
}
