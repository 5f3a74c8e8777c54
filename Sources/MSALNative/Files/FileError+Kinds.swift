internal import Glibc

extension FileError {
    /// The error of the last failed call (`errno`).
    static func last(_ operation: String, _ path: String) -> FileError {
        FileError(operation, path: path, code: errno)
    }

    /// The system's text for an `errno` value (`strerror`).
    package static func message(for code: Int32) -> String {
        String(cString: strerror(code))
    }

    /// Something already exists at the path (an exclusive creation lost).
    package var isAlreadyExists: Bool { code == EEXIST }
    /// The path or its folder cannot be written: a read-only file system, or no permission.
    package var isReadOnlyOrDenied: Bool { code == EROFS || code == EACCES || code == EPERM }
    /// A read-only file system.
    package var isReadOnlyFileSystem: Bool { code == EROFS }
    /// The path is a symbolic link where none is followed (`O_NOFOLLOW`), or links loop.
    package var isSymbolicLink: Bool { code == ELOOP }
    /// What is at the path cannot serve as a lock file (not a regular file).
    package var isNotLockable: Bool { code == EINVAL }
    /// A component on the way is not a folder.
    package var isNotDirectory: Bool { code == ENOTDIR }
}

extension FileStatus {
    /// The status of an open descriptor (`fstat`).
    static func of(descriptor: Int32, path: String) throws(FileError) -> FileStatus {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .last("stat", path) }
        return FileStatus(info)
    }
}
