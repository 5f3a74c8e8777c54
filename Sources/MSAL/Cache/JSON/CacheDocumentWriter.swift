import MSALNative

/// Writes the cache document in MSAL Python's shape: top-level `AccessToken`, `RefreshToken`,
/// `IdToken`, `Account`, `AppMetadata` objects keyed by MSAL Python's keys (or an entry's
/// original key), string timestamps, each entry's unknown fields after its known ones, then
/// `AccountMetadata` and the unknown sections unchanged. One entry per line.
///
/// An entity unchanged since it was read or saved (``EntryOrigin``) is copied as its entry
/// is in ``CacheContents/sourceFile``, once the copy is checked: no field is encoded again, and
/// the file keeps exactly what it held (another library's layout and number formats included).
enum CacheDocumentWriter {
    /// Where each entity's entry went, in the order of the contents' arrays.
    struct Placements {
        var accessTokens: [EntryPlacement] = []
        var refreshTokens: [EntryPlacement] = []
        var idTokens: [EntryPlacement] = []
        var accounts: [EntryPlacement] = []
        var appMetadata: [EntryPlacement] = []
        /// How many entries were copied rather than written field by field (for tests and logs).
        var copied = 0
    }

    /// Writes the document. Secrets the store keeps as places in the source file are copied
    /// through `copier`; check its ``CacheSecretCopier/failed`` before using the output. With
    /// `placing`, the placements say where every entry went (``TokenStore/place(in:_:)``);
    /// without, only ``Placements/copied`` is counted.
    @discardableResult
    static func write(
        _ contents: CacheContents, to output: ByteOutput, copier: CacheSecretCopier, placing: Bool = true
    ) -> Placements {
        var placements = Placements()
        var writer = SectionWriter(
            output: output, copier: copier, sourceFile: contents.sourceFile, placing: placing,
            keptEntries: contents.keptEntries, unusableSections: contents.unusableSections)
        output.append("{")
        placements.accessTokens = writer.section(contents.accessTokens, contents.origins.accessTokens)
        placements.refreshTokens = writer.section(contents.refreshTokens, contents.origins.refreshTokens)
        placements.idTokens = writer.section(contents.idTokens, contents.origins.idTokens)
        placements.accounts = writer.section(contents.accounts, contents.origins.accounts)
        placements.appMetadata = writer.section(contents.appMetadata, contents.origins.appMetadata)
        placements.copied = writer.copied
        let keptMetadata = contents.keptEntries[.accountMetadata] ?? []
        if !contents.accountMetadata.isEmpty || !contents.accountMetadataUnknown.isEmpty || !keptMetadata.isEmpty
            || !contents.accountMetadataKept.isEmpty
        {
            output.append(",")
            writeAccountMetadata(contents, output)
        } else if let unusable = contents.unusableSections[.accountMetadata] {
            output.append(",\n\"AccountMetadata\":")
            output.appendRaw(unusable)
        }
        // Each member name once: a section of ours is never also written as an unknown one, and
        // of an unknown section named twice only the last value counts (as JSON readers take it).
        let sections = contents.unknownSections
        for (index, (name, rawValue)) in sections.enumerated()
        where CacheSection.named(name) == nil && !sections[(index + 1)...].contains(where: { $0.name == name }) {
            output.append(",\n")
            output.appendQuoted(name)
            output.append(":")
            output.appendRaw(rawValue)
        }
        output.append("\n}\n")
        return placements
    }

