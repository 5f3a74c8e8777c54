/// The fields of any cache entity, as read from one JSON object before it becomes a typed entity.
struct CacheEntityFields {
    enum Field: Int, CaseIterable {
        case credentialType, secret, homeAccountId, environment, clientId, target, realm, tokenType
        case cachedAt, expiresOn, extendedExpiresOn, refreshOn, familyId, lastModificationTime
        case localAccountId, username, authorityType, clientInfo, name, givenName, familyName, middleName
    }

    private(set) var strings: [String?] = Array(repeating: nil, count: Field.allCases.count)
    /// Which of ``strings`` may hold a value (bit `rawValue`), so ``reset()`` clears only those.
    private var stringsSet: UInt32 = 0
    var timestamps: (cachedAt: Int64?, expiresOn: Int64?, extendedExpiresOn: Int64?, refreshOn: Int64?)
    /// A known field had a value of the wrong type: the entity is skipped.
    var invalidField: String?
    var unknown = UnknownFields.none
    /// `secret`, kept apart: its text, empty when it is kept as ``secretSpan``.
    var secret: String?
    /// Where `secret` is in the file, when it is kept there rather than as text.
    var secretSpan: SecretSpan?
    /// Where the values that keys are made of lie in the window, for the key check.
    var keyFieldBytes = KeyFieldBytes()

    subscript(_ field: Field) -> String? { strings[field.rawValue] }

    /// Sets the string of `field`.
    mutating func set(_ field: Field, _ value: consuming String) {
        strings[field.rawValue] = value
        stringsSet |= 1 << UInt32(field.rawValue)
    }

    /// Moves the string of `field` out (so building an entity does not copy its reference).
    mutating func take(_ field: Field) -> String? {
        stringsSet &= ~(1 << UInt32(field.rawValue))
        return strings[field.rawValue].take()
    }

    mutating func reset() {
        // Most values were taken by the entity built from them: only the rest are cleared.
        while stringsSet != 0 {
            let index = stringsSet.trailingZeroBitCount
            strings[index] = nil
            stringsSet &= stringsSet - 1
        }
        timestamps = (nil, nil, nil, nil)
        invalidField = nil
        unknown = .none
        secret = nil
        secretSpan = nil
        keyFieldBytes = KeyFieldBytes()
    }

    /// The window offsets of the values of the fields keys are made of (home account id,
    /// environment, client id, target, realm) that are written without escapes, so the key an
    /// entity was read under is compared with those bytes rather than with the entity's strings.
    struct KeyFieldBytes {
        private var starts = SIMD8<Int32>(repeating: -1)
        private var ends = SIMD8<Int32>(repeating: -1)

        /// The field's place in the vectors, or `nil` for fields keys are not made of.
        private static func slot(_ field: Field) -> Int? {
            let slot = field.rawValue - Field.homeAccountId.rawValue
            return slot >= 0 && slot < 5 ? slot : nil
        }

        subscript(_ field: Field) -> Range<Int>? {
            guard let slot = Self.slot(field), starts[slot] >= 0 else { return nil }
            return Int(starts[slot])..<Int(ends[slot])
        }

        /// Records the value of `field` at `start..<end` (windows are far smaller than 2 GiB).
        mutating func record(_ field: Field, _ start: Int, _ end: Int) {
            guard let slot = Self.slot(field), end <= Int32.max else { return }
            starts[slot] = Int32(start)
            ends[slot] = Int32(end)
        }
    }

