import MSALNative

/// Members of a cache entity that this library does not model, kept as their raw JSON text
/// (`"name":value` pairs joined by commas, without braces) so a rewrite keeps them unchanged.
/// Other MSALs add fields of their own (`account_source`, `key_id`, `requested_claims`, ...).
struct UnknownFields: Sendable, Hashable {
    /// The raw members, or empty.
    var raw: String

    static let none = UnknownFields(raw: "")

    var isEmpty: Bool { raw.isEmpty }

    /// The members as a dictionary, for tests and diagnostics (not on any hot path).
    var members: [String: JSONValue] {
        guard !raw.isEmpty, case .object(let object)? = try? JSONValue(parsing: "{\(raw)}") else { return [:] }
        return object
    }

    /// Adds one member from its quoted name and raw JSON value as read (`"name"` and `value`
    /// become `"name":value`), in one allocation.
    mutating func appendMember(name: Span<UInt8>, value: Span<UInt8>) {
        let separator = raw.isEmpty ? 0 : 1
        let added = separator + name.count + 1 + value.count
        let member = String(utf8Capacity: added) { output in
            if separator == 1 { output.append(UInt8(ascii: ",")) }
            for index in name.indices { output.append(name[index]) }
            output.append(UInt8(ascii: ":"))
            for index in value.indices { output.append(value[index]) }
        }
        raw = raw.isEmpty ? member : raw + member
    }

    /// Adds one member whose value is raw JSON text.
    mutating func append(name: String, rawValue: String) {
        let member = JSONValue.string(name).serializedString() + ":" + rawValue
        raw = raw.isEmpty ? member : raw + "," + member
    }
}