    private static func writeAccountMetadata(_ contents: CacheContents, _ output: ByteOutput) {
        var byClient: [String: [CacheAccountMetadata]] = [:]
        var clients: [String] = []
        for record in contents.accountMetadata {
            if byClient[record.clientId] == nil { clients.append(record.clientId) }
            byClient[record.clientId, default: []].append(record)
        }
        for client in Set(contents.accountMetadataUnknown.keys).union(contents.accountMetadataKept.keys).sorted()
        where byClient[client] == nil {
            clients.append(client)
            byClient[client] = []
        }
        output.append("\n\"AccountMetadata\":{")
        for (clientIndex, client) in clients.enumerated() {
            output.append(clientIndex == 0 ? "\n" : ",\n")
            output.appendQuoted(client)
            output.append(":{")
            var first = true
            output.member("client_id", client, first: &first)
            output.append(",\"account_metadata_map\":{")
            for (index, record) in (byClient[client] ?? []).enumerated() {
                if index > 0 { output.append(",") }
                output.appendQuoted(record.homeAccountId)
                output.append(":{")
                var firstField = true
                output.member("client_id", client, first: &firstField)
                output.member("home_account_id", record.homeAccountId, first: &firstField)
                output.member("sign_in_state", record.signInState.rawValue, first: &firstField)
                if !record.authorityMap.isEmpty {
                    output.append(",\"athority_map\":")
                    let maps = record.authorityMap.mapValues { map in JSONValue.object(map.mapValues(JSONValue.string))
                    }
                    output.appendRaw(JSONValue.object(maps).serializedString(options: .sortedKeys))
                }
                if !record.unknown.isEmpty {
                    output.append(",")
                    output.appendRaw(record.unknown.raw)
                }
                output.append("}")
            }
            let written = Set((byClient[client] ?? []).map(\.homeAccountId))
            var firstRecord = byClient[client]?.isEmpty ?? true
            for kept in contents.accountMetadataKept[client] ?? [] where !written.contains(kept.key) {
                if !firstRecord { output.append(",") }
                firstRecord = false
                output.appendRaw(kept.raw)
            }
            output.append("}")
            if let unknown = contents.accountMetadataUnknown[client], !unknown.isEmpty {
                output.append(",")
                output.appendRaw(unknown.raw)
            }
            output.append("}")
        }
        let written = Set(clients)
        for (index, entry) in (contents.keptEntries[.accountMetadata] ?? []).enumerated()
        where !written.contains(entry.key) {
            output.append(clients.isEmpty && index == 0 ? "\n" : ",\n")
            output.appendRaw(entry.raw)
        }
        output.append("}")
    }
}

/// Writes the entries of the entity sections: each one copied from the source file when that is
/// possible, else from its fields.
private struct SectionWriter {
    let output: ByteOutput
    let copier: CacheSecretCopier
    let sourceFile: CacheFileSnapshot?
    let placing: Bool
    let keptEntries: [CacheSection: [KeptEntry]]
    let unusableSections: [CacheSection: String]
    var builder = CacheKeyBuilder()
    var copied = 0

    init(
        output: ByteOutput, copier: CacheSecretCopier, sourceFile: CacheFileSnapshot?, placing: Bool,
        keptEntries: [CacheSection: [KeptEntry]], unusableSections: [CacheSection: String]
    ) {
        self.output = output
        self.copier = copier
        self.sourceFile = sourceFile
        self.placing = placing
        self.keptEntries = keptEntries
        self.unusableSections = unusableSections
    }

    /// The key `entity` is written under: the one it was read under, or MSAL Python's.
    private mutating func key<Entity: CacheEntity>(of entity: Entity) -> String {
        if let key = entity.originalKey { return key }
        entity.buildKey(&builder)
        return String(decoding: builder.bytes, as: UTF8.self)
    }

