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
    mutating func appendMember(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
        let separator = raw.isEmpty ? 0 : 1
        let added = separator + name.count + 1 + value.count
        let member = String(unsafeUninitializedCapacity: added) { buffer in
            var index = 0
            func put(_ bytes: UnsafeBufferPointer<UInt8>) {
                _ = UnsafeMutableBufferPointer(rebasing: buffer[index..<(index + bytes.count)]).initialize(from: bytes)
                index += bytes.count
            }
            if separator == 1 {
                buffer[index] = UInt8(ascii: ",")
                index += 1
            }
            put(name)
            buffer[index] = UInt8(ascii: ":")
            index += 1
            put(value)
            return index
        }
        raw = raw.isEmpty ? member : raw + member
    }

    /// Adds one member whose value is raw JSON text.
    mutating func append(name: String, rawValue: String) {
        let member = JSONValue.string(name).serializedString() + ":" + rawValue
        raw = raw.isEmpty ? member : raw + "," + member
    }
}
