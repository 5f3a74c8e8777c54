internal import Glibc

/// A failed system call on a file: what was attempted, on which path, and the system's reason.
///
/// The MSAL layer turns it into its own typed errors (the cache's `CacheStorageError`); the
/// helpers below answer the questions the cache asks of a failure without it reading `errno`.
package struct FileError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What was attempted, as a verb phrase ("open", "rename", "lock").
    package let operation: String
    /// The path the call was made on.
    package let path: String
    /// The `errno` value.
    package let code: Int32

    package init(operation: String, path: String, code: Int32) {
        self.operation = operation
        self.path = path
        self.code = code
    }

    /// The error of the last failed call (`errno`).
    static func last(_ operation: String, _ path: String) -> FileError {
        FileError(operation: operation, path: path, code: errno)
    }

    /// The system's text for ``code`` (`strerror`).
    package var message: String { Self.message(for: code) }

    /// The system's text for an `errno` value.
    package static func message(for code: Int32) -> String {
        String(cString: strerror(code))
    }

    package var description: String { "\(operation) \(path): \(message) (errno \(code))" }

    /// Nothing exists at the path (or a folder on the way is missing).
    package var isNotFound: Bool { code == ENOENT }
    /// Something already exists at the path (an exclusive creation lost).
    package var isAlreadyExists: Bool { code == EEXIST }
    /// The path or its folder cannot be written: a read-only file system, or no permission.
    package var isReadOnlyOrDenied: Bool { code == EROFS || code == EACCES || code == EPERM }
    /// The path is a symbolic link where none is followed (`O_NOFOLLOW`), or links loop.
    package var isSymbolicLink: Bool { code == ELOOP }
    /// A component on the way is not a folder.
    package var isNotDirectory: Bool { code == ENOTDIR }
    /// A read-only file system.
    package var isReadOnlyFileSystem: Bool { code == EROFS }
}
