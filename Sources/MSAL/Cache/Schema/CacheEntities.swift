/// The sections of the unified cache schema (the format MSAL for Python, MSAL.NET and others
/// share) that this library models: one type per entry type, with the fields it reads and writes
/// in the order it writes them, and the key MSAL for Python's key makers build.
enum CacheSection: String, CaseIterable, Sendable {
    case accessToken = "AccessToken"
    case refreshToken = "RefreshToken"
    case idToken = "IdToken"
    case account = "Account"
    case appMetadata = "AppMetadata"
    case accountMetadata = "AccountMetadata"
    /// This library's own section: access tokens asked for with a resource (``CacheResourceToken``).
    case resourceAccessToken = "MSALResourceAccessToken"
}

/// An access token (`credential_type` `AccessToken`).
package struct CacheAccessToken: CacheEntity, Equatable {
    var homeAccountId = ""
    /// The cache environment: a host, with its port when it is not 443.
    var environment = ""
    package var clientId = ""
    /// The tenant id.
    package var realm = ""
    /// The granted scopes joined by spaces, in the server's case.
    var target = ""
    var secret = ""
    /// `token_type`; `nil` when the entry has none (Bearer).
    var tokenType: String? = nil
    /// Epoch seconds (written as strings).
    var cachedAt: Int64? = nil
    var expiresOn: Int64? = nil
    var extendedExpiresOn: Int64? = nil
    var refreshOn: Int64? = nil
    var unknown = UnknownFields.none

    static let section = CacheSection.accessToken
    static let fields: [CacheField<Self>] = [
        .init("credential_type", .credentialType("AccessToken")), .init("secret", .required(\.secret)),
        .init("home_account_id", .required(\.homeAccountId)), .init("environment", .required(\.environment)),
        .init("client_id", .required(\.clientId)), .init("target", .required(\.target)),
        .init("realm", .defaulted(\.realm)), .init("token_type", .optional(\.tokenType)),
        .init("cached_at", .timestamp(\.cachedAt)), .init("expires_on", .timestamp(\.expiresOn)),
        .init("extended_expires_on", .timestamp(\.extendedExpiresOn)), .init("refresh_on", .timestamp(\.refreshOn)),
    ]

    var key: String { CacheKey.join([homeAccountId, environment, "accesstoken", clientId, realm, target]) }

    /// Whether `other` is the same token slot: same account, environment, realm, client, type
    /// and the same scopes (compared case-insensitively, as a set).
    func isSameSlot(as other: CacheAccessToken) -> Bool {
        homeAccountId == other.homeAccountId && environment == other.environment && realm == other.realm
            && clientId == other.clientId
            && CacheScopes.normalizedTokenType(tokenType) == CacheScopes.normalizedTokenType(other.tokenType)
            && (target == other.target || CacheScopes.lowercasedSet(target) == CacheScopes.lowercasedSet(other.target))
    }
}

/// A refresh token (`credential_type` `RefreshToken`): as MSAL for Python stores it, one per
/// account, environment and client, carrying `family_id` when the client is in a family (FOCI).
struct CacheRefreshToken: CacheEntity, Equatable {
    var homeAccountId = ""
    var environment = ""
    var clientId = ""
    var secret = ""
    /// The scopes it was granted with, joined by spaces.
    var target: String? = nil
    /// `"1"` for the Microsoft family; `nil` when not a family token.
    var familyId: String? = nil
    /// `last_modification_time` as written (integer or fractional epoch seconds).
    var lastModificationTime: String? = nil
    var realm: String? = nil
    /// When the token stops being redeemable (epoch seconds), when its server said.
    var expiresOn: Int64? = nil
    var unknown = UnknownFields.none

    static let section = CacheSection.refreshToken
    static let fields: [CacheField<Self>] = [
        .init("credential_type", .credentialType("RefreshToken")), .init("secret", .required(\.secret)),
        .init("home_account_id", .required(\.homeAccountId)), .init("environment", .required(\.environment)),
        .init("client_id", .required(\.clientId)), .init("target", .optional(\.target)),
        .init("realm", .optional(\.realm)), .init("last_modification_time", .stringOrNumber(\.lastModificationTime)),
        .init("expires_on", .timestamp(\.expiresOn)), .init("family_id", .optional(\.familyId)),
    ]

    var key: String { CacheKey.join([homeAccountId, environment, "refreshtoken", clientId, "", target ?? ""]) }

