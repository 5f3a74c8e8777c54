/// Writes the cache document in MSAL Python's shape: top-level `AccessToken`, `RefreshToken`,
/// `IdToken`, `Account`, `AppMetadata` objects keyed by MSAL Python's keys (or an entry's
/// original key), string timestamps, each entry's unknown fields after its known ones, then
/// `AccountMetadata` and the unknown sections unchanged. One entry per line.
///
/// An entity unchanged since it was read or saved (``CacheEntrySource``) is copied as its entry
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
        /// How many writers wrote the document (for tests and logs).
        var parts = 1

        /// Appends the placements of the part of the document after the one these are of.
        mutating func append(_ later: Placements) {
            accessTokens += later.accessTokens
            refreshTokens += later.refreshTokens
            idTokens += later.idTokens
            accounts += later.accounts
            appMetadata += later.appMetadata
            copied += later.copied
            parts += later.parts
        }
    }

    /// A place in the document between two entities of its five entity sections (access tokens,
    /// refresh tokens, id tokens, accounts, app metadata): before entity `index` of `section`.
    /// ``end`` is after all of them; the account metadata and the unknown sections follow it.
    struct Cursor: Comparable, Sendable {
        var section: Int
        var index: Int

        static let start = Cursor(section: 0, index: 0)
        static let end = Cursor(section: 5, index: 0)

        static func < (lhs: Cursor, rhs: Cursor) -> Bool {
            (lhs.section, lhs.index) < (rhs.section, rhs.index)
        }
    }

    /// Writes the document, or the part of it between two cursors (``Cursor/start`` and
    /// ``Cursor/end`` for the whole; the first part starts with `{`, the last one ends the
    /// document). Secrets held as places in a file are copied through `copier`; check its
    /// ``CacheSecretCopier/failed`` before using the output. With `placing`, the placements say
    /// where every entry of the part went (``TokenStore/place(in:_:)``); without, only
    /// ``Placements/copied`` is counted.
    @discardableResult
    static func write(
        _ contents: CacheContents, to output: ByteOutput, copier: CacheSecretCopier, placing: Bool = true,
        part: Range<Cursor> = Cursor.start..<Cursor.end
    ) -> Placements {
        var placements = Placements()
        var writer = SectionWriter(
            output: output, copier: copier, sourceFile: contents.sourceFile, placing: placing, part: part)
        if part.lowerBound == .start { output.append("{") }
        placements.accessTokens = writer.section(0, "AccessToken", contents.accessTokens) { token, output, copier in
            var first = true
            output.member("credential_type", "AccessToken", first: &first)
            let secret = output.secretMember(token.secretValue, copier: copier, first: &first)
            output.member("home_account_id", token.homeAccountId, first: &first)
            output.member("environment", token.environment, first: &first)
            output.member("client_id", token.clientId, first: &first)
            output.member("target", token.target, first: &first)
            output.member("realm", token.realm, first: &first)
            output.member("token_type", token.tokenType, first: &first)
            output.member("cached_at", timestamp: token.cachedAt, first: &first)
            output.member("expires_on", timestamp: token.expiresOn, first: &first)
            output.member("extended_expires_on", timestamp: token.extendedExpiresOn, first: &first)
            output.member("refresh_on", timestamp: token.refreshOn, first: &first)
            return secret
        }
        placements.refreshTokens = writer.section(1, "RefreshToken", contents.refreshTokens) { token, output, copier in
            var first = true
            output.member("credential_type", "RefreshToken", first: &first)
            let secret = output.secretMember(token.secretValue, copier: copier, first: &first)
            output.member("home_account_id", token.homeAccountId, first: &first)
            output.member("environment", token.environment, first: &first)
            output.member("client_id", token.clientId, first: &first)
            output.member("target", token.target, first: &first)
            output.member("realm", token.realm, first: &first)
            output.member("last_modification_time", token.lastModificationTime, first: &first)
            output.member("family_id", token.familyId, first: &first)
            return secret
        }
        placements.idTokens = writer.section(2, "IdToken", contents.idTokens) { token, output, copier in
            var first = true
            output.member("credential_type", "IdToken", first: &first)
            let secret = output.secretMember(token.secretValue, copier: copier, first: &first)
            output.member("home_account_id", token.homeAccountId, first: &first)
            output.member("environment", token.environment, first: &first)
            output.member("realm", token.realm, first: &first)
            output.member("client_id", token.clientId, first: &first)
            return secret
        }
        placements.accounts = writer.section(3, "Account", contents.accounts) { account, output, _ in
            var first = true
            output.member("home_account_id", account.homeAccountId, first: &first)
            output.member("environment", account.environment, first: &first)
            output.member("realm", account.realm, first: &first)
            output.member("local_account_id", account.localAccountId, first: &first)
            output.member("username", account.username, first: &first)
            output.member("authority_type", account.authorityType, first: &first)
            output.member("client_info", account.clientInfo, first: &first)
            output.member("name", account.name, first: &first)
            output.member("given_name", account.givenName, first: &first)
            output.member("family_name", account.familyName, first: &first)
            output.member("middle_name", account.middleName, first: &first)
            return nil
        }
        placements.appMetadata = writer.section(4, "AppMetadata", contents.appMetadata) { metadata, output, _ in
            var first = true
            output.member("client_id", metadata.clientId, first: &first)
            output.member("environment", metadata.environment, first: &first)
            output.member("family_id", metadata.familyId, first: &first)
            return nil
        }
        placements.copied = writer.copied
        guard part.upperBound == .end else { return placements }
        if !contents.accountMetadata.isEmpty || !contents.accountMetadataUnknown.isEmpty {
            output.append(",")
            writeAccountMetadata(contents, output)
        }
        for (name, rawValue) in contents.unknownSections {
            output.append(",\n")
            output.appendQuoted(name)
            output.append(":")
            output.appendRaw(rawValue)
        }
        output.append("\n}\n")
        return placements
    }

    /// Where to split the document between two writers: before the entity at about the middle of
    /// the bytes of the entries to be copied; `nil` when those are fewer than `minimumBytes`.
    static func splitPoint(_ contents: CacheContents, minimumBytes: Int) -> Cursor? {
        guard contents.sourceFile != nil else { return nil }
        // Walks the sections in document order with `visit(section, index, copied bytes)` until
        // it returns `false`.
        func walk(_ visit: (Int, Int, Int) -> Bool) {
            func section<Entity: CacheEntity>(_ entities: [Entity], _ number: Int) -> Bool {
                for index in entities.indices {
                    guard visit(number, index, Int(entities[index].source.place?.length ?? 0)) else { return false }
                }
                return true
            }
            _ =
                section(contents.accessTokens, 0) && section(contents.refreshTokens, 1)
                && section(contents.idTokens, 2) && section(contents.accounts, 3) && section(contents.appMetadata, 4)
        }
        var total = 0
        walk { _, _, bytes in
            total += bytes
            return true
        }
        guard total >= minimumBytes, total > 1 else { return nil }
        var before = 0
        var split: Cursor?
        walk { section, index, bytes in
            guard before < total / 2 else {
                split = Cursor(section: section, index: index)
                return false
            }
            before += bytes
            return true
        }
        // Never at the start: the first part is the one that opens the document.
        return split == .start ? nil : split
    }

    private static func writeAccountMetadata(_ contents: CacheContents, _ output: ByteOutput) {
        var byClient: [String: [CacheAccountMetadata]] = [:]
        var clients: [String] = []
        for record in contents.accountMetadata {
            if byClient[record.clientId] == nil { clients.append(record.clientId) }
            byClient[record.clientId, default: []].append(record)
        }
        for client in contents.accountMetadataUnknown.keys.sorted() where byClient[client] == nil {
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
            output.append("}")
            if let unknown = contents.accountMetadataUnknown[client], !unknown.isEmpty {
                output.append(",")
                output.appendRaw(unknown.raw)
            }
            output.append("}")
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
    let part: Range<CacheDocumentWriter.Cursor>
    var builder = CacheKeyBuilder()
    var copied = 0

    init(
        output: ByteOutput, copier: CacheSecretCopier, sourceFile: CacheFileSnapshot?, placing: Bool,
        part: Range<CacheDocumentWriter.Cursor>
    ) {
        self.output = output
        self.copier = copier
        self.sourceFile = sourceFile
        self.placing = placing
        self.part = part
    }

    /// Writes what the part holds of section number `number`, `"name":{…}` (preceded by a comma
    /// but for the first section); `body` writes an entity's members from the first one on and
    /// returns where its secret went. Returns where each entry went when `placing`.
    mutating func section<Entity: CacheEntity>(
        _ number: Int, _ name: StaticString, _ entities: [Entity],
        _ body: (Entity, ByteOutput, CacheSecretCopier) -> SecretPlacement?
    ) -> [EntryPlacement] {
        let (lower, upper) = (part.lowerBound, part.upperBound)
        // The section is in the part when it starts before the part's end and does not end
        // before the part's start (a cursor is before an entity, or at a section's start).
        guard lower.section <= number, number < upper.section || (number == upper.section && upper.index > 0) else {
            return []
        }
        let first = lower.section == number ? lower.index : 0
        let last = upper.section == number ? min(upper.index, entities.count) : entities.count
        var placements: [EntryPlacement] = []
        if placing { placements.reserveCapacity(last - first) }
        if first == 0 {
            output.append(number == 0 ? "\n\"" : ",\n\"")
            output.append(name)
            output.append("\":{")
        }
        let file = sourceFile
        for index in first..<last {
            output.append(index == 0 ? "\n" : ",\n")
            if let file, let place = entities[index].source.place,
                let placement = copier.copyEntry(
                    place, secret: entities[index].secretSpan(in: file), from: file, into: output)
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
                builder.bytes.withUnsafeBufferPointer { output.appendQuoted($0) }
            }
            output.append(":{")
            let secret = body(entities[index], output, copier)
            let unknown = entities[index].unknown
            if !unknown.isEmpty {
                output.append(",")
                output.appendRaw(unknown.raw)
            }
            output.append("}")
            if placing { placements.append(EntryPlacement(written: start, secret: secret, in: output)) }
        }
        if number < upper.section { output.append("}") }
        return placements
    }
}

/// Where an entry went in a document being written: its place, when its bytes could be checked
/// (all of them still in the output's buffer), and its secret's.
struct EntryPlacement {
    var entry: CacheEntrySource.Place?
    var secret: SecretPlacement?

    init(entry: CacheEntrySource.Place?, secret: SecretPlacement?) {
        self.entry = entry
        self.secret = secret
    }

    /// The placement of the entry written from document offset `start` to `output`'s position.
    init(written start: Int, secret: SecretPlacement?, in output: ByteOutput) {
        self.secret = secret
        let length = output.position - start
        guard length <= Int32.max, let bytes = output.buffered(from: start) else { return }
        let excluded = secret.flatMap { secret in
            secret.isKeptInFile ? (secret.offset - start)..<(secret.offset - start + secret.length) : nil
        }
        entry = CacheEntrySource.Place(
            offset: start, check: CacheEntrySource.check(bytes, secret: excluded), length: Int32(length))
    }
}
