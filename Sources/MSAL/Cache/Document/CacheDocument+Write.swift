extension CacheDocument {
    /// The document of `store`: the entry sections (each entry from its fields, then its unknown
    /// members; then the entries kept as they were read), `AccountMetadata`, and the sections
    /// this library does not model, as they were read.
    static func write(_ store: TokenStore) -> [UInt8] {
        var output: [UInt8] = [UInt8(ascii: "{")]
        output.reserveCapacity(
            4096 + (store.accessTokens.count + store.refreshTokens.count + store.idTokens.count) * 1536)
        entries(store.accessTokens, store, &output)
        entries(store.refreshTokens, store, &output)
        entries(store.idTokens, store, &output)
        entries(store.accounts, store, &output)
        entries(store.appMetadata, store, &output)
        // This library's own sections are written only when they hold something (resource tokens
        // only where resources were asked for): not in every app's file.
        if holdsAnything(.resourceAccessToken, store, entities: !store.resourceTokens.isEmpty) {
            entries(store.resourceTokens, store, &output)
        }
        let clients = store.accountMetadata
        if holdsAnything(.accountMetadata, store, entities: !clients.isEmpty) {
            section(.accountMetadata, Array(clients.keys), store, &output) { client($0, clients[$0] ?? .init(), &$1) }
        }
        // A name of ours is never written twice.
        for (name, rawValue) in store.unknownSections where CacheSection(rawValue: name) == nil {
            output.append(contentsOf: ",\n".utf8)
            JSONValue.writeString(name, to: &output)
            output.append(UInt8(ascii: ":"))
            output.append(contentsOf: rawValue.utf8)
        }
        output.append(contentsOf: "\n}\n".utf8)
        return output
    }

    /// Whether `section` holds entities (`entities`), entries kept as read, or a value that is no
    /// object.
    private static func holdsAnything(_ section: CacheSection, _ store: TokenStore, entities: Bool) -> Bool {
        entities || store.keptEntries[section]?.isEmpty == false || store.unusableSections[section] != nil
    }

    private static func entries<Entity: CacheEntity>(
        _ entities: [String: Entity], _ store: TokenStore, _ output: inout [UInt8]
    ) {
        section(Entity.section, Array(entities.keys), store, &output) { key, output in
            JSONValue.writeString(key, to: &output)
            output.append(UInt8(ascii: ":"))
            if let entity = entities[key] { write(entity, &output) }
        }
    }

    /// `"Name":{…}`: the entries of ours (by `keys`, written by `entry`), then those kept as read.
    /// A section that was no object is written back as it was while it has no entries.
    private static func section(
        _ section: CacheSection, _ keys: [String], _ store: TokenStore, _ output: inout [UInt8],
        _ entry: (String, inout [UInt8]) -> Void
    ) {
        let kept = store.keptEntries[section] ?? [:]
        output.append(contentsOf: (section == .accessToken ? "\n\"" : ",\n\"").utf8)
        output.append(contentsOf: section.rawValue.utf8)
        output.append(contentsOf: "\":".utf8)
        if keys.isEmpty && kept.isEmpty, let unusable = store.unusableSections[section] {
            output.append(contentsOf: unusable.utf8)
            return
        }
        output.append(UInt8(ascii: "{"))
        var first = true
        for key in keys.sorted() {
            separate(&first, &output)
            entry(key, &output)
        }
        for key in kept.keys.sorted() {
            separate(&first, &output)
            output.append(contentsOf: kept[key]?.utf8 ?? "".utf8)
        }
        output.append(UInt8(ascii: "}"))
    }

    private static func write<Entity: CacheEntity>(_ entity: Entity, _ output: inout [UInt8]) {
        output.append(UInt8(ascii: "{"))
        var first = true
        for field in Entity.fields {
            let value: JSONValue?
            switch field.value {
            case .credentialType(let type): value = .string(type)
            case .required(let path), .defaulted(let path): value = .string(entity[keyPath: path])
            case .optional(let path), .stringOrNumber(let path):
                value = entity[keyPath: path].map { text in JSONValue.string(text) }
            case .timestamp(let path):
                value = entity[keyPath: path].map { seconds in JSONValue.string(String(seconds)) }
            }
            guard let value else { continue }
            if !first { output.append(UInt8(ascii: ",")) }
            first = false
            output.append(UInt8(ascii: "\""))
            output.append(contentsOf: field.utf8)
            output.append(contentsOf: "\":".utf8)
            if case .string(let text) = value {
                JSONValue.writeString(text, to: &output)
            } else {
                output.append(contentsOf: value.serialized(options: .sortedKeys))
            }
        }
        appendUnknown(entity.unknown, first: first, &output)
        output.append(UInt8(ascii: "}"))
    }

    /// One client's object of `AccountMetadata`: `client_id`, its records (written from their
    /// fields, then those kept as read), then its other members.
    private static func client(_ clientId: String, _ client: TokenStore.ClientMetadata, _ output: inout [UInt8]) {
        JSONValue.writeString(clientId, to: &output)
        output.append(contentsOf: ":{\"client_id\":".utf8)
        JSONValue.writeString(clientId, to: &output)
        output.append(contentsOf: ",\"account_metadata_map\":{".utf8)
        var first = true
        for homeAccountId in client.records.keys.sorted() {
            guard var record = client.records[homeAccountId] else { continue }
            if !first { output.append(UInt8(ascii: ",")) }
            first = false
            (record.clientId, record.homeAccountId) = (clientId, homeAccountId)
            JSONValue.writeString(homeAccountId, to: &output)
            output.append(UInt8(ascii: ":"))
            write(record, &output)
        }
        for homeAccountId in client.keptRecords.keys.sorted() where client.records[homeAccountId] == nil {
            if !first { output.append(UInt8(ascii: ",")) }
            first = false
            output.append(contentsOf: client.keptRecords[homeAccountId]?.utf8 ?? "".utf8)
        }
        output.append(UInt8(ascii: "}"))
        appendUnknown(client.unknown, first: false, &output)
        output.append(UInt8(ascii: "}"))
    }

    private static func appendUnknown(_ unknown: UnknownFields, first: Bool, _ output: inout [UInt8]) {
        guard !unknown.isEmpty else { return }
        if !first { output.append(UInt8(ascii: ",")) }
        output.append(contentsOf: unknown.raw.utf8)
    }

    private static func separate(_ first: inout Bool, _ output: inout [UInt8]) {
        output.append(contentsOf: (first ? "\n" : ",\n").utf8)
        first = false
    }
}
