import MSALNative

/// The JSON side of the cache writer's output buffer (``ByteOutput``, whose storage lives in
/// MSALNative): quoted strings, members, secrets.
extension ByteOutput {
    /// Appends `string` as a JSON string literal.
    @inline(__always)
    func appendQuoted(_ string: String) {
        string.withUTF8Span { appendQuoted($0) }
    }

    func appendQuoted(_ bytes: Span<UInt8>) {
        append(UInt8(ascii: "\""))
        if JSONStringEscapes.isPlain(bytes) {
            append(bytes)
        } else {
            var escaped: [UInt8] = []
            escaped.reserveCapacity(bytes.count + 16)
            JSONStringEscapes.appendEscaped(bytes, to: &escaped)
            append(escaped.span)
        }
        append(UInt8(ascii: "\""))
    }

    /// Appends `,"name":"value"` (or without the comma for the first member).
    @inline(__always)
    func member(_ name: StaticString, _ value: String, first: inout Bool) {
        if first { first = false } else { append(UInt8(ascii: ",")) }
        append(UInt8(ascii: "\""))
        append(name)
        append(StaticString("\":"))
        appendQuoted(value)
    }

    /// A string member when `value` is not `nil`.
    @inline(__always)
    func member(_ name: StaticString, _ value: String?, first: inout Bool) {
        if let value { member(name, value, first: &first) }
    }

    /// A timestamp member written as a string of integer epoch seconds, when present.
    @inline(__always)
    func member(_ name: StaticString, timestamp: Int64?, first: inout Bool) {
        guard let timestamp else { return }
        if first { first = false } else { append(UInt8(ascii: ",")) }
        append(UInt8(ascii: "\""))
        append(name)
        append(StaticString("\":\""))
        appendInteger(timestamp)
        append(UInt8(ascii: "\""))
    }

    /// Appends `,"secret":"…"` and returns where the secret's JSON text went: `text`, or, when the
    /// store keeps the secret as a place in a file (`kept`), the text as written there, copied
    /// through `copier` (which records a failure when that file changed).
    func secretMember(_ text: String, kept: CacheFileRange?, copier: CacheSecretCopier, first: inout Bool)
        -> SecretPlacement
    {
        if first { first = false } else { append(UInt8(ascii: ",")) }
        append(StaticString("\"secret\":\""))
        let offset = position
        var placement = SecretPlacement(offset: offset, length: 0, escaped: false, check: 0)
        if let range = kept {
            copier.withText(range) { append($0) }
            placement.escaped = range.escaped
            placement.check = range.check
        } else {
            text.withUTF8Span { bytes in
                if JSONStringEscapes.isPlain(bytes) {
                    append(bytes)
                    placement.check = CacheFileRange.check(bytes)
                } else {
                    var escaped: [UInt8] = []
                    escaped.reserveCapacity(bytes.count + 16)
                    JSONStringEscapes.appendEscaped(bytes, to: &escaped)
                    append(escaped.span)
                    placement.check = CacheFileRange.check(escaped.span)
                    placement.escaped = true
                }
            }
        }
        placement.length = position - offset
        append(UInt8(ascii: "\""))
        return placement
    }
}

/// Where a secret's JSON text was written in a document (see ``CacheFileRange``).
struct SecretPlacement {
    var offset: Int
    var length: Int
    var escaped: Bool
    var check: UInt64

    /// Whether the store keeps the secret as this place (``TokenStore/place(in:_:)``) rather than
    /// as text: a place would not save memory for a short one.
    var isKeptInFile: Bool {
        SecretSpan.keepsInFile(secretLength: length)
    }
}
