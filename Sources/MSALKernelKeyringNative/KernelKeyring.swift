import CMSALKeyutils

/// The Linux kernel key retention service, as far as a cache key needs it: find, read, add and
/// remove a `user` key in a keyring. Every call is a system call that answers at once (no daemon,
/// no bus), so none can hang.
package enum KernelKeyring {
    /// Where a key is kept.
    package enum Place: Sendable, Equatable {
        /// The session keyring: this login session (an SSH login, a desktop session, a
        /// `keyctl session` shell); gone when the session ends.
        case session
        /// The user keyring: every process of this user id; gone when the user's last process
        /// ends (and at a reboot).
        case user
        /// The persistent keyring of this user id: outlives the user's processes and sessions
        /// until it goes unused for `/proc/sys/kernel/keys/persistent_keyring_expiry` seconds
        /// (three days by default); gone at a reboot. Needs a kernel with persistent keyrings.
        case persistent
        /// A keyring by its serial number (a test's own keyring).
        case serial(Int32)
    }

    /// A failed call: the operation and `errno`.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        package let operation: String
        /// `errno`, or 0 when libkeyutils could not be loaded.
        package let code: Int32
        /// Why libkeyutils could not be loaded, when it could not.
        package let libraryProblem: String?

        package init(operation: String, code: Int32) {
            self.operation = operation
            self.code = code
            libraryProblem = nil
        }

        /// libkeyutils.so.1 could not be loaded (or lacks a function), for `why`.
        package init(libraryProblem why: String) {
            operation = "loading libkeyutils.so.1"
            code = 0
            libraryProblem = why
        }

        package var description: String {
            if let libraryProblem { return libraryProblem }
            return "\(operation) failed: \(String(cString: strerror(code))) (errno \(code))"
        }

        /// libkeyutils.so.1 is not installed here (or is not a usable library).
        package var isLibraryMissing: Bool { libraryProblem != nil }

        /// The kernel has no keyrings, or no persistent keyrings, here (`ENOSYS`, `EOPNOTSUPP`).
        package var isUnsupported: Bool { code == ENOSYS || code == EOPNOTSUPP }
        /// This process may not use the keyring or key (`EACCES`, `EPERM`).
        package var isDenied: Bool { code == EACCES || code == EPERM }
        /// The user's key quota is full (`EDQUOT`).
        package var isQuotaFull: Bool { code == EDQUOT }
    }

    /// Opens libkeyutils.so.1 (once per process); throws the reason when it cannot.
    package static func loadLibrary() throws(Failure) {
        var reason: UnsafePointer<CChar>?
        guard cmsal_keyutils_load(&reason) != 0 else {
            throw Failure(libraryProblem: reason.map { String(cString: $0) } ?? "libkeyutils.so.1 could not be loaded")
        }
    }

    /// The serial number of `place`'s keyring (created when it does not exist yet).
    package static func keyring(_ place: Place) throws(Failure) -> Int32 {
        try loadLibrary()
        switch place {
        case .session: return KEY_SPEC_SESSION_KEYRING
        case .user: return KEY_SPEC_USER_KEYRING
        case .serial(let serial): return serial
        case .persistent:
            // Linked into this process's keyring, which makes this process its possessor.
            let serial = cmsal_keyctl_get_persistent(uid_t.max, KEY_SPEC_PROCESS_KEYRING)
            guard serial >= 0 else { throw Failure(operation: "keyctl_get_persistent", code: cmsal_keyutils_errno()) }
            return Int32(truncatingIfNeeded: serial)
        }
    }

    /// The `user` key named `description` in `keyring` (or a keyring linked from it), or `nil`.
    package static func find(_ description: String, in keyring: Int32) throws(Failure) -> Int32? {
        try loadLibrary()
        let serial = cmsal_keyctl_search(keyring, "user", description, 0)
        guard serial >= 0 else {
            let code = cmsal_keyutils_errno()
            if code == ENOKEY || code == EKEYEXPIRED || code == EKEYREVOKED { return nil }
            throw Failure(operation: "keyctl_search", code: code)
        }
        return Int32(truncatingIfNeeded: serial)
    }

    /// The payload of `key`; the kernel's copy in this process's memory is zeroed after use.
    package static func read(_ key: Int32) throws(Failure) -> [UInt8] {
        try loadLibrary()
        var buffer: UnsafeMutableRawPointer?
        let length = cmsal_keyctl_read_alloc(key, &buffer)
        guard length >= 0, let buffer else { throw Failure(operation: "keyctl_read", code: cmsal_keyutils_errno()) }
        defer {
            memset(buffer, 0, Int(length))
            free(buffer)
        }
        return Array(UnsafeRawBufferPointer(start: buffer, count: Int(length)))
    }

    /// Adds the `user` key `description` with `payload` to `keyring` (replacing a key of that name
    /// there) and returns its serial number. It is readable by its possessors and by the
    /// processes of this user id (as a file of mode 0600 is), so a process whose session does not
    /// reach `keyring` still finds it there: the key is made in this process's own keyring, where
    /// this process may set its permissions, then linked into `keyring` and unlinked from its own.
    package static func add(_ description: String, payload: [UInt8], to keyring: Int32) throws(Failure) -> Int32 {
        try loadLibrary()
        let serial = payload.withUnsafeBytes {
            cmsal_add_key("user", description, $0.baseAddress, $0.count, KEY_SPEC_PROCESS_KEYRING)
        }
        guard serial >= 0 else { throw Failure(operation: "add_key", code: cmsal_keyutils_errno()) }
        defer { _ = cmsal_keyctl_unlink(serial, KEY_SPEC_PROCESS_KEYRING) }
        let permissions =
            CMSAL_KEY_POS_ALL | CMSAL_KEY_USR_VIEW | CMSAL_KEY_USR_READ | CMSAL_KEY_USR_WRITE
            | CMSAL_KEY_USR_SEARCH | CMSAL_KEY_USR_LINK | CMSAL_KEY_USR_SETATTR
        guard cmsal_keyctl_setperm(serial, permissions) >= 0 else {
            throw Failure(operation: "keyctl_setperm", code: cmsal_keyutils_errno())
        }
        // A key of the same name already there is displaced by the link (and must not be unlinked
        // by its serial afterwards: the kernel finds links by type and name, so that would unlink
        // this one).
        guard cmsal_keyctl_link(serial, keyring) >= 0 else {
            throw Failure(operation: "keyctl_link", code: cmsal_keyutils_errno())
        }
        return serial
    }

    /// Removes `key` from `keyring`; `false` when it was not there. The kernel finds the link by
    /// the key's type and name: pass a key just found in `keyring`, not one that may have been
    /// displaced by a newer key of the same name.
    @discardableResult
    package static func remove(_ key: Int32, from keyring: Int32) throws(Failure) -> Bool {
        try loadLibrary()
        guard cmsal_keyctl_unlink(key, keyring) >= 0 else {
            let code = cmsal_keyutils_errno()
            if code == ENOENT || code == ENOKEY { return false }
            throw Failure(operation: "keyctl_unlink", code: code)
        }
        return true
    }

    /// A new empty keyring named `name`, linked into this process's keyring (gone with the
    /// process): a place of its own for a test or a probe.
    package static func newKeyring(_ name: String) throws(Failure) -> Int32 {
        try loadLibrary()
        let serial = cmsal_add_key("keyring", name, nil, 0, KEY_SPEC_PROCESS_KEYRING)
        guard serial >= 0 else { throw Failure(operation: "add_key keyring", code: cmsal_keyutils_errno()) }
        return serial
    }
}
