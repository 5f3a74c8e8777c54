import Foundation
import MSAL
import XCTest

@testable import msal_cli

final class ExitCodeTests: XCTestCase {
    private func msal(_ code: MSALError, _ userInfo: [String: Any] = [:]) -> NSError {
        NSError(domain: MSALErrorDomain, code: code.rawValue, userInfo: userInfo)
    }

    func testTable() {
        XCTAssertEqual(ExitCode(for: msal(.interactionRequired)), .interactionRequired)
        XCTAssertEqual(ExitCode(for: msal(.serverInvalidRequestResetPasswordRequired)), .interactionRequired)
        XCTAssertEqual(ExitCode(for: msal(.serverDeclinedScopes)), .declinedScopes)
        XCTAssertEqual(ExitCode(for: msal(.userCanceled)), .userCanceled)
        XCTAssertEqual(ExitCode(for: msal(.internal)), .failure)
        XCTAssertEqual(ExitCode(for: msal(.serverProtectionPoliciesRequired)), .failure)
        XCTAssertEqual(
            ExitCode(for: NSError(domain: NSURLErrorDomain, code: URLError.Code.cannotConnectToHost.rawValue)), .network
        )
        XCTAssertEqual(ExitCode(for: msal(.internal, [MSALHTTPResponseCodeKey: "429"])), .throttled)
        XCTAssertEqual(ExitCode(for: msal(.internal, [MSALThrottlingCacheHitKey: 1])), .throttled)
        XCTAssertEqual(ExitCode(for: NSError(domain: "Other", code: 1)), .failure)
        XCTAssertEqual(
            ExitCode.allCases.map(\.rawValue), [0, 1, 2, 3, 4, 5, 6, 7, 8, 124, 130, 143],
            "documented in Docs/CLI.md; never change")
    }

    func testReportNamesEveryFact() {
        let error = msal(
            .interactionRequired,
            [
                MSALErrorDescriptionKey: "User interaction is required", MSALInternalErrorCodeKey: -42004,
                MSALOAuthErrorKey: "invalid_grant", MSALOAuthSubErrorKey: "bad_token",
                MSALCorrelationIDKey: "5A8E1E4B-8B36-4C5B-9C49-3C2C6C1A2B3D", MSALSTSErrorCodesKey: [70000],
            ])
        XCTAssertEqual(
            ErrorReport.lines(for: error),
            [
                "msal: error: User interaction is required",
                "  domain: MSALErrorDomain",
                "  code: -50002 (interactionRequired)",
                "  internal code: -42004 (internalErrorInvalidGrant)",
                "  OAuth error: invalid_grant",
                "  suberror: bad_token",
                "  STS error codes: 70000",
                "  correlation id: 5a8e1e4b-8b36-4c5b-9c49-3c2c6c1a2b3d",
                "  hint: sign in again with `msal login` (with the same scopes)",
            ])
    }

    func testScopesAndConnectToOptions() throws {
        XCTAssertEqual(
            ApplicationOptions.scopes("User.Read  Mail.Read,api://x/.default"),
            [
                "User.Read", "Mail.Read", "api://x/.default",
            ])
        XCTAssertEqual(ApplicationOptions.scopes(nil), [])
        let arguments = try CommandLineArguments.parse(
            ["token"], specifications: ["token": ApplicationOptions.specification])
        let options = try ApplicationOptions(
            arguments,
            environment: [
                "MSAL_CLIENT_ID": "id",
                "MSAL_AUTHORITY": "https://contoso.b2clogin.com/tfp/contoso.onmicrosoft.com/B2C_1_x",
                "MSAL_CONNECT_TO": "a:443:127.0.0.1:1, b:443:127.0.0.1:2 ,",
            ])
        XCTAssertEqual(options.clientId, "id")
        XCTAssertTrue(options.authority is MSALB2CAuthority)
        XCTAssertEqual(options.connectTo, ["a:443:127.0.0.1:1", "b:443:127.0.0.1:2"])
        XCTAssertThrowsError(
            try ApplicationOptions(arguments, environment: ["MSAL_CLIENT_ID": "id", "MSAL_CONNECT_TO": "a:443"]))
    }
}
