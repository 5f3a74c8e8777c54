import MSALNative

/// The description of one entry type of the unified cache schema: its section, its members in
/// the order this library writes them, and the recipe of its key. The reader, the writer and the
/// key builder all work from it, so a field is added, renamed or moved in one place
/// (``CacheSchema+Entries.swift`` holds the five of them).
///
/// A member of the entry that its type does not list is an unknown member of that entry: kept as
/// it was written (``UnknownFields``), even when another entry type knows a member of that name.
struct CacheSchema<Entity: CacheEntity>: Sendable {
    /// The section the entries are in.
    let section: CacheSection
    /// The members this library models, in the order it writes them.
    let members: [CacheMember<Entity>]
    /// The members' names and values apart, so the reader's loop copies no more than it uses.
    let names: [StaticString]
    let values: [CacheMember<Entity>.Value]
    /// Bit `i` set when member `i`'s values repeat across entries (shared while reading).
    let sharedMembers: UInt32
    /// Bit `i` set when member `i` must be present for the entry to be an entity of this type.
    let requiredMembers: UInt32
    /// The key's template, and its parts: ranges of literal text in it and member values.
    let keyTemplate: StaticString
    let keyParts: [CacheKeyPart]
    /// Whether key components are lowercased (every type but app metadata, whose key MSAL for
    /// Python builds and looks up as written).
    let lowercasesKey: Bool

    /// A schema; `key` is the key's template, in the notation of the cache format: member names
    /// in braces between literal text, such as `{home_account_id}-{environment}-idtoken-…`.
    init(
        _ section: CacheSection, key: StaticString, lowercasesKey: Bool = true, members: [CacheMember<Entity>]
    ) {
        precondition(members.count <= CacheSchemaLimits.members, "a schema has at most 16 members")
        self.section = section
        self.members = members
        names = members.map(\.name)
        values = members.map(\.value)
        self.lowercasesKey = lowercasesKey
        keyTemplate = key
        keyParts = CacheKeyPart.parse("\(key)", names: members.map { "\($0.name)" })
        var required: UInt32 = 0
        var shared: UInt32 = 0
        for (index, member) in members.enumerated() {
            if member.isRequired { required |= 1 << UInt32(index) }
            if member.isShared { shared |= 1 << UInt32(index) }
        }
        requiredMembers = required
        sharedMembers = shared
    }

    /// The index of the member whose name is the window's bytes `start..<end`, looking first at
    /// `expected` (the member after the previous one: entries usually list them in this order).
    func member(named cursor: JSONByteCursor, _ start: Int, _ end: Int, expected: Int) -> Int? {
        let count = names.count
        var index = expected < count ? expected : 0
        for _ in 0..<count {
            if cursor.bytesEqual(start, end, names[index]) { return index }
            index = index + 1 == count ? 0 : index + 1
        }
        return nil
    }

    /// Builds `entity`'s key into `sink`.
    func buildKey<Sink: CacheKeySink>(_ entity: Entity, _ sink: inout Sink) {
        sink.reset()
        for part in keyParts {
            switch part {
            case .literal(let offset, let count):
                keyTemplate.withBytes { sink.add(literal: $0.extracting(offset..<(offset + count))) }
            case .member(let index):
                if !sink.addRecorded(member: index, lowercase: lowercasesKey) {
                    sink.add(members[index].text(of: entity), member: index, lowercase: lowercasesKey)
                }
            }
        }
    }
}

enum CacheSchemaLimits {
    /// The most members a schema lists (the reader keeps a bit and a slot per member).
    static let members = 16
}

/// One member of an entry: its JSON name, how its value is read and written, and the property
/// of the entity that holds it.
struct CacheMember<Entity>: Sendable {
    /// The member's name in the entry.
    let name: StaticString
    let value: Value
    /// Whether its values repeat across entries (an environment, a client id, scopes), so the
    /// reader shares one string among them.
    let isShared: Bool

    /// How the value is held and written.
    enum Value {
        /// `credential_type`: a string whose value is the section's (written as `literal`).
        case credentialType(StaticString)
        /// The token itself: a string, which the store may keep as its place in the cache file.
        case secret(WritableKeyPath<Entity, String>)
        /// A string the entry must have.
        case required(WritableKeyPath<Entity, String>)
        /// A string written always; when the entry has none, the entity's own default stays.
        case defaulted(WritableKeyPath<Entity, String>)
        /// A string written when present.
        case optional(WritableKeyPath<Entity, String?>)
        /// Epoch seconds, written as a string of digits, read from a string or a number (a
        /// fractional value keeps its whole seconds).
        case timestamp(WritableKeyPath<Entity, Int64?>)
        /// A string, or a number kept as its text (`last_modification_time`, which some MSALs
        /// write as a number).
        case stringOrNumber(WritableKeyPath<Entity, String?>)
    }

    init(_ name: StaticString, _ value: Value, shared: Bool = false) {
        self.name = name
        self.value = value
        isShared = shared
    }

    var isRequired: Bool {
        switch value {
        case .secret, .required: true
        default: false
        }
    }

    /// The member's string in `entity`, for keys (`nil` when absent).
    func text(of entity: Entity) -> String? {
        switch value {
        case .credentialType(let literal): "\(literal)"
        case .secret(let path), .required(let path), .defaulted(let path): entity[keyPath: path]
        case .optional(let path), .stringOrNumber(let path): entity[keyPath: path]
        case .timestamp(let path): entity[keyPath: path].map { String($0) }
        }
    }
}

// Key paths to stored properties of Sendable value types are immutable values.
extension CacheMember.Value: @unchecked Sendable {}

/// A part of a key: literal text (a range of the template's bytes), or the value of a member (by
/// its index in the schema).
enum CacheKeyPart: Sendable, Equatable {
    case literal(offset: Int, count: Int)
    case member(Int)

    /// The parts of `template` (`{name}` for a member, anything else literal).
    static func parse(_ template: String, names: [String]) -> [CacheKeyPart] {
        var parts: [CacheKeyPart] = []
        let template = Substring(template)
        var rest = template
        while !rest.isEmpty {
            if rest.first == "{" {
                guard let close = rest.firstIndex(of: "}") else { preconditionFailure("unclosed { in \(template)") }
                let name = String(rest[rest.index(after: rest.startIndex)..<close])
                guard let index = names.firstIndex(of: name) else {
                    preconditionFailure("the key of \(template) names \(name), which is no member")
                }
                parts.append(.member(index))
                rest = rest[rest.index(after: close)...]
            } else {
                let end = rest.firstIndex(of: "{") ?? rest.endIndex
                let offset = template.utf8.distance(from: template.startIndex, to: rest.startIndex)
                parts.append(.literal(offset: offset, count: rest[..<end].utf8.count))
                rest = rest[end...]
            }
        }
        return parts
    }
}

/// What the reader and writer need of every entity type.
protocol CacheEntity: Sendable {
    /// An entity with every member absent (or at its default), which the reader fills in.
    init()
    /// The description the reader, the writer and the key builder work from.
    static var schema: CacheSchema<Self> { get }
    /// The key the entity was read under when it differs from the one this library would write.
    var originalKey: String? { get set }
    /// The members of its entry that its type does not list.
    var unknown: UnknownFields { get set }
}

extension CacheEntity {
    /// Builds the entity's key into `builder`.
    func buildKey<Sink: CacheKeySink>(_ builder: inout Sink) {
        Self.schema.buildKey(self, &builder)
    }
}
