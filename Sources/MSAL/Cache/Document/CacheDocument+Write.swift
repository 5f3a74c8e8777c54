extension CacheDocument {
    /// The document of `store`: the five entry sections (each entry from its fields, then its
    /// unknown members; then the entries kept as they were read), `AccountMetadata`, and the
    /// sections this library does not model, as they were read.
    static func write(_ store: TokenStore) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(
            4096 + (store.accessTokens.count + store.refreshTokens.count + store.idTokens.count) * 1536)
        output.append(UInt8(ascii: "{"))
        section(store.accessTokens, store, &output)
        section(store.refreshTokens, store, &output)
        section(store.idTokens, store, &output)
        section(store.accounts, store, &output)
        section(store.appMetadata, store, &output)
        let keptClients = store.keptEntries[.accountMetadata] ?? [:]
        if !store.accountMetadata.isEmpty || !keptClients.isEmpty {
            output.append(contentsOf: ",\n\"AccountMetadata\":{".utf8)
            var first = true
            for clientId in store.accountMetadata.keys.sorted() {
                separate(&first, &output)
                client(clientId, store.accountMetadata[clientId] ?? .init(), &output)
            }
            for key in keptClients.keys.sorted() where store.accountMetadata[key] == nil {
                separate(&first, &output)
                output.append(contentsOf: keptClients[key]?.utf8 ?? "".utf8)
            }
            output.append(UInt8(ascii: "}"))
        } else if let unusable = store.unusableSections[.accountMetadata] {
            output.append(contentsOf: ",\n\"AccountMetadata\":".utf8)
            output.append(contentsOf: unusable.utf8)
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

    /// `"Name":{…}`: the entities, then the entries kept as read. A section that was no object
    /// is written back as it was while it has no entries.
    private static func section<Entity: CacheEntity>(
        _ entities: [String: Entity], _ store: TokenStore, _ output: inout [UInt8]
    ) {
        let section = Entity.section
        let kept = store.keptEntries[section] ?? [:]
        output.append(contentsOf: (section == .accessToken ? "\n\"" : ",\n\"").utf8)
        output.append(contentsOf: section.rawValue.utf8)
        output.append(contentsOf: "\":".utf8)
        if entities.isEmpty && kept.isEmpty, let unusable = store.unusableSections[section] {
            output.append(contentsOf: unusable.utf8)
            return
        }
        output.append(UInt8(ascii: "{"))
        var first = true
        for key in entities.keys.sorted() {
            guard let entity = entities[key] else { continue }
            separate(&first, &output)
            JSONValue.writeString(key, to: &output)
            output.append(UInt8(ascii: ":"))
            write(entity, &output)
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
            let text: String?
            switch field.value {
            case .credentialType(let type): text = type
            case .required(let path), .defaulted(let path): text = entity[keyPath: path]
            case .optional(let path), .stringOrNumber(let path): text = entity[keyPath: path]
            case .timestamp(let path): text = entity[keyPath: path].map { String($0) }
            }
            guard let text else { continue }
            if !first { output.append(UInt8(ascii: ",")) }
            first = false
            output.append(UInt8(ascii: "\""))
            output.append(contentsOf: field.utf8)
            output.append(contentsOf: "\":".utf8)
            JSONValue.writeString(text, to: &output)
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
            guard let record = client.records[homeAccountId] else { continue }
            if !first { output.append(UInt8(ascii: ",")) }
            first = false
            var fields: [String: JSONValue] = [
                "client_id": .string(clientId), "home_account_id": .string(homeAccountId),
                "sign_in_state": .string(record.signInState.rawValue),
            ]
            if !record.authorityMap.isEmpty {
                fields["athority_map"] = .object(
                    record.authorityMap.mapValues { .object($0.mapValues(JSONValue.string)) })
            }
            JSONValue.writeString(homeAccountId, to: &output)
            output.append(UInt8(ascii: ":"))
            let object = JSONValue.object(fields).serialized(options: .sortedKeys)
            output.append(contentsOf: object.dropLast())
            appendUnknown(record.unknown, first: false, &output)
            output.append(UInt8(ascii: "}"))
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