    /// The field named by the bytes `start..<end` of the cursor's window.
    static func field(_ cursor: JSONByteCursor, _ start: Int, _ end: Int) -> Field? {
        let name = cursor.base + start
        switch end - start {
        case 4: return cursor.bytesEqual(start, end, "name") ? .name : nil
        case 5: return cursor.bytesEqual(start, end, "realm") ? .realm : nil
        case 6:
            if cursor.bytesEqual(start, end, "secret") { return .secret }
            return cursor.bytesEqual(start, end, "target") ? .target : nil
        case 8: return cursor.bytesEqual(start, end, "username") ? .username : nil
        case 9:
            if name[0] == UInt8(ascii: "c") {
                if cursor.bytesEqual(start, end, "client_id") { return .clientId }
                return cursor.bytesEqual(start, end, "cached_at") ? .cachedAt : nil
            }
            return cursor.bytesEqual(start, end, "family_id") ? .familyId : nil
        case 10:
            switch name[0] {
            case UInt8(ascii: "t"): return cursor.bytesEqual(start, end, "token_type") ? .tokenType : nil
            case UInt8(ascii: "e"): return cursor.bytesEqual(start, end, "expires_on") ? .expiresOn : nil
            case UInt8(ascii: "r"): return cursor.bytesEqual(start, end, "refresh_on") ? .refreshOn : nil
            case UInt8(ascii: "g"): return cursor.bytesEqual(start, end, "given_name") ? .givenName : nil
            default: return nil
            }
        case 11:
            switch name[0] {
            case UInt8(ascii: "e"): return cursor.bytesEqual(start, end, "environment") ? .environment : nil
            case UInt8(ascii: "c"): return cursor.bytesEqual(start, end, "client_info") ? .clientInfo : nil
            case UInt8(ascii: "f"): return cursor.bytesEqual(start, end, "family_name") ? .familyName : nil
            case UInt8(ascii: "m"): return cursor.bytesEqual(start, end, "middle_name") ? .middleName : nil
            default: return nil
            }
        case 14: return cursor.bytesEqual(start, end, "authority_type") ? .authorityType : nil
        case 15:
            if name[0] == UInt8(ascii: "h") {
                return cursor.bytesEqual(start, end, "home_account_id") ? .homeAccountId : nil
            }
            return cursor.bytesEqual(start, end, "credential_type") ? .credentialType : nil
        case 16: return cursor.bytesEqual(start, end, "local_account_id") ? .localAccountId : nil
        case 19: return cursor.bytesEqual(start, end, "extended_expires_on") ? .extendedExpiresOn : nil
        case 22: return cursor.bytesEqual(start, end, "last_modification_time") ? .lastModificationTime : nil
        default: return nil
        }
    }

    /// Shorter secrets are kept as text: a place in the file would not save memory.
    static let smallestFileSecret = 32

    /// Whether a secret whose JSON text is `length` bytes is kept as its place in the file (when
    /// read from one, and after a save): the one rule for both, which the entry checks rely on
    /// (``EntryPlace/check(_:secret:)`` leaves out exactly the secrets kept so).
    static func keepsInFile(secretLength length: Int) -> Bool {
        length >= smallestFileSecret && length <= Int32.max
    }

    /// Fields whose values repeat across entities and are shared (interned) while reading.
    static func isShared(_ field: Field) -> Bool {
        switch field {
        case .environment, .clientId, .realm, .target, .tokenType, .familyId, .authorityType, .credentialType:
            true
        default:
            false
        }
    }
}

/// Reuses the previous string of a field when the next value has the same bytes, so the
/// environment, client id, realm and scopes of ten thousand entities share one allocation each.
struct StringInterner {
    private var last: [String] = Array(repeating: "", count: CacheEntityFields.Field.allCases.count)

    mutating func string(
        _ cursor: JSONByteCursor, _ start: Int, _ end: Int, slot: Int
    ) -> String {
        let length = end - start
        let same = last[slot].withUTF8Bytes { bytes in
            bytes.count == length && (length == 0 || memcmpEqual(bytes.baseAddress!, cursor.base + start, length))
        }
        if same { return last[slot] }
        let next = String(decoding: UnsafeBufferPointer(start: cursor.base + start, count: length), as: UTF8.self)
        last[slot] = next
        return next
    }
}

