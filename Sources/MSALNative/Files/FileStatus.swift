internal import Glibc

/// What kind of thing a path names.
package enum FileKind: String, Sendable, Equatable {
    case regular = "a regular file"
    case directory = "a folder"
    case fifo = "a named pipe (FIFO)"
    case characterDevice = "a character device"
    case blockDevice = "a block device"
    case socket = "a socket"
    case symbolicLink = "a symbolic link"
    case unknown = "an unknown kind of file"

    init(mode: UInt32) {
        switch mode & 0o170_000 {
        case 0o100_000: self = .regular
        case 0o040_000: self = .directory
        case 0o010_000: self = .fifo
        case 0o020_000: self = .characterDevice
        case 0o060_000: self = .blockDevice
        case 0o140_000: self = .socket
        case 0o120_000: self = .symbolicLink
        default: self = .unknown
        }
    }
}

/// The `stat` of a file: its identity (device and inode), size, times and kind.
package struct FileStatus: Sendable, Equatable {
    package var device: UInt64
    package var inode: UInt64
    package var size: Int64
    /// Modification time, nanoseconds since the epoch.
    package var modifiedNanoseconds: Int64
    /// Status-change time, nanoseconds since the epoch.
    package var changedNanoseconds: Int64
    package var kind: FileKind
    /// The permission bits (`st_mode & 0o7777`).
    package var permissions: UInt32

    package init(
        device: UInt64, inode: UInt64, size: Int64, modifiedNanoseconds: Int64, changedNanoseconds: Int64,
        kind: FileKind, permissions: UInt32
    ) {
        self.device = device
        self.inode = inode
        self.size = size
        self.modifiedNanoseconds = modifiedNanoseconds
        self.changedNanoseconds = changedNanoseconds
        self.kind = kind
        self.permissions = permissions
    }

    init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        modifiedNanoseconds = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        changedNanoseconds = Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec)
        kind = FileKind(mode: UInt32(info.st_mode))
        permissions = UInt32(info.st_mode) & 0o7777
    }

    /// Whether `other` is the same file (same device and inode), whatever its contents.
    package func isSameFile(as other: FileStatus) -> Bool {
        device == other.device && inode == other.inode
    }

    /// The status of an open descriptor (`fstat`).
    static func of(descriptor: Int32, path: String) throws(FileError) -> FileStatus {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .last("stat", path) }
        return FileStatus(info)
    }
}
