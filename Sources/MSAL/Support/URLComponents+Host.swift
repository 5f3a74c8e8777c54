import Foundation

extension URLComponents {
    /// `percentEncodedHost`, read without Foundation's IDNA decoding where that leaves the host as
    /// written: a host of ASCII letters, digits, `-` and `.` without an IDNA label (`xn--`), such
    /// as every Microsoft login host. The decoding loads ICU's tables, about 0.1 ms of `msal token`.
    var hostAsWritten: String? {
        if let host = encodedHost, !host.isEmpty, host.utf8.allSatisfy(Self.isPlainHostByte),
            !host.lowercased().split(separator: ".").contains(where: { $0.hasPrefix("xn--") })
        {
            return host
        }
        return percentEncodedHost
    }

    /// An ASCII letter, digit, `-` or `.`.
    private static func isPlainHostByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."):
            true
        default:
            false
        }
    }
}
