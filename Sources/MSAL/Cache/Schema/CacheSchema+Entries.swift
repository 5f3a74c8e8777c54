// The unified cache schema (shared/spec/cache-format.md), one table per entry type: every member
// this library reads and writes, in the order it writes them, and the key MSAL for Python builds.
// Reading, writing and keys all follow these tables.

extension CacheAccessToken: CacheEntity {
    static let schema = CacheSchema<CacheAccessToken>(
        .accessToken, key: "{home_account_id}-{environment}-accesstoken-{client_id}-{realm}-{target}",
        members: [
            .init("credential_type", .credentialType("AccessToken")),
            .init("secret", .secret(\.secret)),
            .init("home_account_id", .required(\.homeAccountId)),
            .init("environment", .required(\.environment), shared: true),
            .init("client_id", .required(\.clientId), shared: true),
            .init("target", .required(\.target), shared: true),
            .init("realm", .defaulted(\.realm), shared: true),
            .init("token_type", .optional(\.tokenType), shared: true),
            .init("cached_at", .timestamp(\.cachedAt)),
            .init("expires_on", .timestamp(\.expiresOn)),
            .init("extended_expires_on", .timestamp(\.extendedExpiresOn)),
            .init("refresh_on", .timestamp(\.refreshOn)),
        ])
}

extension CacheRefreshToken: CacheEntity {
    static let schema = CacheSchema<CacheRefreshToken>(
        .refreshToken, key: "{home_account_id}-{environment}-refreshtoken-{client_id}--{target}",
        members: [
            .init("credential_type", .credentialType("RefreshToken")),
            .init("secret", .secret(\.secret)),
            .init("home_account_id", .required(\.homeAccountId)),
            .init("environment", .required(\.environment), shared: true),
            .init("client_id", .required(\.clientId), shared: true),
            .init("target", .optional(\.target), shared: true),
            .init("realm", .optional(\.realm), shared: true),
            .init("last_modification_time", .stringOrNumber(\.lastModificationTime)),
            .init("expires_on", .timestamp(\.expiresOn)),
            .init("family_id", .optional(\.familyId), shared: true),
        ])
}

extension CacheIdToken: CacheEntity {
    static let schema = CacheSchema<CacheIdToken>(
        .idToken, key: "{home_account_id}-{environment}-idtoken-{client_id}-{realm}-",
        members: [
            .init("credential_type", .credentialType("IdToken")),
            .init("secret", .secret(\.secret)),
            .init("home_account_id", .required(\.homeAccountId)),
            .init("environment", .required(\.environment), shared: true),
            .init("realm", .defaulted(\.realm), shared: true),
            .init("client_id", .required(\.clientId), shared: true),
        ])
}

extension CacheAccount: CacheEntity {
    static let schema = CacheSchema<CacheAccount>(
        .account, key: "{home_account_id}-{environment}-{realm}",
        members: [
            .init("home_account_id", .required(\.homeAccountId)),
            .init("environment", .required(\.environment), shared: true),
            .init("realm", .defaulted(\.realm), shared: true),
            .init("local_account_id", .defaulted(\.localAccountId)),
            .init("username", .defaulted(\.username)),
            .init("authority_type", .defaulted(\.authorityType), shared: true),
            .init("client_info", .optional(\.clientInfo)),
            .init("name", .optional(\.name)),
            .init("given_name", .optional(\.givenName)),
            .init("family_name", .optional(\.familyName)),
            .init("middle_name", .optional(\.middleName)),
            .init("account_source", .optional(\.accountSource)),
        ])
}

extension CacheAppMetadata: CacheEntity {
    /// The key is not lowercased: MSAL for Python builds it so and looks app metadata up by it.
    static let schema = CacheSchema<CacheAppMetadata>(
        .appMetadata, key: "appmetadata-{environment}-{client_id}", lowercasesKey: false,
        members: [
            .init("client_id", .required(\.clientId), shared: true),
            .init("environment", .required(\.environment), shared: true),
            .init("family_id", .optional(\.familyId), shared: true),
        ])
}
