import Foundation
import XCTest

@testable import MSAL

final class MSALAADAuthorityTests: XCTestCase {
    func testEnumRawValuesMatchMSAL() {
        XCTAssertEqual(MSALAudienceType.azureADAndPersonalMicrosoftAccountAudience.rawValue, 0)
        XCTAssertEqual(MSALAudienceType.azureADMultipleOrgsAudience.rawValue, 1)
        XCTAssertEqual(MSALAudienceType.azureADMyOrgOnlyAudience.rawValue, 2)
        XCTAssertEqual(MSALAudienceType.personalMicrosoftAccountAudience.rawValue, 3)
        let clouds: [(MSALAzureCloudInstance, Int, String)] = [
            (.publicCloudInstance, 0, "login.microsoftonline.com"),
            (.chinaCloudInstance, 1, "login.chinacloudapi.cn"),
            (.germanyCloudInstance, 2, "login.microsoftonline.de"),
            (.usGovernmentCloudInstance, 3, "login.microsoftonline.us"),
            (.franceCloudInstance, 4, "login.sovcloud-identity.fr"),
            (.delosCloudInstance, 5, "login.sovcloud-identity.de"),
            (.govSGCloudInstance, 6, "login.sovcloud-identity.sg"),
        ]
        XCTAssertEqual(MSALAzureCloudInstance.allCases.count, clouds.count)
        for (cloud, raw, host) in clouds {
            XCTAssertEqual(cloud.rawValue, raw)
            XCTAssertEqual(cloud.environment, host)
        }
    }

    func testEveryCloudAndAudience() throws {
        for cloud in MSALAzureCloudInstance.allCases {
            let host = cloud.environment
            let expected: [(MSALAudienceType, String?, String?)] = [
                (.azureADAndPersonalMicrosoftAccountAudience, nil, "https://\(host)/common"),
                (.azureADMultipleOrgsAudience, nil, "https://\(host)/organizations"),
                (.personalMicrosoftAccountAudience, nil, "https://\(host)/consumers"),
                (.azureADMyOrgOnlyAudience, "contoso.com", "https://\(host)/contoso.com"),
                (.azureADAndPersonalMicrosoftAccountAudience, "   ", "https://\(host)/common"),
            ]
            for (audience, tenant, url) in expected {
                let authority = try MSALAADAuthority(cloudInstance: cloud, audienceType: audience, rawTenant: tenant)
                XCTAssertEqual(authority.url.absoluteString, url)
                XCTAssertTrue(authority.model.isTrustedMicrosoftHost, host)
            }
            for audience in [
                MSALAudienceType.azureADAndPersonalMicrosoftAccountAudience, .azureADMultipleOrgsAudience,
                .personalMicrosoftAccountAudience,
            ] {
                assertMSALFailure(
                    try MSALAADAuthority(cloudInstance: cloud, audienceType: audience, rawTenant: "contoso.com"),
                    message: AuthorityError.rawTenantNotAllowed, "\(cloud) \(audience)")
            }
            for tenant in [nil, "", "  "] {
                assertMSALFailure(
                    try MSALAADAuthority(
                        cloudInstance: cloud, audienceType: .azureADMyOrgOnlyAudience, rawTenant: tenant),
                    message: AuthorityError.rawTenantRequired, "\(cloud) \(tenant ?? "nil")")
            }
        }
        XCTAssertEqual(
            AuthorityError.rawTenantNotAllowed,
            "Invalid MSALAudienceType provided. You can only provide rawTenant when using MSALAzureADMyOrgOnlyAudience."
        )
        XCTAssertEqual(
            AuthorityError.rawTenantRequired,
            "Invalid MSALAudienceType provided. You must provide rawTenant when using MSALAzureADMyOrgOnlyAudience.")
    }

    func testEnvironmentInitializer() throws {
        let authority = try MSALAADAuthority(
            environment: "127.0.0.1:8443", audienceType: .azureADMyOrgOnlyAudience, rawTenant: "Contoso.com")
        XCTAssertEqual(authority.url.absoluteString, "https://127.0.0.1:8443/Contoso.com")
        XCTAssertEqual(authority.model.realm, "contoso.com")
        for environment in ["", "   ", "bad host", "host/path", "host:70000"] {
            assertMSALFailure(
                try MSALAADAuthority(
                    environment: environment, audienceType: .azureADMultipleOrgsAudience, rawTenant: nil),
                message: AuthorityError.invalidEnvironment, environment)
        }
    }