    /// Writes the entities' section, `"name":{…}` (preceded by a comma but for the first
    /// section): the entities, then the entries kept byte for byte, but for those whose key an
    /// entity is written under (the entity is newer: ours replaces it, as MSAL Python replaces an
    /// entry by its key). A section that was not an object is written back as it was while it
    /// has no entries. Returns where each entry went when `placing`.
    mutating func section<Entity: CacheEntity>(_ entities: [Entity], _ origins: [EntryOrigin]) -> [EntryPlacement] {
        let section = Entity.schema.section
        var placements: [EntryPlacement] = []
        let kept = keptEntries[section] ?? []
        output.append(section == .accessToken ? "\n\"" : ",\n\"")
        output.append(section.name)
        if entities.isEmpty && kept.isEmpty, let unusable = unusableSections[section] {
            output.append("\":")
            output.appendRaw(unusable)
            return placements
        }
        if unusableSections[section] != nil {
            Log.warning(
                "Token cache: the \(section.name) section, not a JSON object, is replaced by this library's entries.")
        }
        output.append("\":{")
        if placing { placements.reserveCapacity(entities.count) }
        let keptKeys = Set(kept.map(\.key))
        var superseded = Set<String>()
        let file = sourceFile
        var index = 0
        while index < entities.count {
            defer { index += 1 }
            output.append(index == 0 ? "\n" : ",\n")
            if !keptKeys.isEmpty {
                let key = key(of: entities[index])
                if keptKeys.contains(key) { superseded.insert(key) }
            }
            let origin = origins[originAt: index]
            if let file, origin.entry != nil {
                // Entries that follow each other in the file, checked, go over as one run.
                let run = copier.copyRun(
                    origins, from: index, to: entities.count, file: file, into: output, placing: placing,
                    placements: &placements)
                if run > 0 {
                    copied += run
                    if !keptKeys.isEmpty {
                        for next in (index + 1)..<(index + run) {
                            let key = key(of: entities[next])
                            if keptKeys.contains(key) { superseded.insert(key) }
                        }
                    }
                    index += run - 1
                    continue
                }
            }
            if let file, let place = origin.entry,
                let placement = copier.copyEntry(place, secret: origin.secret, from: file, into: output)
            {
                copied += 1
                if placing { placements.append(placement) }
                continue
            }
            let start = output.position
            if let key = entities[index].originalKey {
                output.appendQuoted(key)
            } else {
                entities[index].buildKey(&builder)
                output.appendQuoted(builder.bytes.span)
            }
            output.append(":{")
            let kept = file.flatMap { file in origin.secret.map { $0.range(in: file) } }
            if origin.secret != nil && kept == nil { copier.recordFailure() }
            let secret = Entity.schema.writeMembers(of: entities[index], keptSecret: kept, to: output, copier: copier)
            let unknown = entities[index].unknown
            if !unknown.isEmpty {
                output.append(",")
                output.appendRaw(unknown.raw)
            }
            output.append("}")
            if placing { placements.append(EntryPlacement(written: start, secret: secret, in: output)) }
        }
        var first = entities.isEmpty
        for entry in kept where !superseded.contains(entry.key) {
            output.append(first ? "\n" : ",\n")
            first = false
            output.appendRaw(entry.raw)
        }
        output.append("}")
        return placements
    }
}

extension CacheSchema {
    /// Writes the members of `entity`'s entry in the schema's order, from the first one on (the
    /// secret from its place in the source file when the store keeps it there, `keptSecret`);
    /// returns where its secret went.
    func writeMembers(
        of entity: Entity, keptSecret: CacheFileRange?, to output: ByteOutput, copier: CacheSecretCopier
    ) -> SecretPlacement? {
        var first = true
        var secret: SecretPlacement?
        for member in members {
            switch member.value {
            case .credentialType(let literal):
                output.member(member.name, "\(literal)", first: &first)
            case .secret(let path):
                secret = output.secretMember(entity[keyPath: path], kept: keptSecret, copier: copier, first: &first)
            case .required(let path), .defaulted(let path):
                output.member(member.name, entity[keyPath: path], first: &first)
            case .optional(let path), .stringOrNumber(let path):
                output.member(member.name, entity[keyPath: path], first: &first)
            case .timestamp(let path):
                output.member(member.name, timestamp: entity[keyPath: path], first: &first)
            }
        }
        return secret
    }
}

/// Where an entry went in a document being written: its place, when its bytes could be checked
/// (all of them still in the output's buffer), and its secret's.
struct EntryPlacement {
    var entry: EntryPlace?
    var secret: SecretPlacement?

    init(entry: EntryPlace?, secret: SecretPlacement?) {
        self.entry = entry
        self.secret = secret
    }

    /// The placement of the entry written from document offset `start` to `output`'s position.
    init(written start: Int, secret: SecretPlacement?, in output: ByteOutput) {
        self.secret = secret
        let length = output.position - start
        guard length <= Int32.max else { return }
        let excluded = secret.flatMap { secret in
            secret.isKeptInFile ? (secret.offset - start)..<(secret.offset - start + secret.length) : nil
        }
        guard let check = output.withBuffered(from: start, { EntryPlace.check($0, secret: excluded) }) else { return }
        entry = EntryPlace(offset: start, check: check, length: Int32(length))
    }
}
