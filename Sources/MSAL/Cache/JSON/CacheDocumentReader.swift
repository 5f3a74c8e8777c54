/// Reads the cache document (MSAL Python's JSON shape) step by step, one entry per step, so the
/// input can arrive in windows: when a step runs out of bytes it is retried on a longer window.
///
/// Structure errors (not JSON, truncated) fail the whole document; an entry that is JSON but
/// lacks a required field or has a field of the wrong type is skipped and counted.
struct CacheDocumentReader {
    private enum State {
        case start
        /// Inside the top-level object; `first` when no member was read yet.
        case document(first: Bool)
        case section(CacheSection, first: Bool)
        case done
    }

    private var state = State.start
    private(set) var contents = CacheContents()
    private var fields = CacheEntityFields()
    private var interner = StringInterner()
    /// The file the document is read from, when secrets are to be kept as places in it.
    let snapshot: CacheFileSnapshot?

    /// A reader; with `snapshot`, the windows given to ``consume(_:origin:isFinal:)`` are that
    /// file's bytes at their origins, and secrets are kept as places in it.
    init(snapshot: CacheFileSnapshot? = nil) {
        self.snapshot = snapshot
    }

    /// The contents read so far, moved out of the reader (which is left empty), so that they are
    /// the only owner of their arrays and can grow without being copied.
    mutating func takeContents() -> CacheContents {
        var taken = CacheContents()
        swap(&taken, &contents)
        taken.sourceFile = snapshot
        return taken
    }

    var isDone: Bool {
        if case .done = state { return true }
        return false
    }

    /// Runs steps over `window` (whose first byte is at document offset `origin`) until the
    /// document ends or the window runs out. Returns the window offset of the first unconsumed
    /// byte; throws only ``JSONScanError/malformed(_:offset:)``.
    mutating func consume(_ window: UnsafeRawBufferPointer, origin: Int, isFinal: Bool) throws(JSONScanError) -> Int {
        var cursor = JSONByteCursor(window, isFinal: isFinal, origin: origin)
        var stepStart = 0
        while !isDone {
            do {
                try step(&cursor)
                stepStart = cursor.index
            } catch .needMore {
                return stepStart
            }
        }
        cursor.skipWhitespace()
        if cursor.index < cursor.count { throw cursor.fail("unexpected bytes after the document") }
        return cursor.index
    }

    private mutating func step(_ cursor: inout JSONByteCursor) throws(JSONScanError) {
        switch state {
        case .start:
            if cursor.origin + cursor.index == 0 { try cursor.skipByteOrderMark() }
            try cursor.expect(UInt8(ascii: "{"), "'{' starting the cache document")
            state = .document(first: true)
        case .document(let first):
            if first {
                if try cursor.peek() == UInt8(ascii: "}") {
                    cursor.index += 1
                    state = .done
                    return
                }
            } else if !(try cursor.separator(close: UInt8(ascii: "}"))) {
                state = .done
                return
            }
            let name = try cursor.scanString()
            try cursor.expect(UInt8(ascii: ":"), "':'")
            // Sections are told apart by their decoded names (`"App\u004detadata"` is AppMetadata).
            let section =
                name.escaped
                ? CacheSection.named(try cursor.makeString(name.start, name.end, escaped: true))
                : CacheSection.named(cursor, name.start, name.end)
            if let section, try cursor.peek() == UInt8(ascii: "{") {
                cursor.index += 1
                state = .section(section, first: true)
            } else {
                let value = try cursor.skipValue()
                let raw = String(
                    decoding: UnsafeBufferPointer(start: cursor.base + value.lowerBound, count: value.count),
                    as: UTF8.self)
                if let section {
                    // A known section that is not an object: kept as it is, written once.
                    contents.unusableSections[section] = raw
                    Log.warning("Token cache: the \(section.name) section is not a JSON object; it is kept unchanged.")
                } else {
                    let nameString = try cursor.makeString(name.start, name.end, escaped: name.escaped)
                    contents.unknownSections.append((nameString, raw))
                }
                state = .document(first: false)
            }
        case .section(let section, let first):
            if first {
                if try cursor.peek() == UInt8(ascii: "}") {
                    cursor.index += 1
                    state = .document(first: false)
                    return
                }
            } else if !(try cursor.separator(close: UInt8(ascii: "}"))) {
                state = .document(first: false)
                return
            }
            try entry(section, &cursor)
            state = .section(section, first: false)
        case .done:
            return
        }
    }

