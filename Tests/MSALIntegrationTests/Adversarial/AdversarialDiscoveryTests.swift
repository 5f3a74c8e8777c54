import Foundation
import MSALNative
import MSALTestSupport
import XCTest

@testable import MSAL

/// Discovery documents that point the library somewhere it must not go: a plain-HTTP token
/// endpoint (a refresh token was once POSTed to one in clear text, and the poisoned document
/// persisted in the cache file kept it going there), endpoints on another host, and such a
/// document already in the cache file. Each case asserts the error the app sees, what the plain
/// listener (or the emulator) received, and that the cache file's tokens are unchanged.
final class AdversarialDiscoveryTests: FaultSuiteCase {
    private var plain: PlainListener!

    override func setUpWithError() throws {
        try super.setUpWithError()
        plain = try PlainListener()
    }

    override func tearDownWithError() throws {
        plain?.stop()
        try super.tearDownWithError()
    }

    /// Forgets persisted discovery, so a new application asks the network again.
    private func dropPersistedDiscovery() throws {
        try rewriteDiscoverySection { _ in nil }
    }

    /// Rewrites every persisted discovery document with `change` (`nil` drops the section).
    private func rewriteDiscoverySection(_ change: ([String: Any]) -> [String: Any]?) throws {
        let data = try Data(contentsOf: cacheFile)
        var document = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        var section = document[CacheDiscoveryStorage.sectionName] as? [String: [String: Any]] ?? [:]
        for (key, var entry) in section {
            guard let body = entry["response"] as? String,
                let object = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
            else { continue }
            guard let changed = change(object) else {
                section[key] = nil
                continue
            }
            entry["response"] = String(decoding: try JSONSerialization.data(withJSONObject: changed), as: UTF8.self)
            section[key] = entry
        }
        document[CacheDiscoveryStorage.sectionName] = section.isEmpty ? nil : section
        try JSONSerialization.data(withJSONObject: document).write(to: cacheFile, options: .atomic)
    }

    /// How many persisted discovery documents name the plain listener.
    private func documentsNamingThePlainListener() throws -> Int {
        let data = try Data(contentsOf: cacheFile)
        let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let section = document[CacheDiscoveryStorage.sectionName] as? [String: [String: Any]] ?? [:]
        return section.values.filter { ($0["response"] as? String)?.contains("127.0.0.1:\(plain.port)") == true }
            .count
    }

    /// Whether the cache file names the plain listener anywhere (JSON may escape its slashes).
    private var cacheNamesThePlainListener: Bool {
        ((try? String(contentsOf: cacheFile, encoding: .utf8)) ?? "").contains("127.0.0.1:\(plain.port)")
    }

    /// Every endpoint field of an OpenID configuration, pointed at the plain listener, is refused
    /// before anything is sent: -42600 naming the document and the field.
    func testPlainHTTPEndpointsFromDiscoveryAreRefusedAndNothingIsSent() async throws {
        let account = try await signIn().account
        let fields = [
            "token_endpoint", "authorization_endpoint", "device_authorization_endpoint", "end_session_endpoint",
            "jwks_uri",
        ]
        for field in fields {
            try dropPersistedDiscovery()
            let before = CacheSnapshot.read(cacheFile)
            let tokenRequests = emulator.requestCount(.token)
            let fresh = try makeApp()
            let url = "\(plain.baseURL)/common/oauth2/v2.0/\(field)"
            emulator.inject(.rewriteFields([field: EmulatorFault.jsonString(url)]), at: .openIDConfiguration)
            let error = await assertFailure(code: MSALError.internal.rawValue, internalCode: -42_600) {
                _ = try await fresh.application.acquireTokenSilent(with: self.silent(account, force: true))
            }
            let description = error?.localizedDescription ?? ""
            XCTAssertTrue(description.contains("OpenID configuration at https://"), description)
            XCTAssertTrue(description.contains("its \(field) (\(url))"), description)
            XCTAssertEqual(plain.connections, 0, "\(field): nothing reached the plain listener")
            XCTAssertEqual(emulator.requestCount(.token), tokenRequests, field)
            assertCacheUnchanged(since: before)
            XCTAssertFalse(cacheNamesThePlainListener, "\(field): the document was not persisted")
        }
    }

