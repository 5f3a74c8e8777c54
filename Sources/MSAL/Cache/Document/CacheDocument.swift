import MSALNative

/// The cache document, MSAL for Python's JSON shape: sections mapping a key to an entry, read
/// whole at once (``JSONReader``) and written whole, one entry per line, in the order of the keys.
enum CacheDocument {
    /// Reads a document (a blank one is an empty cache); throws when it is not a JSON object, or
    /// what it keeps unread is not UTF-8 text (JSON's encoding: it is kept as text).
    static func read(_ bytes: [UInt8]) throws(JSONValue.ParseError) -> TokenStore {
        var store = TokenStore()
        var reader = JSONReader(bytes)
        if reader.isAtEnd() { return store }
        guard try reader.peek() == UInt8(ascii: "{") else { throw reader.error("expected '{' starting the document") }
        var dropped = 0
        if try reader.openObject() {
            repeat {
                let name = try reader.decode(reader.name(), repairing: true)
                // Sections are told apart by their decoded names (`"App\u004detadata"` is AppMetadata).
                let section = CacheSection(rawValue: name)
                if let section, try reader.peek() == UInt8(ascii: "{") {
                    dropped += try readSection(section, &reader, into: &store)
                } else {
                    let raw = try reader.text(try reader.skipValue())
                    if let section {
                        store.unusableSections[section] = raw
                        Log.warning("Token cache: the \(name) section is not a JSON object; it is kept unchanged.")
                    } else {
                        store.setUnknownSection(named: name, rawValue: raw)
                    }
                }
            } while try reader.nextMember()
        }
        guard reader.isAtEnd() else { throw reader.error("unexpected bytes after the document") }
        if dropped > 0 {
            Log.warning("Token cache: \(dropped) entries repeated the key or the meaning of another and are dropped.")
        }
        return store
    }

    /// Reads the entries of one section; returns how many were dropped for another of one key.
    private static func readSection(
        _ section: CacheSection, _ reader: inout JSONReader, into store: inout TokenStore
    ) throws(JSONValue.ParseError) -> Int {
        var dropped = 0
        guard try reader.openObject() else { return 0 }
        repeat {
            let name = try reader.name()
            let key = try reader.decode(name, repairing: true)
            let start = name.range.lowerBound - 1
            func add<Entity: CacheEntity>(_: Entity.Type, _ adding: (Entity) -> Int) throws(JSONValue.ParseError)
                -> Bool
            {
                guard let entity = try entry(Entity.self, &reader) else { return false }
                dropped += adding(entity)
                return true
            }
            let added: Bool
            switch section {
            case .accessToken: added = try add(CacheAccessToken.self) { store.addLoaded($0, key: key) }
            case .refreshToken: added = try add(CacheRefreshToken.self) { store.addLoaded($0, key: key) }
            case .idToken: added = try add(CacheIdToken.self) { store.addLoaded($0, key: key) }
            case .account: added = try add(CacheAccount.self) { store.addLoaded($0, key: key) }
            case .appMetadata: added = try add(CacheAppMetadata.self) { store.addLoaded($0, key: key) }
            case .resourceAccessToken: added = try add(CacheResourceToken.self) { store.addLoaded($0, key: key) }
            case .accountMetadata:
                let client = try clientMetadata(&reader)
                if let client { store.setClientMetadata(client.metadata, clientId: client.clientId ?? key) }
                added = client != nil
            }
            if added { continue }
            // Not an entry this library can model (another program's shape, or damaged): kept as it is.
            Log.info("Token cache: a \(section.rawValue) entry it cannot read is kept unchanged.")
            if store.keep(try reader.text(start..<reader.index), key: key, in: section) { dropped += 1 }
        } while try reader.nextMember()
        return dropped
    }

    /// The entry at the cursor as an entity; `nil` (the entry read past) when it is no object, a
    /// member it models has a value of another type, or one it requires is missing.
    private static func entry<Entity: CacheEntity>(
        _: Entity.Type, _ reader: inout JSONReader
    ) throws(JSONValue.ParseError) -> Entity? {
        guard try reader.peek() == UInt8(ascii: "{") else {
            try reader.skipValue()
            return nil
        }
        var entity = Entity()
        var present: UInt32 = 0
        var valid = true
        var next = 0
        let fields = Entity.fields
        if try reader.openObject() {
            repeat {
                let name = try reader.name()
                // Entries list their members in the order of the fields, mostly: the next one first.
                var index = next < fields.count && reader.equals(name, fields[next].utf8) ? next : nil
                if index == nil { index = fields.indices.first { reader.equals(name, fields[$0].utf8) } }
                guard let index else {
                    let value = try reader.skipValue()
                    let rawName = try reader.text((name.range.lowerBound - 1)..<(name.range.upperBound + 1))
                    entity.unknown.append(rawName: rawName, rawValue: try reader.text(value))
                    continue
                }
                if try reader.peek() == UInt8(ascii: "n") {
                    try reader.skipValue()  // null: absent
                    continue
                }
                next = index + 1
                valid = try fields[index].read(into: &entity, &reader) && valid
                present |= 1 << UInt32(index)
            } while try reader.nextMember()
        }
        for (index, field) in fields.enumerated() where present & (1 << UInt32(index)) == 0 {
            if case .required = field.value { valid = false }
        }
        return valid ? entity : nil
    }