extension JSONByteCursor {
    /// Reads one entity object into `fields` (which it resets first). With `snapshot` (the file
    /// the window was read from), a secret is kept as its place in the file instead of as text.
    mutating func readEntity(
        into fields: inout CacheEntityFields, interner: inout StringInterner, snapshot: CacheFileSnapshot?
    ) throws(JSONScanError) {
        fields.reset()
        try expect(UInt8(ascii: "{"), "'{' starting an entry")
        if try peek() == UInt8(ascii: "}") {
            index += 1
            return
        }
        repeat {
            let key = try scanString()
            try expect(UInt8(ascii: ":"), "':'")
            let field = key.escaped ? nil : CacheEntityFields.field(self, key.start, key.end)
            guard let field else {
                let value = try skipValue()
                fields.unknown.appendMember(
                    name: UnsafeBufferPointer(start: base + key.start - 1, count: key.end - key.start + 2),
                    value: UnsafeBufferPointer(start: base + value.lowerBound, count: value.count))
                continue
            }
            let byte = try peek()
            switch field {
            case .cachedAt, .expiresOn, .extendedExpiresOn, .refreshOn:
                let seconds = try timestamp(byte, field: field, fields: &fields)
                switch field {
                case .cachedAt: fields.timestamps.cachedAt = seconds
                case .expiresOn: fields.timestamps.expiresOn = seconds
                case .extendedExpiresOn: fields.timestamps.extendedExpiresOn = seconds
                default: fields.timestamps.refreshOn = seconds
                }
            default:
                if byte == UInt8(ascii: "\""), field == .secret {
                    let value = try scanString()
                    let length = value.end - value.start
                    if snapshot != nil, CacheEntityFields.keepsInFile(secretLength: length) {
                        let bytes = UnsafeBufferPointer(start: base + value.start, count: length)
                        fields.secret = ""
                        fields.secretSpan = SecretSpan(
                            offset: origin + value.start, length: Int32(length), escaped: value.escaped,
                            check: CacheFileRange.check(bytes))
                    } else {
                        fields.secret = try makeString(value.start, value.end, escaped: value.escaped)
                        fields.secretSpan = nil
                    }
                } else if byte == UInt8(ascii: "\"") {
                    let value = try scanString()
                    if !value.escaped { fields.keyFieldBytes.record(field, value.start, value.end) }
                    if !value.escaped && CacheEntityFields.isShared(field) {
                        fields.set(field, interner.string(self, value.start, value.end, slot: field.rawValue))
                    } else {
                        fields.set(field, try makeString(value.start, value.end, escaped: value.escaped))
                    }
                } else if byte == UInt8(ascii: "n") {
                    _ = try skipValue()  // null: absent
                } else if field == .lastModificationTime, byte != UInt8(ascii: "{"), byte != UInt8(ascii: "[") {
                    let value = try skipValue()  // a number is accepted and kept as written
                    fields.set(
                        field,
                        String(
                            decoding: UnsafeBufferPointer(start: base + value.lowerBound, count: value.count),
                            as: UTF8.self))
                } else {
                    _ = try skipValue()
                    fields.invalidField = "\(field)"
                }
            }
        } while try separator(close: UInt8(ascii: "}"))
    }

    /// An epoch-seconds timestamp written as a string (the schema) or a number (tolerated);
    /// a fractional value keeps its whole seconds.
    private mutating func timestamp(
        _ byte: UInt8, field: CacheEntityFields.Field, fields: inout CacheEntityFields
    ) throws(JSONScanError) -> Int64? {
        let range: Range<Int>
        if byte == UInt8(ascii: "\"") {
            let value = try scanString()
            range = value.start..<value.end
        } else if byte == UInt8(ascii: "n") {
            _ = try skipValue()
            return nil
        } else if byte == UInt8(ascii: "-") || (byte >= 0x30 && byte <= 0x39) {
            range = try number()
        } else {
            _ = try skipValue()
            fields.invalidField = "\(field)"
            return nil
        }
        var value: Int64 = 0
        var position = range.lowerBound
        let negative = position < range.upperBound && base[position] == UInt8(ascii: "-")
        if negative { position += 1 }
        let digitsStart = position
        while position < range.upperBound, base[position] >= 0x30, base[position] <= 0x39, position - digitsStart < 18 {
            value = value * 10 + Int64(base[position] - 0x30)
            position += 1
        }
        guard position > digitsStart, position == range.upperBound || base[position] == UInt8(ascii: ".") else {
            fields.invalidField = "\(field)"
            return nil
        }
        return negative ? -value : value
    }
}
