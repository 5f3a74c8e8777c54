import MSALNative

/// What reading one entry found besides the values its entity took: which members were there,
/// whether one had a value of the wrong type, where the secret and the key's values lie.
struct CacheEntryScan {
    /// Bit `i` set when member `i` of the schema had a value (`null` is no value).
    var present: UInt32 = 0
    /// A member the schema lists whose value has the wrong type: the entry is kept, not read.
    var invalidMember: StaticString?
    /// Where the secret is in the file, when it is kept there rather than as text.
    var secretSpan: SecretSpan?
    /// Where the values written without escapes lie in the window, by member.
    var memberBytes = CacheMemberBytes()

    /// The first member `schema` requires that the entry lacks.
    func missingMember<Entity>(_ schema: CacheSchema<Entity>) -> StaticString? {
        let missing = schema.requiredMembers & ~present
        guard missing != 0 else { return nil }
        return schema.names[missing.trailingZeroBitCount]
    }
}

/// The window offsets of members' values written without escapes, so the key an entity was read
/// under is compared with those bytes rather than with the entity's strings.
struct CacheMemberBytes {
    private var starts = SIMD16<Int32>(repeating: -1)
    private var ends = SIMD16<Int32>(repeating: -1)

    subscript(_ member: Int) -> Range<Int>? {
        guard member < CacheSchemaLimits.members, starts[member] >= 0 else { return nil }
        return Int(starts[member])..<Int(ends[member])
    }

    /// Records the value of `member` at `start..<end` (windows are far smaller than 2 GiB).
    mutating func record(_ member: Int, _ start: Int, _ end: Int) {
        guard member < CacheSchemaLimits.members, end <= Int32.max else { return }
        starts[member] = Int32(start)
        ends[member] = Int32(end)
    }

    mutating func forget(_ member: Int) {
        guard member < CacheSchemaLimits.members else { return }
        starts[member] = -1
    }
}

/// Reuses the previous string of a member when the next value has the same bytes, so the
/// environment, client id, realm and scopes of ten thousand entities share one allocation each.
struct StringInterner {
    private var last: [String] = Array(repeating: "", count: CacheSection.allCases.count * CacheSchemaLimits.members)

    mutating func string(
        _ cursor: JSONByteCursor, _ start: Int, _ end: Int, section: CacheSection, member: Int
    ) -> String {
        let slot = section.index * CacheSchemaLimits.members + member
        let length = end - start
        let same = last[slot].withUTF8Span { bytes in
            bytes.count == length && end <= cursor.count && cursor.bytes.span.bytesEqual(at: start, bytes)
        }
        if same { return last[slot] }
        let next = cursor.text(start..<end)
        last[slot] = next
        return next
    }
}

