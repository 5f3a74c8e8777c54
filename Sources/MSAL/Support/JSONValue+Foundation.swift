import Foundation

extension JSONValue {
    /// The value as Foundation objects (`String`, `NSNumber`, `Bool`, `[Any]`, `[String: Any]`,
    /// `NSNull`), the shape MSAL's public claims dictionaries have.
    var foundationObject: Any {
        switch self {
        case .null: NSNull()
        case .bool(let value): value
        case .number(let number):
            if let integer = number.int64Value, !number.literal.contains(".") {
                NSNumber(value: integer)
            } else {
                NSNumber(value: number.doubleValue)
            }
        case .string(let value): value
        case .array(let values): values.map(\.foundationObject)
        case .object(let members): members.mapValues(\.foundationObject)
        }
    }
}

extension JSONValue {
    /// The JSON value of a Foundation object (`String`, `Bool`, numbers, arrays, dictionaries with
    /// string keys, `NSNull`), or `nil` for anything JSON cannot hold.
    init?(foundationObject: Any) {
        switch foundationObject {
        case is NSNull: self = .null
        case let value as String: self = .string(value)
        case let value as Bool: self = .bool(value)
        case let value as Int: self = .number(Number(value))
        case let value as Int64: self = .number(Number(value))
        case let value as Double:
            guard let number = Number(value) else { return nil }
            self = .number(number)
        case let value as [Any]:
            var elements: [JSONValue] = []
            for element in value {
                guard let converted = JSONValue(foundationObject: element) else { return nil }
                elements.append(converted)
            }
            self = .array(elements)
        case let value as [String: Any]:
            var members: [String: JSONValue] = [:]
            for (key, element) in value {
                guard let converted = JSONValue(foundationObject: element) else { return nil }
                members[key] = converted
            }
            self = .object(members)
        default:
            return nil
        }
    }
}
