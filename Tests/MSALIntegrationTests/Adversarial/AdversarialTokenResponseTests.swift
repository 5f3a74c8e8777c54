import Foundation
import MSALNative
import MSALTestSupport
import XCTest

@testable import MSAL

/// Token and device code answers whose body a hostile or broken server rewrote: numbers no
/// conversion can hold, numbers as strings, missing or empty tokens, another token type. Each
/// goes through the emulator and the real transport, and each is a clear -42600 that changes
/// nothing in the cache file.
final class AdversarialTokenResponseTests: FaultSuiteCase {
    /// The time fields of a token answer, relative (`_in`) and absolute (`_on`).
    static let timeFields = [
        "expires_in", "ext_expires_in", "refresh_in", "expires_on", "ext_expires_on", "refresh_on",
        "refresh_token_expires_in",
    ]
    /// Numbers no `Int64` holds, negative lifetimes, and one as a string.
    static let hostileNumbers = ["1e30", "-1e30", "9.3e18", "\"1e30\"", "-5", "\"abc\"", "true", "[]", "{}"]

    private func assertRejected(
        _ label: String, field: String? = nil, file: StaticString = #filePath, line: UInt = #line,
        _ body: () async throws -> Void
    ) async {
        let error = await assertFailure(
            code: MSALError.internal.rawValue, internalCode: -42600, file: file, line: line, body)
        let description = error?.userInfo[MSALErrorDescriptionKey] as? String ?? ""
        if let field {
            XCTAssertTrue(
                description.contains(field), "\(label): the error names \(field): \(description)", file: file,
                line: line)
        }
        XCTAssertNotNil(error?.userInfo[MSALCorrelationIDKey], label, file: file, line: line)
    }

    func testHostileNumbersInARefreshAnswerAreInvalidResponsesNotCrashes() async throws {
        let account = try await signIn().account
        for field in Self.timeFields {
            for value in Self.hostileNumbers {
                let label = "\(field)=\(value)"
                let before = CacheSnapshot.read(cacheFile)
                let sent = emulator.tokenRequestCount(grantType: .refreshToken)
                emulator.inject(.rewriteFields([field: value]), at: .token, grantType: .refreshToken)
                await assertRejected(label, field: field) {
                    _ = try await self.app.application.acquireTokenSilent(with: self.silent(account, force: true))
                }
                XCTAssertEqual(emulator.tokenRequestCount(grantType: .refreshToken) - sent, 1, label)
                XCTAssertEqual(emulator.pendingFaultCount, 0, label)
                assertCacheUnchanged(since: before)
            }
        }
        // Numbers as Entra v1 and AD FS send them (strings, fractions) still work.
        emulator.inject(
            .rewriteFields(["expires_in": "\"3599\"", "ext_expires_in": "7199.5", "refresh_in": "\"1800\""]),
            at: .token, grantType: .refreshToken)
        let refreshed = try await app.application.acquireTokenSilent(with: silent(account, force: true))
        remember(refreshed)
        let expiresIn = try XCTUnwrap(refreshed.expiresOn).timeIntervalSince(app.emulator.now)
        XCTAssertEqual(expiresIn, 3599, accuracy: 5)
    }

    func testHostileNumbersInASignInOrDeviceCodeAnswerAreInvalidResponses() async throws {
        try await signIn(EmulatorUser.bob.username)
        for value in ["1e30", "9.3e18", "-1e30"] {
            let before = CacheSnapshot.read(cacheFile)
            emulator.inject(.rewriteFields(["expires_on": value]), at: .token, grantType: .authorizationCode)
            await assertRejected("sign-in expires_on=\(value)", field: "expires_on") {
                _ = try await self.signIn()
            }
            assertCacheUnchanged(since: before)
        }
        let before = CacheSnapshot.read(cacheFile)
        emulator.inject(.rewriteFields(["ext_expires_in": "1e30"]), at: .token, grantType: .deviceCode)
        let approver = emulator
        await assertRejected("device code grant", field: "ext_expires_in") {
            _ = try await self.app.application.acquireTokenWithDeviceCode(
                parameters: MSALTokenParameters(scopes: ["User.Read"]),
                deviceCodeCallback: { info in try? approver?.approveDeviceCode(userCode: info.userCode) })
        }
        XCTAssertEqual(emulator.tokenRequestCount(grantType: .deviceCode), 1)
        assertCacheUnchanged(since: before)
    }

