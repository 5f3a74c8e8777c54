import Foundation
import MSALNative

/// Entra's `client_info`: base64url JSON `{"uid": ..., "utid": ...}` naming the user's object id
/// and home tenant, from which the home account id `<uid>.<utid>` is built.
struct ClientInfo: Sendable, Hashable {
    /// The user's object id in the home tenant (for B2C, `<oid>-<policy>`).
    let uid: String
    /// The home tenant id.
    let utid: String
    /// The raw base64url value, as stored in the cache.
    let raw: String

    /// Parses `raw`.
    ///
    /// - Throws: -50000 with internal -42600 when it is not base64url JSON with `uid` and `utid`.
    init(raw: String, correlationId: UUID? = nil) throws {
        // Padding is dropped whatever its length (Entra sends none; others may send too much).
        var unpadded = raw.utf8[...]
        while unpadded.last == UInt8(ascii: "=") { unpadded = unpadded.dropLast() }
        while unpadded.first == UInt8(ascii: "=") { unpadded = unpadded.dropFirst() }
        guard let bytes = Base64URL.decode(unpadded),
            let object = (try? JSONValue(parsing: bytes))?.objectValue,
            let uid = object["uid"]?.stringValue, let utid = object["utid"]?.stringValue,
            !uid.isEmpty, !utid.isEmpty
        else {
            throw MSALErrors.make(
                .internalErrorInvalidResponse,
                "The client_info returned by the server is not base64url JSON with uid and utid.",
                ErrorDetails(correlationId: correlationId))
        }
        self.uid = uid
        self.utid = utid
        self.raw = raw
    }

    /// The home account id, `<uid>.<utid>`, trimmed and lowercased as MSAL builds it.
    var homeAccountId: String {
        Self.homeAccountId(uid: uid, utid: utid)
    }

    static func homeAccountId(uid: String, utid: String) -> String {
        let trim = { (text: String) in ASCII.trimmed(text).lowercased() }
        return trim(uid) + "." + trim(utid)
    }
}
