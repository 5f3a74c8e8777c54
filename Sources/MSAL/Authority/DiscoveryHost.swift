import Foundation

/// Validation of the `host[:port]` strings of an instance discovery response
/// (`preferred_network`, `preferred_cache`, `aliases`).
enum DiscoveryHost {
    /// The lowercased `host[:port]`, or `nil` when `value` is not a DNS name or bracketed IPv6
    /// address, optionally followed by a port in 1...65535.
    static func normalized(_ value: String) -> String? {
        let lowered = value.lowercased()
        guard !lowered.isEmpty, lowered.count <= 260 else { return nil }
        var host = Substring(lowered)
        var port: Substring?
        if lowered.hasPrefix("[") {
            guard let close = lowered.firstIndex(of: "]") else { return nil }
            let address = lowered[lowered.index(after: lowered.startIndex)..<close]
            guard !address.isEmpty, address.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else {
                return nil
            }
            host = lowered[...close]
            let rest = lowered[lowered.index(after: close)...]
            if !rest.isEmpty {
                guard rest.first == ":" else { return nil }
                port = rest.dropFirst()
            }
        } else {
            let pieces = lowered.split(separator: ":", omittingEmptySubsequences: false)
            guard pieces.count <= 2 else { return nil }
            host = pieces[0]
            port = pieces.count == 2 ? pieces[1] : nil
            guard isDNSName(host) else { return nil }
        }
        if let port {
            guard !port.isEmpty, port.count <= 5, port.allSatisfy(\.isASCII), port.allSatisfy(\.isNumber),
                let number = Int(port), (1...65_535).contains(number)
            else { return nil }
        }
        return lowered
    }

    /// A lowercase ASCII letter, a digit, `.` or `-`: checked on bytes, not with a Foundation
    /// `CharacterSet` (whose first use cost `msal token` about 0.03 ms).
    private static func isHostByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."),
            UInt8(ascii: "-"):
            true
        default:
            false
        }
    }

    private static func isDNSName(_ host: Substring) -> Bool {
        guard !host.isEmpty, host.count <= 253 else { return false }
        guard host.utf8.allSatisfy(isHostByte) else { return false }
        return host.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
            !label.isEmpty && label.count <= 63 && label.first != "-" && label.last != "-"
        }
    }
}
