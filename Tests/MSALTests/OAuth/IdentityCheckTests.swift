import Foundation
import MSALNative
import XCTest

@testable import MSAL

/// ``IdentityCheck`` without sockets: every way an answer may name the wrong identity, and the
/// legitimate shapes (guest tenants, AD FS and OIDC without `client_info`, family tokens) that
/// must still pass.
final class IdentityCheckTests: XCTestCase {
    private let now = Date(timeIntervalSince1970: 1_800_000_000)
    private let issuer = "https://login.microsoftonline.com/tenant-1/v2.0"
    private let alice = "alice-oid.home-tenant"

    private func token(_ claims: [String: String], header: String = #"{"alg":"RS256","kid":"k"}"#) throws
        -> IDTokenClaims
    {
        let members = claims.sorted { $0.key < $1.key }.map { "\"\($0.key)\":\($0.value)" }.joined(separator: ",")
        let payload = Base64URL.encode(Array(("{" + members + "}").utf8))
        return try IDTokenClaims(raw: Base64URL.encode(Array(header.utf8)) + "." + payload + ".c2ln")
    }

    private var good: [String: String] {
        [
            "aud": "\"client\"", "iss": "\"\(issuer)\"", "exp": "1800003600", "iat": "1800000000", "nbf": "1800000000",
            "sub": "\"pairwise-sub\"", "oid": "\"alice-oid\"", "tid": "\"tenant-1\"",
        ]
    }

    private func expectations(nonce: String? = nil, refreshing account: String? = nil) -> IdentityCheck.Expectations {
        let issuer = self.issuer
        return IdentityCheck.Expectations(
            clientId: "client", expectedIssuer: { _, _ in issuer }, nonce: nonce, now: now,
            rejectsExpired: account == nil, refreshedAccount: account)
    }

    private func check(
        _ claims: [String: String?], header: String = #"{"alg":"RS256","kid":"k"}"#, nonce: String? = nil,
        refreshing account: String? = nil, clientInfo: String? = nil, cached: [String: String]? = nil
    ) throws -> IdentityCheck.Failure? {
        var merged = good
        for (key, value) in claims { merged[key] = value }
        let evidence = IdentityCheck.Evidence(
            idToken: try token(merged, header: header), clientInfoAccount: clientInfo,
            cachedIdToken: try cached.map { try token($0) })
        return IdentityCheck.check(expectations(nonce: nonce, refreshing: account), evidence)
    }

    func testAGenuineTokenPasses() throws {
        XCTAssertNil(try check([:]))
        XCTAssertNil(try check(["nonce": "\"n1\""], nonce: "n1"))
        XCTAssertNil(try check(["aud": #"["other","client"]"#]))
        XCTAssertNil(try check(["iss": "\"\(issuer)/\""]), "a trailing slash is ignored")
        XCTAssertNil(try check(["exp": "\"1800003600\""]), "a numeric string")
        XCTAssertNil(try check(["iat": nil, "nbf": nil]), "iat and nbf are optional")
        XCTAssertNil(try check(["exp": "1799999800"]), "within the five-minute skew")
        for alg in IdentityCheck.acceptedAlgorithms {
            XCTAssertNil(try check([:], header: "{\"alg\":\"\(alg)\"}"), alg)
        }
    }

    func testTheAlgorithmMustBeAnAsymmetricSignature() throws {
        for header in [
            #"{"alg":"none"}"#, #"{"alg":"None"}"#, #"{"alg":"NONE"}"#, #"{"typ":"JWT"}"#, #"{"alg":null}"#,
            #"{"alg":1}"#, #"{"alg":"HS256"}"#, #"{"alg":"rs256"}"#, #"{"alg":""}"#,
        ] {
            guard case .algorithm? = try check([:], header: header) else {
                return XCTFail("\(header) is refused for its alg")
            }
        }
        XCTAssertEqual(
            IdentityCheck.Failure.algorithm("none\u{1B}[2J").description,
            "its alg (\"none[2J\") is not an asymmetric signature algorithm (RS, PS, ES or EdDSA)",
            "no control characters from the server in the message")
    }

    func testAudienceIssuerAndNonce() throws {
        XCTAssertEqual(try check(["aud": "\"other\""]), .audience)
        XCTAssertEqual(try check(["aud": nil]), .audience)
        XCTAssertEqual(try check(["iss": "\"https://evil.example/tenant-1/v2.0\""]), .issuer)
        XCTAssertEqual(try check(["iss": nil]), .noIssuer)
        XCTAssertEqual(try check(["nonce": "\"n2\""], nonce: "n1"), .nonce)
        XCTAssertEqual(try check([:], nonce: "n1"), .nonce)
    }

    func testATenantIDThatIsNoPathSegmentIsRefusedBeforeTheIssuerIsBuilt() throws {
        for tid in ["\"a`b\"", "\"a/b\"", "\"a b\"", "\"%zz\"", "\"\"", "42", "null", "[\"t\"]"] {
            XCTAssertEqual(try check(["tid": tid]), .malformedTenant, tid)
        }
        XCTAssertNil(try check(["tid": "\"contoso.onmicrosoft.com\""]))
        XCTAssertNil(try check(["tid": nil]), "AD FS and OIDC tokens have no tid")
    }

    func testTimes() throws {
        XCTAssertEqual(try check(["exp": nil]), .missingExpiry)
        XCTAssertEqual(try check(["exp": "\"abc\""]), .malformedTime("exp", .notANumber))
        XCTAssertEqual(try check(["exp": "1e30"]), .malformedTime("exp", .outOfRange(1e30, .epoch)))
        XCTAssertEqual(try check(["exp": "-1"]), .malformedTime("exp", .outOfRange(-1, .epoch)))
        XCTAssertEqual(try check(["iat": "\"yesterday\""]), .malformedTime("iat", .notANumber))
        XCTAssertEqual(try check(["nbf": "-1e30"]), .malformedTime("nbf", .outOfRange(-1e30, .epoch)))
        XCTAssertEqual(try check(["exp": "true"]), .malformedTime("exp", .notANumber))
        XCTAssertEqual(try check(["exp": "1799999000"]), .expired)
        XCTAssertNil(
            try check(["exp": "1799999000"], refreshing: "alice", clientInfo: "alice"),
            "a refresh answer's id token is not refused for its expiry")
        XCTAssertEqual(
            try check(["exp": "\"abc\""], refreshing: "alice", clientInfo: "alice"), .malformedTime("exp", .notANumber),
            "but its exp must still be well-formed")
    }

    func testTheAnswerMustNameTheRefreshedAccount() throws {
        XCTAssertNil(try check([:], refreshing: alice, clientInfo: alice))
        XCTAssertEqual(try check([:], refreshing: alice, clientInfo: "bob-oid.home-tenant"), .anotherAccount)
        // AD FS and OIDC: no client_info, the home account id is the subject.
        XCTAssertNil(try check(["sub": "\"adfs-subject\""], refreshing: "adfs-subject"))
        XCTAssertEqual(try check(["sub": "\"another-subject\""], refreshing: "adfs-subject"), .anotherAccount)
        // A refresh answer without an id token or client_info names nobody: nothing to compare.
        let empty = IdentityCheck.Evidence(idToken: nil, clientInfoAccount: nil, cachedIdToken: nil)
        XCTAssertNil(IdentityCheck.check(expectations(refreshing: alice), empty))
        let onlyInfo = IdentityCheck.Evidence(idToken: nil, clientInfoAccount: "bob.t", cachedIdToken: nil)
        XCTAssertEqual(IdentityCheck.check(expectations(refreshing: alice), onlyInfo), .anotherAccount)
    }

    func testSubAndOidMustMatchTheCachedIDTokenOfTheTenant() throws {
        XCTAssertNil(try check([:], clientInfo: alice, cached: good))
        XCTAssertEqual(try check(["sub": "\"other\""], clientInfo: alice, cached: good), .subjectChanged)
        XCTAssertEqual(try check(["oid": "\"other\""], clientInfo: alice, cached: good), .objectIdChanged)
        XCTAssertEqual(try check(["oid": nil], clientInfo: alice, cached: good), .objectIdChanged)
        // A cached token without oid (AD FS) constrains only sub.
        var adfs = good
        adfs["oid"] = nil
        XCTAssertNil(try check(["oid": "\"new\""], cached: adfs))
    }

    func testAGuestTenantOrAFamilyTokenIsNotAMismatch() throws {
        // The caller looks the cached token up in the answer's tenant and for this client id, so
        // a guest profile (another oid in another tenant) or a family app's pairwise sub never
        // reaches the comparison; what reaches it is a first token for that tenant or client.
        XCTAssertNil(try check(["oid": "\"guest-oid\"", "tid": "\"tenant-2\""], refreshing: alice, clientInfo: alice))
        // The issuer follows the token's tenant for tenantless authorities.
        let expected = IdentityCheck.Expectations(
            clientId: "client", expectedIssuer: { _, tid in "https://login.microsoftonline.com/\(tid ?? "")/v2.0" },
            nonce: nil, now: now)
        let guest = try token(
            good.merging(["iss": "\"https://login.microsoftonline.com/tenant-2/v2.0\"", "tid": "\"tenant-2\""]) { $1 })
        XCTAssertNil(IdentityCheck.check(expected, .init(idToken: guest)))
    }

    func testFailuresNameTheClaimNotItsValue() {
        let failures: [IdentityCheck.Failure] = [
            .audience, .malformedTenant, .noIssuer, .issuer, .nonce, .missingExpiry, .malformedTime("exp", .notANumber),
            .expired,
            .anotherAccount,
            .subjectChanged, .objectIdChanged,
        ]
        for failure in failures { XCTAssertFalse(failure.description.isEmpty) }
        XCTAssertTrue(IdentityCheck.Failure.subjectChanged.description.contains("sub"))
        XCTAssertTrue(IdentityCheck.Failure.anotherAccount.description.contains("account"))
    }
}