    var isFamilyToken: Bool { !(familyId ?? "").isEmpty }

    /// `last_modification_time` in seconds, for choosing the newest of several tokens.
    var modificationSeconds: Double { lastModificationTime.flatMap(Double.init) ?? 0 }
}

/// An access token asked for with an RFC 8707 resource indicator. It is for one resource,
/// whatever its scopes say, so it is never kept in `AccessToken` (where every MSAL looks by scopes
/// alone) but in this library's own section `MSALResourceAccessToken`, which other libraries keep
/// as it is: an `AccessToken` entry plus `resource`, under the access token's key and
/// `-<resource>`.
struct CacheResourceToken: CacheEntity, Equatable {
    var token = CacheAccessToken()
    var resource = ""

    static let section = CacheSection.resourceAccessToken
    static let fields =
        CacheAccessToken.fields.map { $0.nested(in: \Self.token) } + [.init("resource", .required(\.resource))]

    var key: String { token.key + "-" + resource }

    var unknown: UnknownFields {
        get { token.unknown }
        set { token.unknown = newValue }
    }
}

/// An id token (`credential_type` `IdToken`): one per account, environment, realm and client.
package struct CacheIdToken: CacheEntity, Equatable {
    var homeAccountId = ""
    var environment = ""
    var clientId = ""
    var realm = ""
    /// The raw id token (a JWT).
    var secret = ""
    var unknown = UnknownFields.none

    static let section = CacheSection.idToken
    static let fields: [CacheField<Self>] = [
        .init("credential_type", .credentialType("IdToken")), .init("secret", .required(\.secret)),
        .init("home_account_id", .required(\.homeAccountId)), .init("environment", .required(\.environment)),
        .init("realm", .defaulted(\.realm)), .init("client_id", .required(\.clientId)),
    ]

    var key: String { CacheKey.join([homeAccountId, environment, "idtoken", clientId, realm, ""]) }
}

/// An account record: one per home account, environment and realm, so an account has one
/// record per tenant profile.
package struct CacheAccount: CacheEntity, Equatable {
    var homeAccountId = ""
    var environment = ""
    /// The tenant of this profile; the home profile has realm == utid.
    var realm = ""
    /// The object id in this tenant (`oid`), or `sub` without one.
    var localAccountId = ""
    var username = ""
    /// `MSSTS` (Entra ID, B2C, CIAM), `AAD`, `MSA`, `ADFS` or `Other`.
    var authorityType = "MSSTS"
    /// The raw base64url `client_info`, when known.
    var clientInfo: String? = nil
    var name: String? = nil
    var givenName: String? = nil
    var familyName: String? = nil
    var middleName: String? = nil
    /// How the account was signed in (`account_source`: `broker`, `authorization_code`, ...), as
    /// MSAL for Python records it; silent asks the broker for a `broker` account.
    var accountSource: String? = nil
    var unknown = UnknownFields.none

    static let section = CacheSection.account
    static let fields: [CacheField<Self>] = [
        .init("home_account_id", .required(\.homeAccountId)), .init("environment", .required(\.environment)),
        .init("realm", .defaulted(\.realm)), .init("local_account_id", .defaulted(\.localAccountId)),
        .init("username", .defaulted(\.username)), .init("authority_type", .defaulted(\.authorityType)),
        .init("client_info", .optional(\.clientInfo)), .init("name", .optional(\.name)),
        .init("given_name", .optional(\.givenName)), .init("family_name", .optional(\.familyName)),
        .init("middle_name", .optional(\.middleName)), .init("account_source", .optional(\.accountSource)),
    ]

    var key: String { CacheKey.join([homeAccountId, environment, realm]) }
}

/// App metadata: one per environment and client, recording whether the client is in a family
/// (`family_id` `"1"`), not or no longer in one (`""`), or unknown (`nil`).
struct CacheAppMetadata: CacheEntity, Equatable {
    var clientId = ""
    var environment = ""
    var familyId: String? = nil
    var unknown = UnknownFields.none

    static let section = CacheSection.appMetadata
    static let fields: [CacheField<Self>] = [
        .init("client_id", .required(\.clientId)), .init("environment", .required(\.environment)),
        .init("family_id", .optional(\.familyId)),
    ]

    /// Not lowercased: MSAL for Python builds it so and looks app metadata up by it.
    var key: String { CacheKey.join(["appmetadata", environment, clientId], lowercased: false) }
}