    func testURLInitializers() throws {
        let plain = try MSALAADAuthority(
            url: fixtureURL("https://login.microsoftonline.com/common/oauth2/v2.0/authorize"))
        XCTAssertEqual(plain.url.absoluteString, "https://login.microsoftonline.com/common")
        let retargeted = try MSALAADAuthority(
            url: fixtureURL("https://login.microsoftonline.com:443/common/x"),
            rawTenant: "9188040d-6c67-4c5b-b112-36a304b66dad")
        XCTAssertEqual(
            retargeted.url.absoluteString, "https://login.microsoftonline.com/9188040d-6c67-4c5b-b112-36a304b66dad")
        XCTAssertEqual(retargeted.model.aadTenantType, .guid)
        let spaced = try MSALAADAuthority(url: fixtureURL("https://login.microsoftonline.com/common"), rawTenant: "a b")
        XCTAssertEqual(spaced.url.absoluteString, "https://login.microsoftonline.com/a%20b")
        XCTAssertEqual(spaced.model.realm, "a b")
        assertMSALFailure(
            try MSALAADAuthority(url: fixtureURL("https://login.microsoftonline.com/common"), rawTenant: ""),
            message: AuthorityError.missingAADTenant)
        assertMSALFailure(
            try MSALAADAuthority(url: fixtureURL("https://login.microsoftonline.com/common"), rawTenant: "a/b"),
            message: AuthorityError.invalidTenant)
        assertMSALFailure(
            try MSALAADAuthority(url: fixtureURL("https://login.microsoftonline.com"), rawTenant: "contoso.com"),
            message: AuthorityError.missingAADTenant)
        assertMSALFailure(
            try MSALAADAuthority(url: fixtureURL("https://fs.contoso.com/adfs")), message: AuthorityError.aadWithADFS)
    }

    func testOtherPublicInitializers() throws {
        let b2c = try MSALB2CAuthority(url: fixtureURL("https://x.b2clogin.com/x.onmicrosoft.com/B2C_1_a"))
        XCTAssertEqual(b2c.url.absoluteString, "https://x.b2clogin.com/x.onmicrosoft.com/B2C_1_a")
        XCTAssertEqual(b2c.policy, "B2C_1_a")
        assertMSALFailure(
            try MSALB2CAuthority(
                url: fixtureURL("https://x.b2clogin.com/x.onmicrosoft.com/B2C_1_a"), validateFormat: true),
            message: AuthorityError.notB2C)
        let ciam = try MSALCIAMAuthority(url: fixtureURL("https://contoso.ciamlogin.com"))
        XCTAssertEqual(ciam.url.absoluteString, "https://contoso.ciamlogin.com/contoso.onmicrosoft.com")
        assertMSALFailure(
            try MSALCIAMAuthority(url: fixtureURL("https://login.contoso.com/t"), validateFormat: true),
            message: AuthorityError.notCIAM)
        XCTAssertEqual(
            try MSALADFSAuthority(url: fixtureURL("https://fs.contoso.com/adfs/")).url.absoluteString,
            "https://fs.contoso.com/adfs")
        XCTAssertEqual(
            try MSALOIDCAuthority(issuer: fixtureURL("https://accounts.example.com/")).url.absoluteString,
            "https://accounts.example.com")
        XCTAssertEqual(try MSALOIDCAuthority(url: fixtureURL("https://idp.example.com/realms/x")).model.kind, .oidc)
    }

    func testErrorsAreRealNSErrors() {
        do {
            _ = try MSALAADAuthority(url: fixtureURL("http://login.microsoftonline.com/common"))
            XCTFail("expected an error")
        } catch let error as NSError {
            XCTAssertEqual(error.domain, MSALErrorDomain)
            XCTAssertEqual(error.code, MSALError.internal.rawValue)
            XCTAssertEqual(error.userInfo[MSALInternalErrorCodeKey] as? Int, -42_000)
        } catch {
            XCTFail("not a real NSError: \(error)")
        }
    }
}