    /// One client's object of `AccountMetadata` and its `client_id`; `nil` (kept as it is) when its
    /// `client_id` is no string or its `account_metadata_map` no object.
    private static func clientMetadata(
        _ reader: inout JSONReader
    ) throws(JSONValue.ParseError) -> (
        clientId: String?, metadata: TokenStore.ClientMetadata
    )? {
        guard try reader.peek() == UInt8(ascii: "{") else {
            try reader.skipValue()
            return nil
        }
        var client = TokenStore.ClientMetadata()
        var clientId: String?
        var records: [String: CacheAccountMetadata] = [:]
        var ours = true
        if try reader.openObject() {
            repeat {
                let name = try reader.name()
                let decoded = try reader.decode(name, repairing: true)
                if decoded == "client_id", !name.escaped, try reader.peek() == UInt8(ascii: "\"") {
                    let token = try reader.string()
                    clientId = try? reader.decode(token)
                    ours = ours && clientId != nil
                } else if decoded == "account_metadata_map", !name.escaped, try reader.peek() == UInt8(ascii: "{") {
                    guard try reader.openObject() else { continue }
                    repeat {
                        let id = try reader.name()
                        let homeAccountId = try reader.decode(id, repairing: true)
                        let start = id.range.lowerBound - 1
                        if var record = try entry(CacheAccountMetadata.self, &reader) {
                            record.homeAccountId = homeAccountId
                            records[homeAccountId] = record
                        } else {
                            client.keptRecords[homeAccountId] = try reader.text(start..<reader.index)
                        }
                    } while try reader.nextMember()
                } else if decoded == "client_id" || decoded == "account_metadata_map" {
                    try reader.skipValue()
                    ours = false
                } else {
                    let value = try reader.skipValue()
                    let rawName = try reader.text((name.range.lowerBound - 1)..<(name.range.upperBound + 1))
                    client.unknown.append(rawName: rawName, rawValue: try reader.text(value))
                }
            } while try reader.nextMember()
        }
        guard ours else { return nil }
        for (homeAccountId, record) in records {
            var record = record
            record.clientId = clientId ?? ""
            client.records[homeAccountId] = record
        }
        return (clientId, client)
    }

    static func isBlank(_ bytes: some Collection<UInt8>) -> Bool { bytes.allSatisfy(CacheFileOwnership.isWhiteSpace) }
}

extension CacheField {
    /// Reads the value at the cursor into `entity`; `false` (the value read past) when it has
    /// another type than this field's, or a string that is not valid UTF-8.
    func read(
        into entity: inout Entity, _ reader: inout JSONReader
    ) throws(JSONValue.ParseError) -> Bool where Entity: CacheEntity {
        let first = try reader.peek()
        guard first == UInt8(ascii: "\"") else {
            let range = try reader.skipValue()
            let isNumber = first == UInt8(ascii: "-") || (first >= 0x30 && first <= 0x39)
            switch value {
            case .stringOrNumber(let path) where isNumber: entity[keyPath: path] = try reader.text(range)
            case .timestamp(let path) where isNumber:
                guard let seconds = Self.seconds(reader.bytes[range]) else { return false }
                entity[keyPath: path] = seconds
            default: return false
            }
            return true
        }
        let token = try reader.string()
        switch value {
        case .credentialType(let type):
            // Another type in this section (MSAL.NET's `AccessToken_With_AuthScheme`) is not ours.
            guard reader.equals(token, type) || (token.escaped && (try? reader.decode(token)) == type) else {
                return false
            }
        case .required(let path), .defaulted(let path):
            guard let text = try? reader.decode(token) else { return false }
            entity[keyPath: path] = text
        case .optional(let path), .stringOrNumber(let path):
            guard let text = try? reader.decode(token) else { return false }
            entity[keyPath: path] = text
        case .timestamp(let path):
            guard let seconds = Self.seconds(reader.bytes[token.range]) else { return false }
            entity[keyPath: path] = seconds
        }
        return true
    }

    /// Whole epoch seconds of a decimal number's text (a fraction is dropped), at most 18 digits.
    private static func seconds(_ text: ArraySlice<UInt8>) -> Int64? {
        let negative = text.first == UInt8(ascii: "-")
        let digits = text.dropFirst(negative ? 1 : 0).prefix { $0 >= 0x30 && $0 <= 0x39 }
        let rest = text.dropFirst((negative ? 1 : 0) + digits.count)
        guard !digits.isEmpty, digits.count <= 18, rest.first.map({ $0 == UInt8(ascii: ".") }) ?? true else {
            return nil
        }
        let value = digits.reduce(Int64(0)) { $0 * 10 + Int64($1 - 0x30) }
        return negative ? -value : value
    }
}