/// The sign-in state of an account for one client.
package enum SignInState: String, Sendable {
    case unknown
    case signedIn = "signed_in"
    case signedOut = "signed_out"
}

/// What the cache remembers about an account for one client, in this library's own section
/// `AccountMetadata`: `{"<client_id>": {"client_id", "account_metadata_map": {"<home_account_id>":
/// {"client_id", "home_account_id", "sign_in_state", ...}}}}`. Other members (MSAL for iOS's
/// `athority_map`, which this library does not use) are kept as written.
struct CacheAccountMetadata: CacheEntity, Equatable {
    var clientId = ""
    var homeAccountId = ""
    /// `sign_in_state` as written (a value of another MSAL's stays as it is).
    var signInStateText = SignInState.unknown.rawValue
    var unknown = UnknownFields.none

    static let section = CacheSection.accountMetadata
    static let fields: [CacheField<Self>] = [
        .init("client_id", .defaulted(\.clientId)), .init("home_account_id", .defaulted(\.homeAccountId)),
        .init("sign_in_state", .defaulted(\.signInStateText)),
    ]

    var key: String { homeAccountId }

    var signInState: SignInState {
        get { SignInState(rawValue: signInStateText) ?? .unknown }
        set { signInStateText = newValue.rawValue }
    }
}

/// What the document reader and writer need of an entry type.
protocol CacheEntity: Sendable {
    init()
    static var section: CacheSection { get }
    /// The members this library models, in the order it writes them.
    static var fields: [CacheField<Self>] { get }
    /// The key MSAL for Python gives the entry.
    var key: String { get }
    /// The members of its entry that its type does not list.
    var unknown: UnknownFields { get set }
}

/// A member of an entry that its type models: its name, and how its value is held.
struct CacheField<Entity>: Sendable {
    /// The name's UTF-8, compared with the document's bytes as they are.
    let utf8: [UInt8]
    let value: Value

    enum Value {
        /// `credential_type`: a string (the section says what the entry is).
        case credentialType(String)
        /// A string the entry must have for this library to model it.
        case required(WritableKeyPath<Entity, String>)
        /// A string, always written; when the entry has none, the type's default stays.
        case defaulted(WritableKeyPath<Entity, String>)
        /// A string, written when present.
        case optional(WritableKeyPath<Entity, String?>)
        /// Epoch seconds, written as a string of digits, read from a string or a number (whole seconds).
        case timestamp(WritableKeyPath<Entity, Int64?>)
        /// A string, or a number kept as its text (`last_modification_time`, a number for some MSALs).
        case stringOrNumber(WritableKeyPath<Entity, String?>)
    }

    init(_ name: String, _ value: Value) {
        utf8 = Array(name.utf8)
        self.value = value
    }
}

extension CacheField {
    /// This field of the entity at `root` of an `Outer` entity.
    func nested<Outer>(in root: WritableKeyPath<Outer, Entity>) -> CacheField<Outer> {
        let nested: CacheField<Outer>.Value =
            switch value {
            case .credentialType(let type): .credentialType(type)
            case .required(let path): .required(root.appending(path: path))
            case .defaulted(let path): .defaulted(root.appending(path: path))
            case .optional(let path): .optional(root.appending(path: path))
            case .timestamp(let path): .timestamp(root.appending(path: path))
            case .stringOrNumber(let path): .stringOrNumber(root.appending(path: path))
            }
        return CacheField<Outer>(String(decoding: utf8, as: UTF8.self), nested)
    }
}

// Key paths into Sendable value types are immutable values.
extension CacheField.Value: @unchecked Sendable {}

/// MSAL for Python's key makers: the parts joined by `-`, lowercased.
enum CacheKey {
    static func join(_ parts: [String], lowercased: Bool = true) -> String {
        lowercased ? parts.joined(separator: "-").lowercased() : parts.joined(separator: "-")
    }
}

/// Members of an entry that this library does not model, kept as their JSON text as read
/// (`"name":value` pairs joined by commas, without braces), so every rewrite keeps them.
/// Other MSALs add fields of their own (`account_source`, `key_id`, `requested_claims`, ...).
struct UnknownFields: Sendable, Hashable {
    var raw: String

    static let none = UnknownFields(raw: "")

    var isEmpty: Bool { raw.isEmpty }

    /// Adds a member from its name and value as written (the name with its quotes).
    mutating func append(rawName: String, rawValue: String) {
        raw += (raw.isEmpty ? "" : ",") + rawName + ":" + rawValue
    }
}
