/// Builds the keys MSAL Python writes (cache-format.md), byte by byte into a reused buffer:
/// components joined by `-` and lowercased. Readers never rely on keys; keys only name entries.
struct CacheKeyBuilder {
    private(set) var bytes: [UInt8] = []

    init() {
        bytes.reserveCapacity(512)
    }

    mutating func reset() {
        bytes.removeAll(keepingCapacity: true)
    }

    /// Appends a component, lowercased (ASCII fast path; full Unicode lowercasing otherwise).
    mutating func add(_ component: String?, lowercase: Bool = true) {
        guard var component else { return }
        let ascii = component.withUTF8 { source -> Bool in
            for byte in source where byte >= 0x80 { return false }
            if lowercase {
                for byte in source { bytes.append(CacheScopes.lowerASCII(byte)) }
            } else {
                bytes.append(contentsOf: source)
            }
            return true
        }
        if !ascii { bytes.append(contentsOf: (lowercase ? component.lowercased() : component).utf8) }
    }

    mutating func dash() {
        bytes.append(UInt8(ascii: "-"))
    }

    mutating func add(_ literal: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    var string: String { String(decoding: bytes, as: UTF8.self) }

    /// Whether the built key equals `other`.
    func equals(_ other: UnsafeBufferPointer<UInt8>) -> Bool {
        guard other.count == bytes.count, let otherBase = other.baseAddress else { return other.count == bytes.count }
        return bytes.withUnsafeBufferPointer { memcmpEqual($0.baseAddress!, otherBase, other.count) }
    }
}

extension CacheAccessToken {
    /// `<home_account_id>-<environment>-accesstoken-<client_id>-<realm>-<target>`.
    func buildKey(_ builder: inout CacheKeyBuilder) {
        builder.reset()
        builder.add(homeAccountId)
        builder.dash()
        builder.add(environment)
        builder.add("-accesstoken-")
        builder.add(clientId)
        builder.dash()
        builder.add(realm)
        builder.dash()
        builder.add(target)
    }
}

extension CacheRefreshToken {
    /// `<home_account_id>-<environment>-refreshtoken-<client_id>--<target>`.
    func buildKey(_ builder: inout CacheKeyBuilder) {
        builder.reset()
        builder.add(homeAccountId)
        builder.dash()
        builder.add(environment)
        builder.add("-refreshtoken-")
        builder.add(clientId)
        builder.add("--")
        builder.add(target)
    }
}

extension CacheIdToken {
    /// `<home_account_id>-<environment>-idtoken-<client_id>-<realm>-`.
    func buildKey(_ builder: inout CacheKeyBuilder) {
        builder.reset()
        builder.add(homeAccountId)
        builder.dash()
        builder.add(environment)
        builder.add("-idtoken-")
        builder.add(clientId)
        builder.dash()
        builder.add(realm)
        builder.dash()
    }
}

extension CacheAccount {
    /// `<home_account_id>-<environment>-<realm>`.
    func buildKey(_ builder: inout CacheKeyBuilder) {
        builder.reset()
        builder.add(homeAccountId)
        builder.dash()
        builder.add(environment)
        builder.dash()
        builder.add(realm)
    }
}

extension CacheAppMetadata {
    /// `appmetadata-<environment>-<client_id>`, not lowercased (as MSAL Python builds it; it
    /// looks app metadata up by this exact key).
    func buildKey(_ builder: inout CacheKeyBuilder) {
        builder.reset()
        builder.add("appmetadata-")
        builder.add(environment, lowercase: false)
        builder.dash()
        builder.add(clientId, lowercase: false)
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