    private mutating func entry(_ section: CacheSection, _ cursor: inout JSONByteCursor) throws(JSONScanError) {
        let key = try cursor.scanString()
        try cursor.expect(UInt8(ascii: ":"), "':'")
        guard try cursor.peek() == UInt8(ascii: "{") else {
            _ = try cursor.skipValue()
            try keep(section, key, cursor, reason: "the entry is not a JSON object")
            return
        }
        if section == .accountMetadata {
            let clientKey = try cursor.makeString(key.start, key.end, escaped: key.escaped)
            try readAccountMetadata(clientKey: clientKey, &cursor)
            return
        }
        try cursor.readEntity(into: &fields, interner: &interner, snapshot: snapshot)
        if let invalid = fields.invalidField {
            try keep(section, key, cursor, reason: "the field \(invalid) has a value of the wrong type")
            return
        }
        // The entry's bytes, when it is read from a file that later saves copy it from.
        let entry = snapshot == nil ? nil : (key.start - 1)..<cursor.index
        // Each entity is moved from its fields into the contents and its key checked in place,
        // never copied: an entity holds a dozen references, and a copy costs a retain and a
        // release for each.
        let missing: MissingField?
        switch section {
        case .accessToken:
            missing = Self.take(
                &fields, into: &contents.accessTokens, &contents.origins.accessTokens, key, entry, cursor
            ) { $0.takeAccessToken(into: &$1) }
        case .refreshToken:
            missing = Self.take(
                &fields, into: &contents.refreshTokens, &contents.origins.refreshTokens, key, entry, cursor
            ) { $0.takeRefreshToken(into: &$1) }
        case .idToken:
            missing = Self.take(&fields, into: &contents.idTokens, &contents.origins.idTokens, key, entry, cursor) {
                $0.takeIdToken(into: &$1)
            }
        case .account:
            missing = Self.take(&fields, into: &contents.accounts, &contents.origins.accounts, key, entry, cursor) {
                $0.takeAccount(into: &$1)
            }
        case .appMetadata:
            missing = Self.take(
                &fields, into: &contents.appMetadata, &contents.origins.appMetadata, key, entry, cursor
            ) { $0.takeAppMetadata(into: &$1) }
        case .accountMetadata:
            missing = nil
        }
        if let missing { try keep(section, key, cursor, reason: "it has no \(missing.name)") }
    }

    /// Moves the entity out of `fields` into `entities` with `take` (which returns the required
    /// field it lacks instead), checks its key in place, and appends its origin (where its entry
    /// `entry` and its secret are in the file) to `origins`. Static, with the reader's fields and
    /// arrays passed separately, so that nothing copies the reader or the entity.
    private static func take<Entity: CacheEntity>(
        _ fields: inout CacheEntityFields, into entities: inout [Entity], _ origins: inout [EntryOrigin],
        _ key: (start: Int, end: Int, escaped: Bool), _ entry: Range<Int>?, _ cursor: JSONByteCursor,
        _ take: (inout CacheEntityFields, inout [Entity]) -> MissingField?
    ) -> MissingField? {
        let secret = fields.secretSpan
        if let missing = take(&fields, &entities) { return missing }
        let last = entities.count - 1
        rememberKey(of: &entities[last], key, cursor, fields.keyFieldBytes)
        origins.pad(to: last)
        // The key as it is in the file is the decoded one when it has no escapes.
        let keyHash =
            key.escaped
            ? nil
            : Int(
                truncatingIfNeeded: CacheFileRange.check(
                    UnsafeBufferPointer(start: cursor.base + key.start, count: key.end - key.start)))
        origins.append(
            EntryOrigin(
                entry: entry.flatMap { place(of: $0, secret: secret, cursor) }, secret: secret, keyHash: keyHash))
        return nil
    }

