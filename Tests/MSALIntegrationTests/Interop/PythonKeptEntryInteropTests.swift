import Foundation
import XCTest

@testable import MSAL

/// A cache file holding what this library cannot model (MSAL for Python's confidential-client
/// access token, another app's refresh token with an array target, a section name written with an
/// escape, a section that is not an object), rewritten here, is read by the real MSAL for Python
/// as we meant: nothing of its is lost, and no member name is written twice.
final class PythonKeptEntryInteropTests: XCTestCase {
    /// Reads the document at argv[1] with MSAL for Python; prints its entries and every member
    /// name that occurs twice in one object.
    private static let reader = """
        import json, sys, msal
        text = open(sys.argv[1], encoding="utf-8").read()
        duplicates = []
        def pairs(items):
            names = [name for name, _ in items]
            duplicates.extend(sorted({name for name in names if names.count(name) > 1}))
            return dict(items)
        json.loads(text, object_pairs_hook=pairs)
        cache = msal.SerializableTokenCache()
        cache.deserialize(text)
        CT = msal.TokenCache.CredentialType
        print(json.dumps({
            "duplicates": duplicates,
            "access_tokens": sorted(e["secret"] for e in cache.search(CT.ACCESS_TOKEN)),
            "refresh_tokens": sorted(e["secret"] for e in cache.search(CT.REFRESH_TOKEN)),
            "app_metadata": sorted(e["client_id"] + "=" + str(e.get("family_id")) for e in cache.search(CT.APP_METADATA)),
        }))
        """

    func testWhatWeCannotModelSurvivesARewriteForMSALPython() throws {
        let python = try MSALPython.require()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("msal-kept-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("cache.json").path
        let document = #"""
            {"AccessToken": {
              "-login.microsoftonline.com-accesstoken-app-utid-https://graph.microsoft.com/.default": {"credential_type": "AccessToken", "secret": "app-only", "home_account_id": null, "environment": "login.microsoftonline.com", "client_id": "app", "target": "https://graph.microsoft.com/.default", "realm": "utid", "token_type": "Bearer", "cached_at": "1700000000", "expires_on": "4000000000"}},
             "RefreshToken": {
              "uid.utid-login.microsoftonline.com-refreshtoken-other--": {"credential_type": "RefreshToken", "secret": "theirs", "home_account_id": "uid.utid", "environment": "login.microsoftonline.com", "client_id": "other", "target": ["a", "b"]}},
             "IdToken": [],
             "App\u004detadata": {"appmetadata-login.microsoftonline.com-fam": {"client_id": "fam", "environment": "login.microsoftonline.com", "family_id": "1"}}}
            """#
        try Data(document.utf8).write(to: URL(fileURLWithPath: path))
        let settings = CacheSettings(location: .file(path: path, isDefault: false), lockTimeout: 5)
        let cache = TokenCache(settings: settings)
        var record = TokenResponseRecord(
            clientId: "ours", environment: "login.microsoftonline.com", realm: "utid", homeAccountId: "me.utid",
            localAccountId: "me", username: "me@contoso.com")
        record.accessToken = "our-access-token"
        record.refreshToken = "our-refresh-token"
        record.idToken = "our-id-token"
        record.scopes = ["User.Read"]
        record.cachedAt = 1_700_000_000
        record.expiresOn = 4_000_000_000
        try cache.modifyBlocking { $0.save(record) }
        try cache.modifyBlocking { $0.setSignInState(.signedIn, clientId: "ours", homeAccountId: "me.utid") }

        let result = try MSALPython.run([python.python.path, "-c", Self.reader, path])
        XCTAssertEqual(result.status, 0, result.stderr)
        let read = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stdout)
        XCTAssertEqual(read["duplicates"] as? [String], [], "no member name twice")
        XCTAssertEqual(read["access_tokens"] as? [String], ["app-only", "our-access-token"])
        XCTAssertEqual(read["refresh_tokens"] as? [String], ["our-refresh-token", "theirs"])
        XCTAssertEqual(read["app_metadata"] as? [String], ["fam=1", "ours="])
    }
}
