/// Everything a cache document holds, as read, in document order.
struct CacheContents: Sendable {
    var accessTokens: [CacheAccessToken] = []
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

extension CacheEntityFields {
    private mutating func takeUnknown() -> UnknownFields {
        var taken = UnknownFields.none
        swap(&taken, &unknown)
        return taken
    }

    /// The fields every token requires (home account, environment, client, secret), moved out; or
    /// `nil`, with the first one absent in `missing`.
    private mutating func takeCredential(_ missing: inout MissingField?) -> (String, String, String, String)? {
        guard let hid = take(.homeAccountId) else {
            missing = "home_account_id"
            return nil
        }
        guard let environment = take(.environment) else {
            missing = "environment"
            return nil
        }
        guard let clientId = take(.clientId) else {
            missing = "client_id"
            return nil
        }
        guard let secret = secret.take() else {
            missing = "secret"
            return nil
        }
        return (hid, environment, clientId, secret)
    }

    /// Appends the entity for a credential section, or returns the required field it lacks. Moves
    /// the values out of the fields, and the entity into the array: nothing is copied. (Entities
    /// are made with their memberwise initializers: the compiler copies one made by an explicit
    /// initializer into the array and destroys the original, a retain and a release per string.)
    mutating func takeAccessToken(into tokens: inout [CacheAccessToken]) -> MissingField? {
        var missing: MissingField?
        guard let (hid, environment, clientId, secret) = takeCredential(&missing) else { return missing }
        guard let target = take(.target) else { return "target" }
        tokens.append(
            CacheAccessToken(
                homeAccountId: hid, environment: environment, clientId: clientId, realm: take(.realm) ?? "",
                target: target, secret: secret, tokenType: take(.tokenType), cachedAt: timestamps.cachedAt,
                expiresOn: timestamps.expiresOn, extendedExpiresOn: timestamps.extendedExpiresOn,
                refreshOn: timestamps.refreshOn, unknown: takeUnknown()))
        return nil
    }

    mutating func takeRefreshToken(into tokens: inout [CacheRefreshToken]) -> MissingField? {
        var missing: MissingField?
        guard let (hid, environment, clientId, secret) = takeCredential(&missing) else { return missing }
        tokens.append(
            CacheRefreshToken(
                homeAccountId: hid, environment: environment, clientId: clientId, secret: secret,
                target: take(.target), familyId: take(.familyId), lastModificationTime: take(.lastModificationTime),
                realm: take(.realm), unknown: takeUnknown()))
        return nil
    }

    mutating func takeIdToken(into tokens: inout [CacheIdToken]) -> MissingField? {
        var missing: MissingField?
        guard let (hid, environment, clientId, secret) = takeCredential(&missing) else { return missing }
        tokens.append(
            CacheIdToken(
                homeAccountId: hid, environment: environment, clientId: clientId, realm: take(.realm) ?? "",
                secret: secret, unknown: takeUnknown()))
        return nil
    }

    mutating func takeAccount(into accounts: inout [CacheAccount]) -> MissingField? {
        guard let hid = take(.homeAccountId) else { return "home_account_id" }
        guard let environment = take(.environment) else { return "environment" }
        accounts.append(
            CacheAccount(
                homeAccountId: hid, environment: environment, realm: take(.realm) ?? "",
                localAccountId: take(.localAccountId) ?? "", username: take(.username) ?? "",
                authorityType: take(.authorityType) ?? "MSSTS", clientInfo: take(.clientInfo), name: take(.name),
                givenName: take(.givenName), familyName: take(.familyName), middleName: take(.middleName),
                unknown: takeUnknown()))
        return nil
    }

    mutating func takeAppMetadata(into metadata: inout [CacheAppMetadata]) -> MissingField? {
        guard let clientId = take(.clientId) else { return "client_id" }
        guard let environment = take(.environment) else { return "environment" }
        metadata.append(
            CacheAppMetadata(
                clientId: clientId, environment: environment, familyId: take(.familyId), unknown: takeUnknown()))
        return nil
    }
}

/// The name of a required field that an entry lacks.
struct MissingField: Error, ExpressibleByStringLiteral {
    var name: String

    init(stringLiteral value: String) {
        name = value
    }
}
