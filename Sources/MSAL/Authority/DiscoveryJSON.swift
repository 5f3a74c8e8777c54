import Foundation

/// Strict reading of the small JSON documents of discovery, through ``JSONValue``: a string is only
/// a string and an array of strings only that (a number or a Boolean never passes for one).
///
/// `JSONSerialization` read them before; its first use in a process, and the bridging of what it
/// returns, cost `msal token` about 0.1 ms, while ``JSONValue`` is warm from reading the cache.
struct DiscoveryJSON {
    let object: [String: JSONValue]

    /// The top-level object of `data`, or `nil` when `data` is not JSON or not an object.
    init?(_ data: Data) {
        guard let object = (try? JSONValue(parsing: data))?.objectValue else { return nil }
        self.object = object
    }

    init(object: [String: JSONValue]) {
        self.object = object
    }

    /// Whether `key` is present with any value other than JSON `null`.
    func has(_ key: String) -> Bool {
        guard let value = object[key] else { return false }
        return !value.isNull
    }

    /// The string under `key`, or `nil` when absent or not a string.
    func string(_ key: String) -> String? {
        object[key]?.stringValue
    }

    /// The value under `key` as JSON text (a string as it is), or `""` when absent: for messages.
    func text(_ key: String) -> String {
        guard let value = object[key] else { return "" }
        return value.stringValue ?? value.serializedString()
    }

    /// The array under `key`, or `nil` when absent or not an array.
    func array(_ key: String) -> [JSONValue]? {
        object[key]?.arrayValue
    }

    /// The elements of `array` when every one is a string.
    static func strings(_ array: [JSONValue]) -> [String]? {
        var result: [String] = []
        result.reserveCapacity(array.count)
        for element in array {
            guard let string = element.stringValue else { return nil }
            result.append(string)
        }
        return result
    }
}
