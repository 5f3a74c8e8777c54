// libFuzzer target: the JSON parser under every other parser, and form decoding (redirect
// parameters). Built by scripts/fuzz.sh (`--sanitize=fuzzer`).
@testable import MSAL

/// Parses the input as JSON, which must survive a write and a re-read unchanged; and decodes it
/// as a form body, which must survive an encode and a decode unchanged.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    if let value = try? JSONValue(parsing: bytes) {
        for options: JSONValue.SerializationOptions in [[], [.sortedKeys, .prettyPrinted]] {
            let written = value.serialized(options: options)
            guard let reread = try? JSONValue(parsing: written) else {
                fatalError("the JSON writer produced text its parser rejects")
            }
            precondition(reread == value, "JSON changed in a write and re-read")
        }
    }
    let text = String(decoding: bytes, as: UTF8.self)
    if let pairs = FormURLEncoding.decode(text) {
        guard let again = FormURLEncoding.decode(FormURLEncoding.encode(pairs)) else {
            fatalError("form encoding produced a body its decoder rejects")
        }
        precondition(again.map(\.name) == pairs.map(\.name), "form names changed in an encode and decode")
        precondition(again.map(\.value) == pairs.map(\.value), "form values changed in an encode and decode")
    }
    return 0
}