    /// A poisoned document already in the cache file (written by an older version, or by another
    /// program) is checked again when loaded: it is dropped, the healthy server's document is
    /// fetched and persisted instead, and the refresh goes over HTTPS.
    func testAPoisonedDocumentInTheCacheFileIsCheckedAgain() async throws {
        let account = try await signIn().account
        // Resolve the home tenant once, so its document is persisted too.
        _ = try await app.application.acquireTokenSilent(with: silent(account, force: true))
        var poisoned = 0
        try rewriteDiscoverySection { object in
            guard object["token_endpoint"] != nil else { return object }
            poisoned += 1
            var changed = object
            changed["token_endpoint"] = "\(plain.baseURL)/common/oauth2/v2.0/token"
            return changed
        }
        XCTAssertGreaterThan(poisoned, 0, "the cache file holds OpenID configurations")
        XCTAssertTrue(cacheNamesThePlainListener)
        let documents = emulator.requestCount(.openIDConfiguration)
        let tokenRequests = emulator.requestCount(.token)

        let fresh = try makeApp()
        let result = try await fresh.application.acquireTokenSilent(with: silent(account, force: true))
        remember(result)
        XCTAssertFalse(result.accessToken.isEmpty)
        XCTAssertEqual(plain.connections, 0, "the refresh token never went to the plain listener")
        XCTAssertEqual(emulator.requestCount(.token), tokenRequests + 1, "the refresh went to the emulator")
        XCTAssertEqual(emulator.requestCount(.openIDConfiguration), documents + 1, "the document was fetched anew")
        XCTAssertEqual(
            try documentsNamingThePlainListener(), poisoned - 1,
            "the persisted document that was used is replaced; the others are checked when used")
    }

    /// An Entra authority's endpoints stay on its host: a document naming another host for the
    /// token endpoint is refused, not followed (Entra's documents never do this).
    func testAnEntraTokenEndpointOnAnotherHostIsRefused() async throws {
        let account = try await signIn().account
        try dropPersistedDiscovery()
        let before = CacheSnapshot.read(cacheFile)
        let tokenRequests = emulator.requestCount(.token)
        let fresh = try makeApp()
        emulator.inject(
            .rewriteFields(["token_endpoint": EmulatorFault.jsonString("https://127.0.0.1:\(plain.port)/t/token")]),
            at: .openIDConfiguration)
        let error = await assertFailure(code: MSALError.internal.rawValue, internalCode: -42_600) {
            _ = try await fresh.application.acquireTokenSilent(with: self.silent(account, force: true))
        }
        XCTAssertTrue(
            error?.localizedDescription.contains("names the host 127.0.0.1:\(plain.port)") == true,
            error?.localizedDescription ?? "")
        XCTAssertEqual(plain.connections, 0)
        XCTAssertEqual(emulator.requestCount(.token), tokenRequests)
        assertCacheUnchanged(since: before)
    }

    /// A discovery document's expiry of 1e30 seconds in the cache file does not make it live
    /// forever: at most the cache lifetime (a day) from when it is read.
    func testAPersistedExpiryFarInTheFutureIsCapped() async throws {
        let account = try await signIn().account
        // The home tenant's document is persisted by the first silent call.
        remember(try await app.application.acquireTokenSilent(with: silent(account, force: true)))
        let data = try Data(contentsOf: cacheFile)
        var document = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        var section = try XCTUnwrap(document[CacheDiscoveryStorage.sectionName] as? [String: [String: Any]])
        for key in section.keys { section[key]?["expires_on"] = "1e30" }
        document[CacheDiscoveryStorage.sectionName] = section
        try JSONSerialization.data(withJSONObject: document).write(to: cacheFile, options: .atomic)
        let documents = emulator.requestCount(.openIDConfiguration)

        let fresh = try makeApp()
        remember(try await fresh.application.acquireTokenSilent(with: silent(account, force: true)))
        XCTAssertEqual(emulator.requestCount(.openIDConfiguration), documents, "the kept document is used")
        fresh.advance(by: 2 * 24 * 3600)
        remember(try await fresh.application.acquireTokenSilent(with: silent(account, force: true)))
        XCTAssertEqual(
            emulator.requestCount(.openIDConfiguration), documents + 1, "a document two days old is fetched again")
    }
}
