import MSALNative

/// Reads the cache document (MSAL Python's JSON shape) step by step, one entry per step, so the
/// input can arrive in windows: when a step runs out of bytes it is retried on a longer window.
///
/// Structure errors (not JSON, truncated) fail the whole document; an entry that is JSON but
/// lacks a required member or has one of the wrong type is kept byte for byte and counted.
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
    private var scan = CacheEntryScan()
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
    mutating func consume(_ window: [UInt8], count: Int? = nil, origin: Int, isFinal: Bool) throws(JSONScanError)
        -> Int
    {
        var cursor = JSONByteCursor(window, count: count, isFinal: isFinal, origin: origin)
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
                let raw = cursor.text(value)
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
            if let reason = try readAccountMetadata(clientKey: clientKey, &cursor) {
                try keep(section, key, cursor, reason: reason)
            }
            return
        }
        // The entry's bytes, when it is read from a file that later saves copy it from.
        let entry = snapshot == nil ? nil : (key.start - 1)
        let reason: String?
        switch section {
        case .accessToken:
            reason = try Self.read(
                into: &contents.accessTokens, &contents.origins.accessTokens, &scan, &interner, snapshot, key, entry,
                &cursor)
        case .refreshToken:
            reason = try Self.read(
                into: &contents.refreshTokens, &contents.origins.refreshTokens, &scan, &interner, snapshot, key,
                entry, &cursor)
        case .idToken:
            reason = try Self.read(
                into: &contents.idTokens, &contents.origins.idTokens, &scan, &interner, snapshot, key, entry, &cursor)
        case .account:
            reason = try Self.read(
                into: &contents.accounts, &contents.origins.accounts, &scan, &interner, snapshot, key, entry, &cursor)
        case .appMetadata:
            reason = try Self.read(
                into: &contents.appMetadata, &contents.origins.appMetadata, &scan, &interner, snapshot, key, entry,
                &cursor)
        case .accountMetadata:
            reason = nil
        }
        if let reason { try keep(section, key, cursor, reason: reason) }
    }

    /// Reads the entry at the cursor into a new entity at the end of `entities`, checks its key
    /// in place, and appends its origin (where its entry, from `entryStart`, and its secret are in
    /// the file) to `origins`; or, when the entry cannot be an entity (a member of the wrong type,
    /// a required one missing), removes it again and returns why. Static, with the reader's
    /// arrays and state passed separately, so that nothing copies the reader or the entity: an
    /// entity is read in place in its array (a copy costs a retain and a release per string).
    private static func read<Entity: CacheEntity>(
        into entities: inout [Entity], _ origins: inout [EntryOrigin], _ scan: inout CacheEntryScan,
        _ interner: inout StringInterner, _ snapshot: CacheFileSnapshot?,
        _ key: (start: Int, end: Int, escaped: Bool), _ entryStart: Int?, _ cursor: inout JSONByteCursor
    ) throws(JSONScanError) -> String? {
        entities.append(Entity())
        let last = entities.count - 1
        do {
            try cursor.readEntry(into: &entities[last], &scan, interner: &interner, snapshot: snapshot)
        } catch {
            entities.removeLast()
            throw error
        }
        if let invalid = scan.invalidMember {
            entities.removeLast()
            return "the field \(invalid) has a value of the wrong type"
        }
        if let missing = scan.missingMember(Entity.schema) {
            entities.removeLast()
            return "it has no \(missing)"
        }
        rememberKey(of: &entities[last], key, cursor, scan.memberBytes)
        origins.pad(to: last)
        // The key as it is in the file is the decoded one when it has no escapes.
        let keyHash =
            key.escaped
            ? nil
            : Int(
                truncatingIfNeeded: CacheFileRange.check(cursor.bytes.span.extracting(key.start..<key.end)))
        let secret = scan.secretSpan
        origins.append(
            EntryOrigin(
                entry: entryStart.flatMap { place(of: $0..<cursor.index, secret: secret, cursor) }, secret: secret,
                keyHash: keyHash))
        return nil
    }

    /// The place of the entry (the window's bytes `entry`) in the file, so that a save copies it
    /// from there while the entity is unchanged.
    private static func place(of entry: Range<Int>, secret: SecretSpan?, _ cursor: JSONByteCursor) -> EntryPlace? {
        guard entry.count <= Int32.max else { return nil }
        let inside = secret.map { span in
            let start = span.offset - cursor.origin - entry.lowerBound
            return start..<(start + Int(span.length))
        }
        return EntryPlace(
            offset: cursor.origin + entry.lowerBound,
            check: EntryPlace.check(cursor.bytes.span.extracting(entry), secret: inside),
            length: Int32(entry.count))
    }

    /// Remembers the key `entity` was read under when it differs from the one we write.
    private static func rememberKey<Entity: CacheEntity>(
        of entity: inout Entity, _ key: (start: Int, end: Int, escaped: Bool), _ cursor: JSONByteCursor,
        _ memberBytes: CacheMemberBytes
    ) {
        var matcher = CacheKeyMatcher(
            window: cursor.bytes, key: key.start..<key.end, memberBytes: memberBytes)
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
        let raw = cursor.text(start..<cursor.index)
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

    /// One client's object of the `AccountMetadata` section; or, when its `client_id` is not a
    /// string or its `account_metadata_map` not an object, nothing, and why (the caller keeps the
    /// whole object byte for byte: written back with members of ours beside it, it would name
    /// them twice).
    private mutating func readAccountMetadata(
        clientKey: String, _ cursor: inout JSONByteCursor
    ) throws(JSONScanError) -> String? {
        try cursor.expect(UInt8(ascii: "{"), "'{'")
        var clientId = clientKey
        var records: [CacheAccountMetadata] = []
        var keptRecords: [KeptEntry] = []
        var unknown = UnknownFields.none
        var notOurs: String?
        if try cursor.peek() == UInt8(ascii: "}") {
            cursor.index += 1
            return nil
        }
        repeat {
            let name = try cursor.scanString()
            try cursor.expect(UInt8(ascii: ":"), "':'")
            let isClientId = !name.escaped && cursor.bytesEqual(name.start, name.end, "client_id")
            let isMap = !name.escaped && cursor.bytesEqual(name.start, name.end, "account_metadata_map")
            let next = try cursor.peek()
            if name.escaped,
                ["client_id", "account_metadata_map"].contains(
                    try cursor.makeString(name.start, name.end, escaped: true))
            {
                _ = try cursor.skipValue()
                notOurs = "it names a member of ours with escapes"
            } else if isClientId, next == UInt8(ascii: "\"") {
                clientId = try cursor.string()
            } else if isClientId || (isMap && next != UInt8(ascii: "{")) {
                _ = try cursor.skipValue()
                notOurs = "its \(isClientId ? "client_id is not a string" : "account_metadata_map is not an object")"
            } else if isMap {
                cursor.index += 1
                if try cursor.peek() == UInt8(ascii: "}") {
                    cursor.index += 1
                } else {
                    repeat {
                        let key = try cursor.scanString()
                        let homeAccountId = try cursor.makeString(key.start, key.end, escaped: key.escaped)
                        try cursor.expect(UInt8(ascii: ":"), "':'")
                        let value = try cursor.skipValue()
                        if let record = Self.accountMetadataRecord(cursor.slice(value), homeAccountId: homeAccountId) {
                            records.append(record)
                        } else {
                            // Kept byte for byte, as the entries of the other sections.
                            let member = cursor.text((key.start - 1)..<value.upperBound)
                            keptRecords.append(KeptEntry(key: homeAccountId, raw: member))
                            contents.skipped["AccountMetadata", default: 0] += 1
                        }
                    } while try cursor.separator(close: UInt8(ascii: "}"))
                }
            } else {
                let value = try cursor.skipValue()
                let member = cursor.text((name.start - 1)..<(name.end + 1)) + ":" + cursor.text(value)
                unknown.raw = unknown.isEmpty ? member : unknown.raw + "," + member
            }
        } while try cursor.separator(close: UInt8(ascii: "}"))
        if let notOurs { return notOurs }
        for index in records.indices { records[index].clientId = clientId }
        contents.accountMetadata.append(contentsOf: records)
        if !unknown.isEmpty { contents.accountMetadataUnknown[clientId] = unknown }
        if !keptRecords.isEmpty { contents.accountMetadataKept[clientId, default: []] += keptRecords }
        return nil
    }

    /// A record of `account_metadata_map` (small; read with the general JSON parser).
    private static func accountMetadataRecord(_ raw: ArraySlice<UInt8>, homeAccountId: String)
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
