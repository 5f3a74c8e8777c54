import CMSALLibsecret
import Foundation

/// The Secret Service (`org.freedesktop.secrets` on the D-Bus session bus: GNOME Keyring,
/// KWallet's bridge, KeePassXC) as far as a cache key needs it: look up, store and delete one
/// item of text, chosen by a schema name and attributes.
///
/// Never a hang: each operation runs on a thread of its own and is given up at its deadline (its
/// `GCancellable` is cancelled and the caller gets ``Failure/Kind/timedOut`` at once, whatever the
/// daemon or the bus does afterwards). Never a prompt: a locked collection or item is
/// ``Failure/Kind/locked``, not a request to unlock it.
package enum SecretServiceClient {
    /// What names an item: the schema's name (libsecret's `xdg:schema` attribute) and the
    /// attributes, all strings. An item matches when it has these attributes (it may have more).
    package struct Item: Sendable, Equatable, CustomStringConvertible {
        package let schema: String
        package let attributes: [String: String]
        /// Whether the item may be named by its schema alone (no attribute), as msal-extensions'
        /// `LibsecretPersistence` names its item by default.
        package let mayHaveNoAttributes: Bool

        package init(schema: String, attributes: [String: String], mayHaveNoAttributes: Bool = false) {
            self.schema = schema
            self.attributes = attributes
            self.mayHaveNoAttributes = mayHaveNoAttributes
        }

        /// `schema {name=value, ...}`, the attributes sorted by name.
        package var description: String {
            let pairs = attributes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            return "\(schema) {\(pairs.joined(separator: ", "))}"
        }
    }

    /// A failed operation: what kind of failure, and what happened in words.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        /// What went wrong, as far as a remedy depends on it.
        package enum Kind: Sendable, Equatable {
            /// No session bus to connect to (`DBUS_SESSION_BUS_ADDRESS` unset, or nothing there).
            case noBus
            /// This process's connection to the session bus was closed (the bus stopped).
            case busClosed
            /// Nothing on the bus owns `org.freedesktop.secrets`.
            case noService
            /// The Secret Service left the bus while a call waited for its answer.
            case serviceQuit
            /// The collection or the item is locked; unlocking it would need a prompt.
            case locked
            /// The collection alias names no collection.
            case noCollection
            /// The operation did not finish before its deadline.
            case timedOut
            /// The bus or the service refused the call.
            case denied
            /// The request itself is not valid (schema, attributes, timeout).
            case invalid
            /// libsecret or one of the GLib libraries it needs could not be loaded (not installed).
            case noLibrary
            /// Anything else; the detail says what.
            case failed
        }

        package let kind: Kind
        package let detail: String

        package init(_ kind: Kind, _ detail: String) {
            self.kind = kind
            self.detail = detail
        }

        package var description: String { detail }
    }

    /// The most attributes a libsecret schema holds.
    package static let maximumAttributes = 32

    /// The text kept in the first unlocked item matching `item`, or `nil` when there is none.
    /// Throws ``Failure/Kind/locked`` when the only matching items are locked.
    package static func lookup(_ item: Item, timeout: Double) throws(Failure) -> String? {
        try validate(item)
        return try run(timeout: timeout, "looking up \(item)") { call throws(Failure) in
            try call.withItems(matching: item) { items throws(Failure) -> String? in
                var sawLocked = false
                for found in items {
                    if cmsal_secret_item_get_locked(found) != 0 {
                        sawLocked = true
                        continue
                    }
                    return try call.secretText(of: found)
                }
                if sawLocked {
                    throw Failure(.locked, "the item \(item) is in a locked collection")
                }
                return nil
            }
        }
    }

    /// Keeps `secret` as text in the collection named by `alias` (`default`, `session`), in the
    /// item matching `item` (replaced when there is one, made otherwise), labelled `label`.
    package static func store(
        _ item: Item, secret: String, label: String, collection alias: String, timeout: Double
    ) throws(Failure) {
        try validate(item)
        guard !alias.isEmpty, !alias.contains("/") else {
            throw Failure(.invalid, "a collection alias is a name such as default or session, without '/'")
        }
        try run(timeout: timeout, "storing \(item)") { call throws(Failure) in
            try call.checkUnlocked(alias)
            try call.withSchema(item) { schema, attributes throws(Failure) in
                let value = cmsal_secret_value_new(secret, -1, "text/plain")
                defer { cmsal_secret_value_unref(value) }
                var error: UnsafeMutablePointer<cmsal_g_error>?
                guard
                    cmsal_secret_service_store_sync(
                        call.service, schema, attributes, alias, label, value, call.cancellable, &error) != 0
                else {
                    throw call.failure(error, while: "storing the item in collection \(alias)")
                }
            }
        }
    }

    /// Deletes every item matching `item` and returns how many there were. Throws
    /// ``Failure/Kind/locked`` (deleting nothing more) on a locked one.
    @discardableResult
    package static func delete(_ item: Item, timeout: Double) throws(Failure) -> Int {
        try validate(item)
        return try run(timeout: timeout, "deleting \(item)") { call throws(Failure) in
            try call.withItems(matching: item) { items throws(Failure) -> Int in
                var deleted = 0
                for found in items {
                    guard cmsal_secret_item_get_locked(found) == 0 else {
                        throw Failure(.locked, "the item \(item) is in a locked collection")
                    }
                    var error: UnsafeMutablePointer<cmsal_g_error>?
                    guard cmsal_secret_item_delete_sync(found, call.cancellable, &error) != 0 else {
                        throw call.failure(error, while: "deleting the item")
                    }
                    deleted += 1
                }
                return deleted
            }
        }
    }

    /// Points this process at the session bus at `address` (a test's private bus). GLib keeps the
    /// process's first connection to the session bus for the process's life, so this works only
    /// before the first operation.
    package static func useSessionBus(address: String) {
        cmsal_secret_set_session_bus(address)
    }

    // MARK: - Running with a deadline

    private static func validate(_ item: Item) throws(Failure) {
        guard !item.schema.isEmpty, !item.schema.contains("\0") else {
            throw Failure(.invalid, "a schema name must not be empty")
        }
        let fewest = item.mayHaveNoAttributes ? 0 : 1
        guard item.attributes.count >= fewest, item.attributes.count <= maximumAttributes else {
            throw Failure(.invalid, "an item needs between \(fewest) and \(maximumAttributes) attributes")
        }
        for (name, value) in item.attributes {
            guard !name.isEmpty, !name.hasPrefix("xdg:"), !name.contains("\0"), !value.contains("\0") else {
                throw Failure(
                    .invalid, "the attribute name \"\(printable(name))\" is empty, reserved (xdg:) or holds NUL")
            }
        }
    }

    /// A `GCancellable` that may be cancelled from another thread.
    private final class Cancellable: @unchecked Sendable {
        let pointer: OpaquePointer

        init() { pointer = cmsal_g_cancellable_new() }

        func cancel() { cmsal_g_cancellable_cancel(pointer) }

        deinit { cmsal_g_object_unref(UnsafeMutableRawPointer(pointer)) }
    }

    /// The result of an operation, handed from its thread to the caller.
    private final class Outcome<Value: Sendable>: @unchecked Sendable {
        let finished = DispatchSemaphore(value: 0)
        private let lock = NSLock()
        private var stored: Result<Value, Failure>?

        func finish(_ result: Result<Value, Failure>) {
            lock.withLock { stored = result }
            finished.signal()
        }

        var result: Result<Value, Failure>? { lock.withLock { stored } }
    }

    /// Runs `body` on a new thread with a fresh connection to the Secret Service, and returns its
    /// result, or throws ``Failure/Kind/timedOut`` when it has not finished within `timeout`
    /// seconds (then its `GCancellable` is cancelled and the thread left to end on its own).
    private static func run<Value: Sendable>(
        timeout: Double, _ what: String, _ body: @escaping @Sendable (Call) throws(Failure) -> Value
    ) throws(Failure) -> Value {
        guard timeout.isFinite, timeout > 0, timeout <= 3600 else {
            throw Failure(.invalid, "the timeout must be a number of seconds above 0 and at most 3600")
        }
        try loadLibraries()
        let cancellable = Cancellable()
        let outcome = Outcome<Value>()
        let thread = Thread {
            do throws(Failure) {
                outcome.finish(.success(try Call.open(cancellable, body)))
            } catch {
                outcome.finish(.failure(error))
            }
        }
        thread.name = "msal-secret-service"
        thread.start()
        guard outcome.finished.wait(timeout: .now() + timeout) == .success, let result = outcome.result else {
            cancellable.cancel()
            throw Failure(
                .timedOut, "no answer within \(seconds(timeout)) s while \(what): the call was given up")
        }
        return try result.get()
    }

    /// Opens libsecret and the GLib libraries (once per process); throws
    /// ``Failure/Kind/noLibrary`` naming the library when they cannot be.
    package static func loadLibraries() throws(Failure) {
        var reason: UnsafePointer<CChar>?
        guard cmsal_secret_load(&reason) != 0 else {
            throw Failure(.noLibrary, reason.map { String(cString: $0) } ?? "libsecret-1.so.0 could not be loaded")
        }
    }

    private static func seconds(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%.2g", value)
    }

    /// One operation's connection: the service proxy (with a session for secrets) and the
    /// operation's cancellable. It lives on the operation's thread only.
    private struct Call {
        let service: OpaquePointer
        let cancellable: OpaquePointer
        /// Whether the service owned its bus name when the operation began.
        let serviceWasRunning: Bool

        /// The failure that `error` (consumed) of a call to the service stands for.
        func failure(_ error: UnsafeMutablePointer<cmsal_g_error>?, while what: String) -> Failure {
            SecretServiceClient.failure(error, while: what, serviceWasRunning: serviceWasRunning)
        }

        /// Connects to the session bus and the Secret Service and runs `body`. Every object made
        /// here binds to a main context of this thread's own, dropped at the end, so no callback
        /// or signal of this operation is left queued on the process's default context. (When this
        /// is the first connection of the process, GLib's exit-on-close, which raises SIGTERM when
        /// the bus goes, would run on that context: nothing iterates it after the operation, so it
        /// never does. An app's own connection keeps the app's own setting.)
        static func open<Value>(
            _ cancellable: Cancellable, _ body: (Call) throws(Failure) -> Value
        ) throws(Failure) -> Value {
            let context = cmsal_g_main_context_new()
            cmsal_g_main_context_push_thread_default(context)
            defer {
                cmsal_g_main_context_pop_thread_default(context)
                cmsal_g_main_context_unref(context)
            }
            var error: UnsafeMutablePointer<cmsal_g_error>?
            guard let bus = cmsal_g_bus_get_session_sync(cancellable.pointer, &error) else {
                throw SecretServiceClient.failure(error, while: "connecting to the D-Bus session bus", connecting: true)
            }
            defer { cmsal_g_object_unref(UnsafeMutableRawPointer(bus)) }
            guard cmsal_g_dbus_connection_is_closed(bus) == 0 else {
                throw Failure(
                    .busClosed,
                    "this process's connection to the D-Bus session bus was closed (the bus stopped, as at a logout)")
            }
            // Whether the service is there, or can be started, decides what a failed call means:
            // a service that was running and no longer answers has quit.
            let name = String(cString: cmsal_secret_bus_name())
            let owned = cmsal_dbus_name_has_owner(bus, cmsal_secret_bus_name(), cancellable.pointer, &error)
            guard owned >= 0 else {
                throw SecretServiceClient.failure(error, while: "asking the session bus for \(name)")
            }
            if owned == 0 {
                let activatable = cmsal_dbus_name_is_activatable(
                    bus, cmsal_secret_bus_name(), cancellable.pointer, &error)
                guard activatable >= 0 else {
                    throw SecretServiceClient.failure(error, while: "asking the session bus for \(name)")
                }
                guard activatable == 1 else {
                    throw Failure(
                        .noService, "nothing on the session bus owns \(name), and no D-Bus service file starts it")
                }
            }
            let running = owned == 1
            guard
                let service = cmsal_secret_service_open_session_sync(cancellable.pointer, &error)
            else {
                throw SecretServiceClient.failure(
                    error, while: "opening a session with the Secret Service", serviceWasRunning: running)
            }
            defer { cmsal_g_object_unref(UnsafeMutableRawPointer(service)) }
            return try body(Call(service: service, cancellable: cancellable.pointer, serviceWasRunning: running))
        }

        /// Runs `body` with the schema and the attribute table of `item`.
        func withSchema<Value>(
            _ item: Item,
            _ body: (OpaquePointer, OpaquePointer) throws(Failure) -> Value
        ) throws(Failure) -> Value {
            let attributes = cmsal_secret_attributes_new()
            defer { cmsal_g_hash_table_unref(attributes) }
            for (name, value) in item.attributes {
                cmsal_secret_attributes_set(attributes, name, value)
            }
            guard let attributes, let schema = cmsal_secret_schema_new(item.schema, attributes) else {
                throw Failure(.invalid, "libsecret refused the schema \(item.schema)")
            }
            defer { cmsal_secret_schema_unref(schema) }
            return try body(schema, attributes)
        }

        /// Runs `body` with the items matching `item`, locked ones included (nothing is unlocked
        /// and no secret is loaded).
        func withItems<Value>(
            matching item: Item, _ body: ([OpaquePointer]) throws(Failure) -> Value
        ) throws(Failure) -> Value {
            try withSchema(item) { schema, attributes throws(Failure) -> Value in
                var error: UnsafeMutablePointer<cmsal_g_error>?
                let list = cmsal_secret_service_search_all_sync(service, schema, attributes, cancellable, &error)
                defer { cmsal_secret_item_list_free(list) }
                if list == nil, error != nil {
                    throw failure(error, while: "searching for the item")
                }
                var items: [OpaquePointer] = []
                var node = list
                while let current = node {
                    if let data = current.pointee.data {
                        items.append(OpaquePointer(data))
                    }
                    node = current.pointee.next
                }
                return try body(items)
            }
        }

        /// The secret of an unlocked `item`, as text.
        func secretText(of item: OpaquePointer) throws(Failure) -> String {
            var error: UnsafeMutablePointer<cmsal_g_error>?
            guard cmsal_secret_item_load_secret_sync(item, cancellable, &error) != 0 else {
                throw failure(error, while: "reading the item's secret")
            }
            guard let value = cmsal_secret_item_get_secret(item) else {
                throw Failure(.failed, "the Secret Service returned no secret for the item")
            }
            defer { cmsal_secret_value_unref(value) }
            var length = 0
            guard let bytes = cmsal_secret_value_get(value, &length) else {
                return ""
            }
            let buffer = UnsafeBufferPointer(
                start: UnsafeRawPointer(bytes).assumingMemoryBound(to: UInt8.self), count: length)
            guard let text = String(validating: buffer, as: UTF8.self) else {
                throw Failure(.failed, "the item's secret (\(length) bytes) is not text")
            }
            return text
        }

        /// Throws ``Failure/Kind/locked`` when the collection `alias` is locked, and
        /// ``Failure/Kind/noCollection`` when there is no such collection.
        func checkUnlocked(_ alias: String) throws(Failure) {
            var error: UnsafeMutablePointer<cmsal_g_error>?
            guard
                let collection = cmsal_secret_collection_for_alias_sync(service, alias, cancellable, &error)
            else {
                if error != nil { throw failure(error, while: "finding the collection \(alias)") }
                throw Failure(.noCollection, "the Secret Service has no collection \(alias)")
            }
            defer { cmsal_g_object_unref(UnsafeMutableRawPointer(collection)) }
            guard cmsal_secret_collection_get_locked(collection) == 0 else {
                throw Failure(.locked, "the collection \(alias) is locked")
            }
        }
    }

    // MARK: - Errors

    /// The failure that `error` (consumed) stands for, found while doing `what`.
    private static func failure(
        _ error: UnsafeMutablePointer<cmsal_g_error>?, while what: String, connecting: Bool = false,
        serviceWasRunning: Bool = false
    ) -> Failure {
        guard let error else { return Failure(.failed, "libsecret failed without an error while \(what)") }
        defer { cmsal_g_error_free(error) }
        let message = error.pointee.message.map { printable(String(cString: $0)) } ?? "no message"
        let domain = error.pointee.domain
        let code = error.pointee.code
        var remote = ""
        if let name = cmsal_g_dbus_error_get_remote_error(error) {
            remote = String(cString: name)
            cmsal_g_free(name)
        }
        let detail = "\(what): \(message)"
        if domain == cmsal_g_io_error_quark(), code == Int32(CMSAL_G_IO_ERROR_CANCELLED) {
            return Failure(.timedOut, "\(what): given up at the deadline")
        }
        if connecting { return Failure(.noBus, detail) }
        switch remote {
        case "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner":
            // Gone since the operation began (libsecret then calls the owner by its unique name).
            return Failure(serviceWasRunning ? .serviceQuit : .noService, detail)
        case "org.freedesktop.DBus.Error.NoReply":
            return Failure(.serviceQuit, detail)
        case "org.freedesktop.DBus.Error.AccessDenied":
            return Failure(.denied, detail)
        case "org.freedesktop.Secret.Error.IsLocked":
            return Failure(.locked, detail)
        case "org.freedesktop.Secret.Error.NoSuchObject":
            return Failure(.noCollection, detail)
        default:
            break
        }
        if domain == cmsal_secret_error_get_quark(), code == Int32(CMSAL_SECRET_ERROR_IS_LOCKED) {
            return Failure(.locked, detail)
        }
        if domain == cmsal_g_io_error_quark() {
            switch code {
            case Int32(CMSAL_G_IO_ERROR_CLOSED), Int32(CMSAL_G_IO_ERROR_BROKEN_PIPE):
                return Failure(.busClosed, detail)
            case Int32(CMSAL_G_IO_ERROR_TIMED_OUT):
                return Failure(.timedOut, detail)
            default:
                break
            }
        }
        return Failure(.failed, detail)
    }

    /// `text` with control characters replaced and its length bounded: a daemon's or a bus's
    /// words may end up on a terminal.
    package static func printable(_ text: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars.prefix(400) {
            scalars.append(scalar.properties.generalCategory == .control ? "?" : scalar)
        }
        return String(scalars) + (text.unicodeScalars.count > 400 ? "..." : "")
    }
}