extension JSONByteCursor {
    /// Reads one entry object into `entity` (as ``CacheEntity/init()`` made it), by its type's
    /// schema: the members it lists into their properties, the others into its unknown members.
    /// With `snapshot` (the file the window was read from), a long secret is kept as its place in
    /// the file instead of as text.
    mutating func readEntry<Entity: CacheEntity>(
        into entity: inout Entity, _ scan: inout CacheEntryScan, interner: inout StringInterner,
        snapshot: CacheFileSnapshot?
    ) throws(JSONScanError) {
        scan = CacheEntryScan()
        let schema = Entity.schema
        try expect(UInt8(ascii: "{"), "'{' starting an entry")
        if try peek() == UInt8(ascii: "}") {
            index += 1
            return
        }
        var expected = 0
        repeat {
            let key = try scanString()
            try expect(UInt8(ascii: ":"), "':'")
            guard !key.escaped, let member = schema.member(named: self, key.start, key.end, expected: expected) else {
                let value = try skipValue()
                let window = bytes.span.extracting(..<count)
                entity.unknown.appendMember(
                    name: window.extracting((key.start - 1)..<(key.end + 1)), value: window.extracting(value))
                continue
            }
            expected = member + 1
            let byte = try peek()
            if byte == UInt8(ascii: "n") {
                _ = try skipValue()  // null: absent
                continue
            }
            let bit = UInt32(1) << UInt32(member)
            switch schema.values[member] {
            case .timestamp(let path):
                guard let seconds = try timestamp(byte) else {
                    scan.invalidMember = schema.names[member]
                    continue
                }
                entity[keyPath: path] = seconds
                scan.present |= bit
            case .secret(let path) where byte == UInt8(ascii: "\""):
                let value = try scanString()
                let length = value.end - value.start
                if snapshot != nil, SecretSpan.keepsInFile(secretLength: length) {
                    entity[keyPath: path] = ""
                    scan.secretSpan = SecretSpan(
                        offset: origin + value.start, length: Int32(length), escaped: value.escaped,
                        check: CacheFileRange.check(bytes.span.extracting(value.start..<value.end)))
                } else {
                    entity[keyPath: path] = try makeString(value.start, value.end, escaped: value.escaped)
                    scan.secretSpan = nil
                }
                scan.present |= bit
            case .credentialType where byte == UInt8(ascii: "\""):
                _ = try scanString()  // the section says what the entry is
                scan.present |= bit
            case .required(let path) where byte == UInt8(ascii: "\""),
                .defaulted(let path) where byte == UInt8(ascii: "\""):
                entity[keyPath: path] = try memberString(member, schema, &scan, &interner)
                scan.present |= bit
            case .optional(let path) where byte == UInt8(ascii: "\""),
                .stringOrNumber(let path) where byte == UInt8(ascii: "\""):
                entity[keyPath: path] = try memberString(member, schema, &scan, &interner)
                scan.present |= bit
            case .stringOrNumber(let path) where byte == UInt8(ascii: "-") || (byte >= 0x30 && byte <= 0x39):
                let value = try number()  // kept as written
                entity[keyPath: path] = text(value)
                scan.present |= bit
            default:
                _ = try skipValue()
                scan.invalidMember = schema.names[member]
            }
        } while try separator(close: UInt8(ascii: "}"))
    }

    /// The string value at the cursor of `member`, shared with the previous entry's when the
    /// schema says its values repeat; its place is recorded for the key check.
    private mutating func memberString<Entity>(
        _ member: Int, _ schema: CacheSchema<Entity>, _ scan: inout CacheEntryScan, _ interner: inout StringInterner
    ) throws(JSONScanError) -> String {
        let value = try scanString()
        guard !value.escaped else {
            scan.memberBytes.forget(member)  // a value written before under the same name is not this one
            return try makeString(value.start, value.end, escaped: true)
        }
        scan.memberBytes.record(member, value.start, value.end)
        if schema.sharedMembers & (1 << UInt32(member)) != 0 {
            return interner.string(self, value.start, value.end, section: schema.section, member: member)
        }
        return try makeString(value.start, value.end, escaped: false)
    }

    /// An epoch-seconds timestamp written as a string (the schema) or a number (tolerated); a
    /// fractional value keeps its whole seconds. `nil` when the value is neither.
    private mutating func timestamp(_ byte: UInt8) throws(JSONScanError) -> Int64? {
        let range: Range<Int>
        if byte == UInt8(ascii: "\"") {
            let value = try scanString()
            range = value.start..<value.end
        } else if byte == UInt8(ascii: "-") || (byte >= 0x30 && byte <= 0x39) {
            range = try number()
        } else {
            _ = try skipValue()
            return nil
        }
        let digits = bytes.span
        var value: Int64 = 0
        var position = range.lowerBound
        let negative = position < range.upperBound && digits[position] == UInt8(ascii: "-")
        if negative { position += 1 }
        let digitsStart = position
        while position < range.upperBound, digits[position] >= 0x30, digits[position] <= 0x39,
            position - digitsStart < 18
        {
            value = value * 10 + Int64(digits[position] - 0x30)
            position += 1
        }
        guard position > digitsStart, position == range.upperBound || digits[position] == UInt8(ascii: ".") else {
            return nil
        }
        return negative ? -value : value
    }
}
