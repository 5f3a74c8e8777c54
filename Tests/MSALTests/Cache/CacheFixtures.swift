import Foundation

@testable import MSAL

/// Cache documents and token responses for the cache tests.
enum CacheFixtures {
    static let clientId = "04b07795-8ddb-461a-bbee-02f9e1bf7b46"
    static let otherClientId = "1950a258-227b-4e31-a9cf-717495945fc2"
    static let tenant = "5c1b3e8a-0000-4000-8000-000000000001"
    static let otherTenant = "5c1b3e8a-0000-4000-8000-000000000002"
    static let environment = "localhost"
    static let uid = "72412313-0000-4000-8000-00000000aaaa"
    static var homeAccountId: String { "\(uid).\(tenant)" }

    /// What MSAL Python 1.39 writes after a password sign-in for a family client (cache-format.md),
    /// with an unknown field, an unknown section, and MSAL Python's indent of 4.
    static let pythonDocument = """
        {
            "AccessToken": {
                "72412313-0000-4000-8000-00000000aaaa.5c1b3e8a-0000-4000-8000-000000000001-localhost-accesstoken-04b07795-8ddb-461a-bbee-02f9e1bf7b46-5c1b3e8a-0000-4000-8000-000000000001-mail.read user.read": {
                    "credential_type": "AccessToken",
                    "secret": "at-secret",
                    "home_account_id": "72412313-0000-4000-8000-00000000aaaa.5c1b3e8a-0000-4000-8000-000000000001",
                    "environment": "localhost",
                    "client_id": "04b07795-8ddb-461a-bbee-02f9e1bf7b46",
                    "target": "Mail.Read User.Read",
                    "realm": "5c1b3e8a-0000-4000-8000-000000000001",
                    "token_type": "Bearer",
                    "cached_at": "1700000000",
                    "expires_on": "1700003600",
                    "extended_expires_on": "1700007200",
                    "refresh_on": "1700001800",
                    "key_id": null
                }
            },
            "RefreshToken": {
                "72412313-0000-4000-8000-00000000aaaa.5c1b3e8a-0000-4000-8000-000000000001-localhost-refreshtoken-04b07795-8ddb-461a-bbee-02f9e1bf7b46--mail.read user.read": {
                    "credential_type": "RefreshToken",
                    "secret": "rt-secret",
                    "home_account_id": "72412313-0000-4000-8000-00000000aaaa.5c1b3e8a-0000-4000-8000-000000000001",
                    "environment": "localhost",
                    "client_id": "04b07795-8ddb-461a-bbee-02f9e1bf7b46",
                    "target": "Mail.Read User.Read",
                    "last_modification_time": "1700000000",
                    "family_id": "1"
                }
            },
            "IdToken": {
                "72412313-0000-4000-8000-00000000aaaa.5c1b3e8a-0000-4000-8000-000000000001-localhost-idtoken-04b07795-8ddb-461a-bbee-02f9e1bf7b46-5c1b3e8a-0000-4000-8000-000000000001-": {
                    "credential_type": "IdToken",
                    "secret": "header.payload.signature",
                    "home_account_id": "72412313-0000-4000-8000-00000000aaaa.5c1b3e8a-0000-4000-8000-000000000001",
                    "environment": "localhost",
                    "realm": "5c1b3e8a-0000-4000-8000-000000000001",
                    "client_id": "04b07795-8ddb-461a-bbee-02f9e1bf7b46"
                }
            },
            "Account": {
                "72412313-0000-4000-8000-00000000aaaa.5c1b3e8a-0000-4000-8000-000000000001-localhost-5c1b3e8a-0000-4000-8000-000000000001": {
                    "home_account_id": "72412313-0000-4000-8000-00000000aaaa.5c1b3e8a-0000-4000-8000-000000000001",
                    "environment": "localhost",
                    "realm": "5c1b3e8a-0000-4000-8000-000000000001",
                    "local_account_id": "72412313-0000-4000-8000-00000000aaaa",
                    "username": "Alice@Contoso.com",
                    "authority_type": "MSSTS",
                    "account_source": "password"
                }
            },
            "AppMetadata": {
                "appmetadata-localhost-04b07795-8ddb-461a-bbee-02f9e1bf7b46": {
                    "client_id": "04b07795-8ddb-461a-bbee-02f9e1bf7b46",
                    "environment": "localhost",
                    "family_id": "1"
                }
            },
            "ForeignSection": {"x": [1, 2.50, {"y": "\\u00e9"}], "n": -0}
        }
        """

    /// A token response for `uid` in `realm` with `scopes`.
    static func response(
        uid: String = uid, tenant: String = tenant, realm: String? = nil, clientId: String = clientId,
        scopes: [String] = ["User.Read", "Mail.Read"], accessToken: String = "at", refreshToken: String? = "rt",
        foci: String? = nil, cachedAt: Int64 = 1_700_000_000, expiresIn: Int64 = 3600,
        username: String = "alice@contoso.com",
        environment: String = environment
    ) -> TokenResponseRecord {
        var record = TokenResponseRecord(
            clientId: clientId, environment: environment, realm: realm ?? tenant, homeAccountId: "\(uid).\(tenant)",
            localAccountId: uid, username: username)
        record.accessToken = accessToken
        record.scopes = scopes
        record.cachedAt = cachedAt
        record.expiresOn = cachedAt + expiresIn
        record.extendedExpiresOn = cachedAt + 2 * expiresIn
        record.idToken = "idtoken-\(uid)-\(realm ?? tenant)"
        record.refreshToken = refreshToken
        record.foci = foci
        return record
    }

    /// A fresh temporary folder, removed by the caller.
    static func temporaryFolder() -> URL {
        let url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent(
            "msal-cache-tests-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
