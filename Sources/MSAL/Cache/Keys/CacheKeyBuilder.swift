/// Receives the parts of a key: ``CacheKeyBuilder`` collects them, ``CacheKeyMatcher``
/// compares them with a key read from a document without building anything.
protocol CacheKeySink {
    mutating func reset()
    /// A component, lowercased unless `lowercase` is false.
    mutating func add(_ component: String?, lowercase: Bool)
    mutating func add(_ literal: StaticString)
    mutating func dash()
    /// A component that is the value of `field`, lowercased unless `lowercase` is false.
    mutating func add(_ component: String?, field: CacheEntityFields.Field, lowercase: Bool)
}

extension CacheKeySink {
    mutating func add(_ component: String?) { add(component, lowercase: true) }

    mutating func add(_ component: String?, field: CacheEntityFields.Field) {
        add(component, field: field, lowercase: true)
    }

    mutating func add(_ component: String?, field: CacheEntityFields.Field, lowercase: Bool) {
        add(component, lowercase: lowercase)
    }
}

/// Compares a key built from an entity's fields with the bytes of the key it was read under.
struct CacheKeyMatcher: CacheKeySink {
    private let base: UnsafePointer<UInt8>
    private let count: Int
    private var position = 0
    private(set) var matches = true
    /// The window the entity was read from, and where its key fields' values lie in it.
    private let window: UnsafePointer<UInt8>?
    private let fieldBytes: CacheEntityFields.KeyFieldBytes

    /// A matcher of `key`; with `window`, the values of fields found in `fieldBytes` are compared
    /// as they are written there (most keys match them as they are), without touching the strings.
    init(
        _ key: UnsafeBufferPointer<UInt8>, window: UnsafePointer<UInt8>? = nil,
        fieldBytes: CacheEntityFields.KeyFieldBytes = .init()
    ) {
        base = key.baseAddress ?? UnsafePointer(bitPattern: 1)!
        count = key.count
        self.window = window
        self.fieldBytes = fieldBytes
    }

    mutating func add(_ component: String?, field: CacheEntityFields.Field, lowercase: Bool) {
        guard matches, component != nil else { return }
        if lowercase, let window, let range = fieldBytes[field] {
            // The value as written is the entity's string when it is ASCII (it had no escapes).
            let raw = UnsafeBufferPointer(start: window + range.lowerBound, count: range.count)
            guard position + raw.count <= count else {
                matches = false
                return
            }
            if let equal = ASCII.lowercased(raw, equals: base + position) {
                if equal { position += raw.count } else { matches = false }
                return
            }
        }
        // Escaped, not ASCII, or kept as written: the component as the entity holds it.
        add(component, lowercase: lowercase)
    }

    /// Whether the whole key matched.
    var matchedAll: Bool { matches && position == count }

    mutating func reset() {
        position = 0
        matches = true
    }

    mutating func add(_ component: String?, lowercase: Bool) {
        guard matches, let component else { return }
        let ascii = component.withUTF8Bytes { source -> Bool in
            guard position + source.count <= count else {
                matches = false
                return true
            }
            // The common case: the key already holds the component as it is, and the component
            // has nothing to lowercase. One memcmp and a word-wise scan instead of a byte loop.
            if let start = source.baseAddress, memcmpEqual(start, base + position, source.count),
                !lowercase || ASCII.isASCIIWithoutUppercase(source)
            {
                position += source.count
                return true
            }
            for index in 0..<source.count {
                let byte = source[index]
                if byte >= 0x80 { return false }
                if (lowercase ? CacheScopes.lowerASCII(byte) : byte) != base[position + index] {
                    matches = false
                    return true
                }
            }
            position += source.count
            return true
        }
        if !ascii {
            let lowered = Array((lowercase ? component.lowercased() : component).utf8)
            guard position + lowered.count <= count,
                lowered.withUnsafeBufferPointer({ memcmpEqual($0.baseAddress!, base + position, lowered.count) })
            else {
                matches = false
                return
            }
            position += lowered.count
        }
    }

    mutating func add(_ literal: StaticString) {
        guard matches else { return }
        let length = literal.utf8CodeUnitCount
        guard position + length <= count, memcmpEqual(literal.utf8Start, base + position, length) else {
            matches = false
            return
        }
        position += length
    }

    mutating func dash() {
        guard matches else { return }
        guard position < count, base[position] == UInt8(ascii: "-") else {
            matches = false
            return
        }
        position += 1
    }
}

/// Builds the keys MSAL Python writes (cache-format.md) into a reused buffer: components joined
/// by `-` and lowercased. Readers never rely on keys; keys only name entries.
struct CacheKeyBuilder: CacheKeySink {
    private(set) var bytes: [UInt8] = []

    init() {
        bytes.reserveCapacity(512)
    }

    mutating func reset() {
        bytes.removeAll(keepingCapacity: true)
    }