    func testDeviceCodeAnswerWithHostileNumbersIsRefusedBeforeTheCallback() async throws {
        try await signIn()
        let cases: [(String, String)] = [
            ("expires_in", "1e30"), ("expires_in", "9.3e18"), ("expires_in", "\"1e30\""), ("expires_in", "-1"),
            ("expires_in", "0"), ("interval", "1e30"), ("interval", "-5"), ("interval", "\"abc\""),
        ]
        for (field, value) in cases {
            let label = "\(field)=\(value)"
            let before = CacheSnapshot.read(cacheFile)
            let polls = emulator.tokenRequestCount(grantType: .deviceCode)
            let shown = Locked(0)
            let emulator = self.emulator!
            emulator.inject(.rewriteFields([field: value]), at: .deviceCode)
            await assertRejected(label, field: field) {
                _ = try await self.app.application.acquireTokenWithDeviceCode(
                    parameters: MSALTokenParameters(scopes: ["User.Read"]),
                    deviceCodeCallback: { info in
                        shown.withLock { $0 += 1 }
                        // Ends the flow if the library wrongly accepted the answer.
                        try? emulator.declineDeviceCode(userCode: info.userCode)
                    })
            }
            XCTAssertEqual(shown.withLock { $0 }, 0, "\(label): the app never saw the codes")
            XCTAssertEqual(emulator.tokenRequestCount(grantType: .deviceCode), polls, "\(label): no poll")
            assertCacheUnchanged(since: before)
        }
    }

    func testASuccessAnswerWithoutAnAccessTokenIsAnInvalidResponse() async throws {
        let account = try await signIn().account
        for value: String? in [nil, "\"\"", "null", "42"] {
            let label = "access_token=\(value ?? "absent")"
            let before = CacheSnapshot.read(cacheFile)
            emulator.inject(.rewriteFields(["access_token": value]), at: .token, grantType: .refreshToken)
            await assertRejected(label, field: "access_token") {
                _ = try await self.app.application.acquireTokenSilent(with: self.silent(account, force: true))
            }
            assertCacheUnchanged(since: before)
        }
        let before = CacheSnapshot.read(cacheFile)
        emulator.inject(.rewriteFields(["access_token": nil]), at: .token, grantType: .authorizationCode)
        await assertRejected("sign-in without access_token", field: "access_token") {
            _ = try await self.signIn(EmulatorUser.bob.username)
        }
        assertCacheUnchanged(since: before)
        XCTAssertNil(try app.application.account(forUsername: EmulatorUser.bob.username))
    }

    func testATokenTypeOtherThanBearerIsNotSentAsBearer() async throws {
        let account = try await signIn().account
        for value in ["\"pop\"", "\"MAC\"", "\"\"", "7"] {
            let label = "token_type=\(value)"
            let before = CacheSnapshot.read(cacheFile)
            emulator.inject(.rewriteFields(["token_type": value]), at: .token, grantType: .refreshToken)
            await assertRejected(label, field: "token_type") {
                _ = try await self.app.application.acquireTokenSilent(with: self.silent(account, force: true))
            }
            assertCacheUnchanged(since: before)
        }
        // `bearer` in any case is Bearer.
        emulator.inject(.rewriteFields(["token_type": "\"bearer\""]), at: .token, grantType: .refreshToken)
        let lower = try await app.application.acquireTokenSilent(with: silent(account, force: true))
        remember(lower)
        XCTAssertEqual(lower.authorizationHeader, "Bearer \(lower.accessToken)")
    }

    func testAnErrorAnswerWithHostileNumbersIsStillThatError() async throws {
        let account = try await signIn().account
        for codes in ["[1e30]", "[-1e30, 9.3e18]", "[\"1e30\", \"99999999999999999999999\"]", "1e30"] {
            let before = CacheSnapshot.read(cacheFile)
            let body = #"{"error":"invalid_grant","error_description":"AADSTS70000: nope","error_codes":"# + codes + "}"
            emulator.inject(.response(status: 400, body: Data(body.utf8)), at: .token, grantType: .refreshToken)
            let error = await assertFailure(code: MSALError.interactionRequired.rawValue) {
                _ = try await self.app.application.acquireTokenSilent(with: self.silent(account, force: true))
            }
            XCTAssertNotNil(error, codes)
            assertCacheUnchanged(since: before)
        }
    }
}
