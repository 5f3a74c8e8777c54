import Foundation
import XCTest

@testable import MSAL

/// "Known to the developer" follows a listed authority to the tenant it is re-targeted to, and
/// nothing else becomes known.
final class KnownAuthorityRetargetRuleTests: XCTestCase {
    private let tenant = "f645ad92-e38d-4d1a-b510-d1b09a74a8ca"

    func testAListedAuthorityStaysKnownForItsTenant() throws {
        let common = try Authority.aad("https://127.0.0.1:8443/common")
        let retargeted = try common.withTenant(tenant)
        let known = Authority.knownAuthorities([common], retargeting: common, to: retargeted)
        XCTAssertEqual(known, [common, retargeted])
        XCTAssertTrue(retargeted.isListed(in: known))
        XCTAssertEqual(
            retargeted.instanceDiscoveryURL(isDeveloperKnown: retargeted.isListed(in: known))?.host, "127.0.0.1")
    }

    func testAnUnlistedAuthorityGivesNothing() throws {
        let listed = try Authority.aad("https://127.0.0.1:8443/common")
        let other = try Authority.aad("https://127.0.0.1:9443/common")
        let retargeted = try other.withTenant(tenant)
        XCTAssertEqual(Authority.knownAuthorities([listed], retargeting: other, to: retargeted), [listed])
        XCTAssertEqual(retargeted.instanceDiscoveryURL(isDeveloperKnown: false)?.host, "login.microsoftonline.com")
    }

    func testNothingChangesWithoutARetargetOrWhenAlreadyListed() throws {
        let common = try Authority.aad("https://127.0.0.1:8443/common")
        let tenanted = try common.withTenant(tenant)
        XCTAssertEqual(Authority.knownAuthorities([common], retargeting: common, to: common), [common])
        XCTAssertEqual(
            Authority.knownAuthorities([common, tenanted], retargeting: common, to: tenanted), [common, tenanted])
        XCTAssertEqual(Authority.knownAuthorities([], retargeting: common, to: tenanted), [])
    }
}
