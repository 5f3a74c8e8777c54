import Foundation
import MSALNative

/// Reading a cache key that someone provisioned as a file: 32 bytes raw, as base64 (standard or
/// URL alphabet, padded or not) or as 64 hexadecimal digits, with one trailing line feed allowed.
enum CacheKeyText {
    /// The key in `bytes`, or `nil` when they are none of the three forms or not 32 bytes long.
    static func key(from bytes: [UInt8]) -> [UInt8]? {
        decoded(from: bytes).flatMap { $0.count == 32 ? $0 : nil }
    }

    /// The bytes `bytes` hold in one of the three forms, whatever their number (for a message that
    /// says how long a key of the wrong length is): 32 bytes are taken raw; text (one trailing
    /// line feed allowed) of an even number of hexadecimal digits as hex, else as base64. `nil`
    /// when they are none of the forms.
    static func decoded(from bytes: [UInt8]) -> [UInt8]? {
        if bytes.count == 32 { return bytes }
        var text = bytes
        if text.last == 0x0A { text.removeLast() }
        if text.last == 0x0D { text.removeLast() }
        guard !text.isEmpty, text.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
        let string = String(decoding: text, as: UTF8.self)
        if text.count.isMultiple(of: 2), let hex = hexBytes(string) { return hex }
        let urlAlphabet = string.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        return Base64URL.decode(urlAlphabet)
    }

    /// The bytes of `text` (printable ASCII) written as hexadecimal digits, two per byte.
    private static func hexBytes(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard text.allSatisfy(\.isHexDigit) else { return nil }
        let bytes = stride(from: 0, to: digits.count, by: 2).compactMap {
            UInt8(String(decoding: digits[$0..<($0 + 2)], as: UTF8.self), radix: 16)
        }
        return bytes.count * 2 == digits.count ? bytes : nil
    }

    /// The bytes of the credential file at `path` (at most 4 KiB: a key file is small), read so
    /// that it cannot block nor follow a link; `nil` when there is no regular file there.
    static func readCredential(_ path: String) throws -> [UInt8]? {
        do {
            return try FileSystem.readSmallFile(path, limit: 4096)
        } catch {
            throw CacheKeyTextError(description: "\(path) could not be read: \(error.message)")
        }
    }
}

struct CacheKeyTextError: Error, CustomStringConvertible {
    var description: String
}

/// What to say when no regular file could be read at a credential's path (it is opened without
/// following a link, and never waits on a FIFO): nothing there is "no credential"; anything else
/// is named, with the path, so that a FIFO or a dangling link is not mistaken for a service
/// without its credential.
enum CredentialPathDecision: Equatable, Sendable {
    /// Nothing at the path: the service has no such credential.
    case absent
    /// Something that is no credential file; the reason, naming the path.
    case refuse(String)

    /// `kind`: what is at `path`, not following a link (`nil`: nothing); `linkTarget` and
    /// `targetExists`: where a link points, and whether something is there.
    static func decide(path: String, kind: FileKind?, linkTarget: String?, targetExists: Bool)
        -> CredentialPathDecision
    {
        guard let kind else { return .absent }
        guard kind == .symbolicLink else {
            return .refuse("the credential \(path) is \(kind.phrase), not a regular file")
        }
        let target = linkTarget ?? "?"
        guard targetExists else {
            return .refuse(
                "the credential \(path) is a symbolic link to \(target), which does not exist (a dangling link)")
        }
        return .refuse(
            "the credential \(path) is a symbolic link to \(target); a credential is read from a regular file only, "
                + "never through a link (systemd makes regular files)")
    }

    /// The decision for what is at `path` now.
    static func decide(path: String) -> CredentialPathDecision {
        let kind = (try? FileSystem.linkStatus(path))?.kind
        let target = kind == .symbolicLink ? (try? FileSystem.linkTarget(path)) ?? nil : nil
        let exists = kind == .symbolicLink && (try? FileSystem.status(path)) != nil
        return decide(path: path, kind: kind, linkTarget: target, targetExists: exists)
    }
}
