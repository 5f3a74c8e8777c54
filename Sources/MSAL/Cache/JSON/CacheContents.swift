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
    /// Top-level sections this library does not know, as raw JSON, in document order.
    var unknownSections: [(name: String, rawValue: String)] = []
    /// Entries skipped because they were malformed, by section.
    var skipped: [String: Int] = [:]
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
}

extension CacheEntityFields {
    /// The entity for a credential section, or `nil` (with the reason) when a required field is missing.
    func accessToken(originalKey: String?) -> Result<CacheAccessToken, MissingField> {
        guard let hid = self[.homeAccountId] else { return .failure("home_account_id") }
        guard let environment = self[.environment] else { return .failure("environment") }
        guard let clientId = self[.clientId] else { return .failure("client_id") }
        guard let secret else { return .failure("secret") }
        guard let target = self[.target] else { return .failure("target") }
        return .success(
            CacheAccessToken(
                homeAccountId: hid, environment: environment, clientId: clientId, realm: self[.realm] ?? "",
                target: target, secret: secret, tokenType: self[.tokenType], cachedAt: timestamps.cachedAt,
                expiresOn: timestamps.expiresOn, extendedExpiresOn: timestamps.extendedExpiresOn,
                refreshOn: timestamps.refreshOn, unknown: unknown, originalKey: originalKey))
    }

    func refreshToken(originalKey: String?) -> Result<CacheRefreshToken, MissingField> {
        guard let hid = self[.homeAccountId] else { return .failure("home_account_id") }
        guard let environment = self[.environment] else { return .failure("environment") }
        guard let clientId = self[.clientId] else { return .failure("client_id") }
        guard let secret else { return .failure("secret") }
        return .success(
            CacheRefreshToken(
                homeAccountId: hid, environment: environment, clientId: clientId, secret: secret,
                target: self[.target], familyId: self[.familyId], lastModificationTime: self[.lastModificationTime],
                realm: self[.realm], unknown: unknown, originalKey: originalKey))
    }

    func idToken(originalKey: String?) -> Result<CacheIdToken, MissingField> {
        guard let hid = self[.homeAccountId] else { return .failure("home_account_id") }
        guard let environment = self[.environment] else { return .failure("environment") }
        guard let clientId = self[.clientId] else { return .failure("client_id") }
        guard let secret else { return .failure("secret") }
        return .success(
            CacheIdToken(
                homeAccountId: hid, environment: environment, clientId: clientId, realm: self[.realm] ?? "",
                secret: secret, unknown: unknown, originalKey: originalKey))
    }

    func account(originalKey: String?) -> Result<CacheAccount, MissingField> {
        guard let hid = self[.homeAccountId] else { return .failure("home_account_id") }
        guard let environment = self[.environment] else { return .failure("environment") }
        return .success(
            CacheAccount(
                homeAccountId: hid, environment: environment, realm: self[.realm] ?? "",
                localAccountId: self[.localAccountId] ?? "", username: self[.username] ?? "",
                authorityType: self[.authorityType] ?? "MSSTS", clientInfo: self[.clientInfo], name: self[.name],
                givenName: self[.givenName], familyName: self[.familyName], middleName: self[.middleName],
                unknown: unknown, originalKey: originalKey))
    }

    func appMetadata(originalKey: String?) -> Result<CacheAppMetadata, MissingField> {
        guard let clientId = self[.clientId] else { return .failure("client_id") }
        guard let environment = self[.environment] else { return .failure("environment") }
        return .success(
            CacheAppMetadata(
                clientId: clientId, environment: environment, familyId: self[.familyId], unknown: unknown,
                originalKey: originalKey))
    }
}

/// The name of a required field that an entry lacks.
struct MissingField: Error, ExpressibleByStringLiteral {
    var name: String

    init(stringLiteral value: String) {
        name = value
    }
}
