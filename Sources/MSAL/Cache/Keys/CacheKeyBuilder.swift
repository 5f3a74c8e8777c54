import MSALNative

/// Receives the parts of a key, as ``CacheSchema/buildKey(_:_:)`` gives them:
/// ``CacheKeyBuilder`` collects them, ``CacheKeyMatcher`` compares them with a key read from a
/// document without building anything.
protocol CacheKeySink {
    mutating func reset()
    /// A component, lowercased unless `lowercase` is false.
    mutating func add(_ component: String?, lowercase: Bool)
    /// Literal bytes of the key's template.
    mutating func add(literal: Span<UInt8>)
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
    /// The window the entity was read from: the key is `window[keyStart..<keyStart + count]`,
    /// and `memberBytes` tells where its members' values lie.
    private let window: [UInt8]
    private let keyStart: Int
    private let count: Int
    private var position = 0
    private(set) var matches = true
    private let memberBytes: CacheMemberBytes

    /// A matcher of the key `window[key]`; the values of members found in `memberBytes` are
    /// compared as they are written in `window` (most keys match them as they are), without
    /// touching the strings.
    init(window: [UInt8], key: Range<Int>, memberBytes: CacheMemberBytes = .init()) {
        precondition(key.lowerBound >= 0 && key.upperBound <= window.count, "the key lies outside the window")
        self.window = window
        keyStart = key.lowerBound
        count = key.count
        self.memberBytes = memberBytes
    }

    /// A matcher of `key`.
    init(_ key: [UInt8]) {
        self.init(window: key, key: 0..<key.count)
    }

    /// The member's value as written in the window, when it was recorded there and is ASCII (it
    /// had no escapes, so it is the entity's string), compared without reading the entity.
    mutating func addRecorded(member: Int, lowercase: Bool) -> Bool {
        guard lowercase, let range = memberBytes[member] else { return false }
        guard matches else { return true }
        guard position + range.count <= count else {
            matches = false
            return true
        }
        let equal = ASCII.lowercased(window.span.extracting(range), equals: window.span, at: keyStart + position)
        guard let equal else { return false }
        if equal { position += range.count } else { matches = false }
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
        let compared = component.withUTF8Span { source -> ComponentMatch in
            guard position + source.count <= count else { return .different }
            return Self.compare(source, window.span, at: keyStart + position, lowercase: lowercase)
        }
        switch compared {
        case .equal(let length):
            position += length
        case .different:
            matches = false
        case .notASCII:
            let lowered = Array((lowercase ? component.lowercased() : component).utf8)
            guard position + lowered.count <= count, window.span.bytesEqual(at: keyStart + position, lowered.span)
            else {
                matches = false
                return
            }
            position += lowered.count
        }
    }

    private enum ComponentMatch {
        /// The key holds the component (of this many bytes) next.
        case equal(Int)
        case different
        /// The component is not ASCII: it is compared in full lowercase.
        case notASCII
    }

    /// Whether `key` holds the ASCII `source` (lowercased when `lowercase`) at `offset`, which
    /// leaves room for it.
    private static func compare(_ source: Span<UInt8>, _ key: Span<UInt8>, at offset: Int, lowercase: Bool)
        -> ComponentMatch
    {
        // The common case: the key already holds the component as it is, and the component has
        // nothing to lowercase. One comparison and a word-wise scan instead of a byte loop.
        if key.bytesEqual(at: offset, source), !lowercase || ASCII.isASCIIWithoutUppercase(source) {
            return .equal(source.count)
        }
        for index in source.indices {
            let byte = source[index]
            if byte >= 0x80 { return .notASCII }
            if (lowercase ? CacheScopes.lowerASCII(byte) : byte) != key[offset + index] { return .different }
        }
        return .equal(source.count)
    }

    mutating func add(literal: Span<UInt8>) {
        guard matches else { return }
        guard position + literal.count <= count, window.span.bytesEqual(at: keyStart + position, literal) else {
            matches = false
            return
        }
        position += literal.count
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
        bytes.append(contentsOf: component.utf8)
        let ascii = component.withUTF8Span { source -> Bool in
            // Most components have nothing to lowercase: a word-wise check instead of a byte loop.
            if !lowercase || ASCII.isASCIIWithoutUppercase(source) {
                return lowercase || Self.isASCII(source)
            }
            var buffer = bytes.mutableSpan
            var high: UInt8 = 0
            for index in start..<buffer.count {
                let byte = buffer[index]
                high |= byte
                buffer[index] = CacheScopes.lowerASCII(byte)
            }
            return high < 0x80
        }
        if !ascii {
            bytes.removeSubrange(start...)
            bytes.append(contentsOf: (lowercase ? component.lowercased() : component).utf8)
        }
    }

    private static func isASCII(_ bytes: Span<UInt8>) -> Bool {
        for index in bytes.indices where bytes[index] >= 0x80 { return false }
        return true
    }

    mutating func add(literal: Span<UInt8>) {
        for index in literal.indices { bytes.append(literal[index]) }
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
        Int(truncatingIfNeeded: CacheFileRange.check(bytes.span))
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
