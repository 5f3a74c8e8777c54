/// Masks personal and secret values before they reach a log line.
enum Redaction {
    /// A personal identifier hidden but still distinguishable from others of the same message.
    static func maskedPII(_ value: String) -> String {
        value.isEmpty ? "(empty)" : "(pii)"
    }

    /// A secret (token, code, password) reduced to its length.
    static func maskedSecret(_ value: String) -> String {
        value.isEmpty ? "(empty)" : "(secret, \(value.utf8.count) bytes)"
    }
}
