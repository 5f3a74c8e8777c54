internal import CMSALOpenSSL

/// A failure inside a C library call, with the name of the call and the library's own reason.
///
/// Internal to the package: the MSAL layer turns it into an `MSALError` or an `NSURLErrorDomain`
/// error before anything reaches an app.
package struct NativeError: Error, CustomStringConvertible, Sendable {
    /// The C function that failed.
    package let function: String
    /// What the library said (OpenSSL's error queue, curl's error buffer), or a reason of ours.
    package let reason: String

    package init(function: String, reason: String) {
        self.function = function
        self.reason = reason
    }

    package var description: String { "\(function) failed: \(reason)" }

    /// An OpenSSL failure; drains OpenSSL's thread-local error queue into the reason.
    package static func openSSL(_ function: String) -> NativeError {
        var reasons: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            reasons.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        let reason = reasons.isEmpty ? "no OpenSSL error queued" : reasons.joined(separator: "; ")
        return NativeError(function: function, reason: reason)
    }
}
