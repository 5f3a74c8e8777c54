/// Receives the parts of a key, as ``CacheSchema/buildKey(_:_:)`` gives them:
/// ``CacheKeyBuilder`` collects them, ``CacheKeyMatcher`` compares them with a key read from a
/// document without building anything.
protocol CacheKeySink {
    mutating func reset()
    /// A component, lowercased unless `lowercase` is false.
    mutating func add(_ component: String?, lowercase: Bool)
    /// Literal bytes of the key's template.
    mutating func add(literal: UnsafeBufferPointer<UInt8>)
    /// A component that is the value of the schema's member `member`, lowercased unless
    /// `lowercase` is false.
    mutating func add(_ component: String?, member: Int, lowercase: Bool)
    /// Takes the value of `member` from where the sink recorded it, if it did (then the entity's
    /// value is not read); `false` otherwise.
    mutating func addRecorded(member: Int, lowercase: Bool) -> Bool
}

extension CacheKeySink {
    mutating func add(_ component: String?, member: Int, lowercase: Bool) {
        add(component, lowercase: lowercase)
    }

    mutating func addRecorded(member: Int, lowercase: Bool) -> Bool { false }
}

/// Compares a key built from an entity's fields with the bytes of the key it was read under.
struct CacheKeyMatcher: CacheKeySink {
    private let base: UnsafePointer<UInt8>
    private let count: Int
    private var position = 0
    private(set) var matches = true
    /// The window the entity was read from, and where its members' values lie in it.
    private let window: UnsafePointer<UInt8>?
    private let memberBytes: CacheMemberBytes

    /// A matcher of `key`; with `window`, the values of members found in `memberBytes` are
    /// compared as they are written there (most keys match them as they are), without touching
    /// the strings.
    init(
        _ key: UnsafeBufferPointer<UInt8>, window: UnsafePointer<UInt8>? = nil,
        memberBytes: CacheMemberBytes = .init()
    ) {
        base = key.baseAddress ?? UnsafePointer(bitPattern: 1)!
        count = key.count
        self.window = window
        self.memberBytes = memberBytes
    }

    /// The member's value as written in the window, when it was recorded there and is ASCII (it
    /// had no escapes, so it is the entity's string), compared without reading the entity.
    mutating func addRecorded(member: Int, lowercase: Bool) -> Bool {
        guard lowercase, let window, let range = memberBytes[member] else { return false }
        guard matches else { return true }
        let raw = UnsafeBufferPointer(start: window + range.lowerBound, count: range.count)
        guard position + raw.count <= count else {
            matches = false
            return true
        }
        guard let equal = ASCII.lowercased(raw, equals: base + position) else { return false }
        if equal { position += raw.count } else { matches = false }
        return true
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

    mutating func add(literal: UnsafeBufferPointer<UInt8>) {
        guard matches else { return }
        let length = literal.count
        guard position + length <= count, length == 0 || memcmpEqual(literal.baseAddress!, base + position, length)
        else {
            matches = false
            return
        }
        position += length
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

    mutating func add(literal: UnsafeBufferPointer<UInt8>) {
        bytes.append(contentsOf: literal)
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

/// The keys as strings, for tests and logs.
enum CacheKeys {
    static func key<Entity: CacheEntity>(_ entity: Entity) -> String {
        var builder = CacheKeyBuilder()
        entity.buildKey(&builder)
        return builder.string
    }
}