    /// Appends a component, lowercased (ASCII fast path; full Unicode lowercasing otherwise).
    mutating func add(_ component: String?, lowercase: Bool) {
        guard let component else { return }
        let start = bytes.count
        let ascii = component.withUTF8Bytes { source -> Bool in
            bytes.append(contentsOf: source)
            // Most components have nothing to lowercase: a word-wise check instead of a byte loop.
            if !lowercase || ASCII.isASCIIWithoutUppercase(source) {
                return lowercase || source.allSatisfy { $0 < 0x80 }
            }
            return bytes.withUnsafeMutableBufferPointer { buffer in
                var high: UInt8 = 0
                for index in start..<buffer.count {
                    let byte = buffer[index]
                    high |= byte
                    if lowercase { buffer[index] = CacheScopes.lowerASCII(byte) }
                }
                return high < 0x80
            }
        }
        if !ascii {
            bytes.removeSubrange(start...)
            bytes.append(contentsOf: (lowercase ? component.lowercased() : component).utf8)
        }
    }

    mutating func dash() {
        bytes.append(UInt8(ascii: "-"))
    }

    mutating func add(_ literal: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    var string: String { String(decoding: bytes, as: UTF8.self) }

    /// Sets the bytes to `key`'s UTF-8, as it is.
    mutating func set(_ key: String) {
        reset()
        bytes.append(contentsOf: key.utf8)
    }

    /// A hash of the built key's bytes (the fast one of entry checks: keys are not chosen to
    /// collide, and a collision only costs a comparison of two keys).
    var keyHash: Int {
        Int(truncatingIfNeeded: bytes.withUnsafeBufferPointer { CacheFileRange.check($0) })
    }

    /// Whether the built key equals `other`.
    func equals(_ other: UnsafeBufferPointer<UInt8>) -> Bool {
        guard other.count == bytes.count, let otherBase = other.baseAddress else { return other.count == bytes.count }
        return bytes.withUnsafeBufferPointer { memcmpEqual($0.baseAddress!, otherBase, other.count) }
    }
}

extension CacheAccessToken {
    /// `<home_account_id>-<environment>-accesstoken-<client_id>-<realm>-<target>`.
    func buildKey<Sink: CacheKeySink>(_ builder: inout Sink) {
        builder.reset()
        builder.add(homeAccountId, field: .homeAccountId)
        builder.dash()
        builder.add(environment, field: .environment)
        builder.add("-accesstoken-")
        builder.add(clientId, field: .clientId)
        builder.dash()
        builder.add(realm, field: .realm)
        builder.dash()
        builder.add(target, field: .target)
    }
}

extension CacheRefreshToken {
    /// `<home_account_id>-<environment>-refreshtoken-<client_id>--<target>`.
    func buildKey<Sink: CacheKeySink>(_ builder: inout Sink) {
        builder.reset()
        builder.add(homeAccountId, field: .homeAccountId)
        builder.dash()
        builder.add(environment, field: .environment)
        builder.add("-refreshtoken-")
        builder.add(clientId, field: .clientId)
        builder.add("--")
        builder.add(target, field: .target)
    }
}

extension CacheIdToken {
    /// `<home_account_id>-<environment>-idtoken-<client_id>-<realm>-`.
    func buildKey<Sink: CacheKeySink>(_ builder: inout Sink) {
        builder.reset()
        builder.add(homeAccountId, field: .homeAccountId)
        builder.dash()
        builder.add(environment, field: .environment)
        builder.add("-idtoken-")
        builder.add(clientId, field: .clientId)
        builder.dash()
        builder.add(realm, field: .realm)
        builder.dash()
    }
}

extension CacheAccount {
    /// `<home_account_id>-<environment>-<realm>`.
    func buildKey<Sink: CacheKeySink>(_ builder: inout Sink) {
        builder.reset()
        builder.add(homeAccountId, field: .homeAccountId)
        builder.dash()
        builder.add(environment, field: .environment)
        builder.dash()
        builder.add(realm, field: .realm)
    }
}

extension CacheAppMetadata {
    /// `appmetadata-<environment>-<client_id>`, not lowercased (as MSAL Python builds it; it
    /// looks app metadata up by this exact key).
    func buildKey<Sink: CacheKeySink>(_ builder: inout Sink) {
        builder.reset()
        builder.add("appmetadata-")
        builder.add(environment, field: .environment, lowercase: false)
        builder.dash()
        builder.add(clientId, field: .clientId, lowercase: false)
    }
}

/// The keys as strings, for tests and logs.
enum CacheKeys {
    static func key(_ token: CacheAccessToken) -> String { make(token.buildKey) }
    static func key(_ token: CacheRefreshToken) -> String { make(token.buildKey) }
    static func key(_ token: CacheIdToken) -> String { make(token.buildKey) }
    static func key(_ account: CacheAccount) -> String { make(account.buildKey) }
    static func key(_ metadata: CacheAppMetadata) -> String { make(metadata.buildKey) }

    private static func make(_ build: (inout CacheKeyBuilder) -> Void) -> String {
        var builder = CacheKeyBuilder()
        build(&builder)
        return builder.string
    }
}
