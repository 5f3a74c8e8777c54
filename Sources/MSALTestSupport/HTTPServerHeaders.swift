/// HTTP header fields in the order they were sent, with case-insensitive lookup.
///
/// ```swift
/// var headers: HTTPServerHeaders = ["Content-Type": "application/json"]
/// headers.add("Set-Cookie", "a=1")
/// headers["content-type"]  // "application/json"
/// ```
public struct HTTPServerHeaders: Sendable, Sequence, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    /// The fields, in order; a name may appear more than once.
    public private(set) var fields: [(name: String, value: String)]

    /// Creates headers from name-value pairs, keeping their order.
    public init(_ fields: [(String, String)] = []) {
        self.fields = fields.map { (name: $0.0, value: $0.1) }
    }

    /// Creates headers from a literal, keeping its order.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    /// The first value of the field `name` (case-insensitive), or `nil`. Setting a value replaces
    /// every field with that name (at the position of the first); setting `nil` removes them.
    public subscript(name: String) -> String? {
        get { fields.first { Self.same($0.name, name) }?.value }
        set {
            guard let newValue else {
                remove(name)
                return
            }
            if let index = fields.firstIndex(where: { Self.same($0.name, name) }) {
                fields[index].value = newValue
                fields = fields.enumerated().filter { $0.offset <= index || !Self.same($0.element.name, name) }
                    .map(\.element)
            } else {
                add(name, newValue)
            }
        }
    }

    /// Every value of the field `name` (case-insensitive), in order.
    public func values(for name: String) -> [String] {
        fields.filter { Self.same($0.name, name) }.map(\.value)
    }

    /// Whether a field `name` is present (case-insensitive).
    public func contains(_ name: String) -> Bool {
        fields.contains { Self.same($0.name, name) }
    }

    /// Whether the comma-separated list in the fields `name` holds `token` (case-insensitive),
    /// as `Connection: keep-alive, close` holds `close`.
    public func containsToken(_ token: String, in name: String) -> Bool {
        values(for: name).contains { value in
            value.split(separator: ",").contains { Self.same($0.trimmingSpaces, token) }
        }
    }

    /// Appends a field, keeping any with the same name.
    public mutating func add(_ name: String, _ value: String) {
        fields.append((name: name, value: value))
    }

    /// Removes every field `name` (case-insensitive).
    public mutating func remove(_ name: String) {
        fields.removeAll { Self.same($0.name, name) }
    }

    /// The number of fields.
    public var count: Int { fields.count }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        fields.makeIterator()
    }

    public var description: String {
        fields.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
    }

    private static func same(_ left: some StringProtocol, _ right: some StringProtocol) -> Bool {
        left.utf8.count == right.utf8.count && left.lowercased() == right.lowercased()
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs (HTTP's optional whitespace).
    var trimmingSpaces: Substring {
        let characters = self[...]
        let start = characters.firstIndex { $0 != " " && $0 != "\t" } ?? characters.endIndex
        let end = characters.lastIndex { $0 != " " && $0 != "\t" }.map { characters.index(after: $0) } ?? start
        return Substring(characters[start..<Swift.max(start, end)])
    }
}