    /// The place of the entry (the window's bytes `entry`) in the file, so that a save copies it
    /// from there while the entity is unchanged.
    private static func place(of entry: Range<Int>, secret: SecretSpan?, _ cursor: JSONByteCursor) -> EntryPlace? {
        guard entry.count <= Int32.max else { return nil }
        let bytes = UnsafeBufferPointer(start: cursor.base + entry.lowerBound, count: entry.count)
        let inside = secret.map { span in
            let start = span.offset - cursor.origin - entry.lowerBound
            return start..<(start + Int(span.length))
        }
        return EntryPlace(
            offset: cursor.origin + entry.lowerBound, check: EntryPlace.check(bytes, secret: inside),
            length: Int32(entry.count))
    }

    /// Remembers the key `entity` was read under when it differs from the one we write.
    private static func rememberKey<Entity: CacheEntity>(
        of entity: inout Entity, _ key: (start: Int, end: Int, escaped: Bool), _ cursor: JSONByteCursor,
        _ fieldBytes: CacheEntityFields.KeyFieldBytes
    ) {
        var matcher = CacheKeyMatcher(
            UnsafeBufferPointer(start: cursor.base + key.start, count: key.end - key.start), window: cursor.base,
            fieldBytes: fieldBytes)
        entity.buildKey(&matcher)
        if key.escaped || !matcher.matchedAll {
            entity.originalKey = try? cursor.makeString(key.start, key.end, escaped: key.escaped)
        }
    }

    /// Keeps the entry that ends at the cursor, whose key is `key`, byte for byte: this library
    /// cannot model it (another program's shape, or damaged), so it is never returned by a query,
    /// and every save writes it back as it is.
    private mutating func keep(
        _ section: CacheSection, _ key: (start: Int, end: Int, escaped: Bool), _ cursor: JSONByteCursor,
        reason: String
    ) throws(JSONScanError) {
        let start = key.start - 1
        let raw = String(
            decoding: UnsafeBufferPointer(start: cursor.base + start, count: cursor.index - start), as: UTF8.self)
        let name = try cursor.makeString(key.start, key.end, escaped: key.escaped)
        let before: Int
        switch section {
        case .accessToken: before = contents.accessTokens.count
        case .refreshToken: before = contents.refreshTokens.count
        case .idToken: before = contents.idTokens.count
        case .account: before = contents.accounts.count
        case .appMetadata: before = contents.appMetadata.count
        case .accountMetadata: before = 0
        }
        contents.keptEntries[section, default: []].append(KeptEntry(key: name, raw: raw, entitiesBefore: before))
        contents.skipped["\(section.name)", default: 0] += 1
        Log.info("Token cache: a \(section.name) entry it cannot read is kept unchanged: \(reason).")
    }

    private mutating func skip(_ section: CacheSection, reason: String) {
        contents.skipped["\(section.name)", default: 0] += 1
        Log.warning("Token cache: skipped a malformed \(section.name) entry: \(reason).")
    }

