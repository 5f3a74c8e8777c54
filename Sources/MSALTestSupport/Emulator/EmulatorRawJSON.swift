import Foundation
import MSALNative

/// JSON objects with members given as raw JSON text, for answers `JSONSerialization` cannot
/// produce (`1e30`, `9.3e18`, a duplicate-free object with a member of any text at all).
enum EmulatorRawJSON {
    /// `object` serialized with sorted keys, with each member of `replacements` put in as its raw
    /// text (`nil` removes the member). Members kept from `object` come first, then the replaced
    /// or added ones in key order.
    static func splice(_ object: [String: Any], _ replacements: [String: String?]) -> Data {
        var kept = object
        for key in replacements.keys { kept[key] = nil }
        let base =
            (try? JSONSerialization.data(withJSONObject: kept, options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? Data("{}".utf8)
        let added = replacements.sorted { $0.key < $1.key }.compactMap { key, value in
            value.map { "\(quoted(key)):\($0)" }
        }
        guard !added.isEmpty else { return base }
        var text = String(decoding: base, as: UTF8.self)
        guard text.hasSuffix("}") else { return base }
        text.removeLast()
        let separator = text.hasSuffix("{") ? "" : ","
        return Data((text + separator + added.joined(separator: ",") + "}").utf8)
    }

    /// `body` with `replacements` spliced in, when it is a JSON object; any other body unchanged.
    static func rewrite(_ body: Data, _ replacements: [String: String?]) -> Data {
        guard let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] else { return body }
        return splice(object, replacements)
    }

    /// `text` as a JSON string literal.
    static func quoted(_ text: String) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: [text], options: [.withoutEscapingSlashes])) ?? Data()
        let array = String(decoding: data, as: UTF8.self)
        return String(array.dropFirst().dropLast())
    }

    /// A compact JWT whose header and payload are the spliced objects, and whose signature is
    /// `signature` (empty for an unsigned token).
    static func compactJWT(header: Data, payload: Data, signature: [UInt8]) -> String {
        "\(Base64URL.encode(Array(header))).\(Base64URL.encode(Array(payload))).\(Base64URL.encode(signature))"
    }
}
