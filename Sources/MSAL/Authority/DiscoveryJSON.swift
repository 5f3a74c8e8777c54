import Foundation

/// Strict reading of the small JSON documents of discovery. `JSONSerialization` hands numbers
/// and booleans over as `NSNumber`, which `as? Bool` on Linux accepts for any number; here a
/// string is only a string and an array of strings only that.
struct DiscoveryJSON {
    let object: [String: Any]

    /// The top-level object of `data`, or `nil` when `data` is not JSON or not an object.
    init?(_ data: Data) {
        guard let value = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]),
            let object = value as? [String: Any]
        else { return nil }
        self.object = object
    }

    init(object: [String: Any]) {
        self.object = object
    }

    /// Whether `key` is present with any value other than JSON `null`.
    ///
    /// `JSONSerialization` gives `null` as an `NSNull` and nothing else of that type, so the type
    /// is compared: `value is NSNull` first bridges an array or a string to its Foundation class
    /// (measured: 0.05-0.1 ms of the first silent call of a process).
    func has(_ key: String) -> Bool {
        guard let value = object[key] else { return false }
        return type(of: value) != NSNull.self
    }

    /// The string under `key`, or `nil` when absent or not a string (an `NSNumber` never casts to
    /// `String`).
    func string(_ key: String) -> String? {
        object[key] as? String
    }

    /// The array under `key`, or `nil` when absent or not an array.
    func array(_ key: String) -> [Any]? {
        object[key] as? [Any]
    }

    /// The elements of `array` when every one is a string.
    static func strings(_ array: [Any]) -> [String]? {
        var result: [String] = []
        result.reserveCapacity(array.count)
        for element in array {
            guard let string = element as? String else { return nil }
            result.append(string)
        }
        return result
    }
}
