/// Everything a cache document holds, as read, in document order.
package struct CacheContents: Sendable {
    package var accessTokens: [CacheAccessToken] = []
    var refreshTokens: [CacheRefreshToken] = []
    var idTokens: [CacheIdToken] = []
    var accounts: [CacheAccount] = []
    var appMetadata: [CacheAppMetadata] = []
    var accountMetadata: [CacheAccountMetadata] = []
    /// Unknown members of each client's `AccountMetadata` object, by client id.
    var accountMetadataUnknown: [String: UnknownFields] = [:]
    /// Records of each client's `account_metadata_map` that are not objects, kept byte for byte.
    var accountMetadataKept: [String: [KeptEntry]] = [:]
    /// Top-level sections this library does not know, as raw JSON, in document order.
    var unknownSections: [(name: String, rawValue: String)] = []
    /// Entries of the known sections that this library cannot model (another program's shape,
    /// or damaged), kept byte for byte in document order, by section: never returned by a query,
    /// written back unchanged by every save (but one whose key an entity of ours is written
    /// under: see ``CacheDocumentWriter``).
    var keptEntries: [CacheSection: [KeptEntry]] = [:]
    /// Known sections whose value is not a JSON object, as raw JSON: written in place of the
    /// section while this library has nothing to write in it.
    var unusableSections: [CacheSection: String] = [:]
    /// Entries that could not be read as entities (kept, or skipped records), by section.
    var skipped: [String: Int] = [:]
    /// The file the ``origins`` are places in.
    var sourceFile: CacheFileSnapshot?
    /// Where each entity's entry and secret lie in ``sourceFile``, parallel to the entity arrays.
    var origins = CacheOrigins()
}

/// The sections of the document.
enum CacheSection: CaseIterable {
    case accessToken, refreshToken, idToken, account, appMetadata, accountMetadata

    var name: StaticString {
        switch self {
        case .accessToken: "AccessToken"
        case .refreshToken: "RefreshToken"
        case .idToken: "IdToken"
        case .account: "Account"
        case .appMetadata: "AppMetadata"
        case .accountMetadata: "AccountMetadata"
        }
    }

    /// The section's place among ``allCases``.
    var index: Int {
        switch self {
        case .accessToken: 0
        case .refreshToken: 1
        case .idToken: 2
        case .account: 3
        case .appMetadata: 4
        case .accountMetadata: 5
        }
    }

    static func named(_ cursor: JSONByteCursor, _ start: Int, _ end: Int) -> CacheSection? {
        allCases.first { cursor.bytesEqual(start, end, $0.name) }
    }

    /// The section whose decoded name is `name`.
    static func named(_ name: String) -> CacheSection? {
        allCases.first { "\($0.name)" == name }
    }
}

/// An entry kept byte for byte: its decoded key and its text as read, `"key":value`.
struct KeptEntry: Sendable, Equatable {
    var key: String
    var raw: String
    /// How many entities of its section the document held before it (its place among them, when
    /// an entity and it share a key: see ``TokenStore/dropKeyClashes(atLoad:)``).
    var entitiesBefore = 0
}