    /// One client's object of the `AccountMetadata` section.
    private mutating func readAccountMetadata(clientKey: String, _ cursor: inout JSONByteCursor) throws(JSONScanError) {
        guard try cursor.peek() == UInt8(ascii: "{") else {
            _ = try cursor.skipValue()
            return skip(.accountMetadata, reason: "the entry is not a JSON object")
        }
        cursor.index += 1
        var clientId = clientKey
        var records: [CacheAccountMetadata] = []
        var keptRecords: [KeptEntry] = []
        var unknown = UnknownFields.none
        if try cursor.peek() == UInt8(ascii: "}") {
            cursor.index += 1
            return
        }
        repeat {
            let name = try cursor.scanString()
            try cursor.expect(UInt8(ascii: ":"), "':'")
            if cursor.bytesEqual(name.start, name.end, "client_id"), try cursor.peek() == UInt8(ascii: "\"") {
                clientId = try cursor.string()
            } else if cursor.bytesEqual(name.start, name.end, "account_metadata_map"),
                try cursor.peek() == UInt8(ascii: "{")
            {
                cursor.index += 1
                if try cursor.peek() == UInt8(ascii: "}") {
                    cursor.index += 1
                } else {
                    repeat {
                        let key = try cursor.scanString()
                        let homeAccountId = try cursor.makeString(key.start, key.end, escaped: key.escaped)
                        try cursor.expect(UInt8(ascii: ":"), "':'")
                        let value = try cursor.skipValue()
                        let raw = UnsafeRawBufferPointer(start: cursor.base + value.lowerBound, count: value.count)
                        if let record = Self.accountMetadataRecord(raw, homeAccountId: homeAccountId) {
                            records.append(record)
                        } else {
                            // Kept byte for byte, as the entries of the other sections.
                            let member = String(
                                decoding: UnsafeBufferPointer(
                                    start: cursor.base + key.start - 1, count: value.upperBound - key.start + 1),
                                as: UTF8.self)
                            keptRecords.append(KeptEntry(key: homeAccountId, raw: member))
                            contents.skipped["AccountMetadata", default: 0] += 1
                        }
                    } while try cursor.separator(close: UInt8(ascii: "}"))
                }
            } else {
                let value = try cursor.skipValue()
                let member =
                    String(
                        decoding: UnsafeBufferPointer(
                            start: cursor.base + name.start - 1, count: name.end - name.start + 2), as: UTF8.self)
                    + ":"
                    + String(
                        decoding: UnsafeBufferPointer(start: cursor.base + value.lowerBound, count: value.count),
                        as: UTF8.self)
                unknown.raw = unknown.isEmpty ? member : unknown.raw + "," + member
            }
        } while try cursor.separator(close: UInt8(ascii: "}"))
        for index in records.indices { records[index].clientId = clientId }
        contents.accountMetadata.append(contentsOf: records)
        if !unknown.isEmpty { contents.accountMetadataUnknown[clientId] = unknown }
        if !keptRecords.isEmpty { contents.accountMetadataKept[clientId, default: []] += keptRecords }
    }

    /// A record of `account_metadata_map` (small; read with the general JSON parser).
    private static func accountMetadataRecord(_ raw: UnsafeRawBufferPointer, homeAccountId: String)
        -> CacheAccountMetadata?
    {
        guard case .object(let object)? = try? JSONValue(parsing: raw) else { return nil }
        var record = CacheAccountMetadata(clientId: "", homeAccountId: homeAccountId)
        if case .string(let state)? = object["sign_in_state"] {
            record.signInState = SignInState(rawValue: state) ?? .unknown
        }
        if case .object(let maps)? = object["athority_map"] {
            for (mapName, map) in maps {
                guard case .object(let entries) = map else { continue }
                var converted: [String: String] = [:]
                for (request, result) in entries {
                    if case .string(let value) = result { converted[request] = value }
                }
                record.authorityMap[mapName] = converted
            }
        }
        var unknown = UnknownFields.none
        for (name, value) in object.sorted(by: { $0.key < $1.key })
        where !["client_id", "home_account_id", "sign_in_state", "athority_map"].contains(name) {
            unknown.append(name: name, rawValue: value.serializedString())
        }
        record.unknown = unknown
        return record
    }
}

/// What the reader and writer need of every entity type.
protocol CacheEntity: Sendable {
    var originalKey: String? { get set }
    var unknown: UnknownFields { get }
    func buildKey<Sink: CacheKeySink>(_ builder: inout Sink)
}

extension CacheAccessToken: CacheEntity {}
extension CacheRefreshToken: CacheEntity {}
extension CacheIdToken: CacheEntity {}
extension CacheAccount: CacheEntity {}
extension CacheAppMetadata: CacheEntity {}
