import Foundation
import XCTest

@testable import MSAL

final class DeclinedScopesTests: XCTestCase {
    func testDeclinedScopeDetection() {
        let table: [(requested: [String], granted: String?, at: Bool, result: DeclinedScopes?, line: UInt)] = [
            (["User.Read"], "User.Read openid profile", true, nil, #line),
            (["User.Read"], "user.read", true, nil, #line),
            (["user.read"], "User.Read", true, nil, #line),
            (
                ["User.Read", "Mail.Read"], "User.Read openid profile offline_access", true,
                DeclinedScopes(granted: ["User.Read"], declined: ["Mail.Read"]), #line
            ),
            (
                ["Mail.Read", "User.Read", "Files.Read"], "OpenID User.Read Profile", true,
                DeclinedScopes(granted: ["User.Read"], declined: ["Mail.Read", "Files.Read"]), #line
            ),
            (["User.Read", "Mail.Read"], "User.Read", false, nil, #line),
            (["User.Read", "Mail.Read"], nil, true, nil, #line),
            (
                ["User.Read", "Mail.Read"], "", true,
                DeclinedScopes(granted: [], declined: ["User.Read", "Mail.Read"]), #line
            ),
            (["email", "User.Read"], "User.Read", true, nil, #line),
            (["Email", "User.Read"], "User.Read openid", true, nil, #line),
            (
                ["email", "Mail.Read"], "User.Read", true,
                DeclinedScopes(granted: ["User.Read"], declined: ["Mail.Read"]), #line
            ),
            (["openid", "User.Read"], "User.Read", true, nil, #line),
            (
                ["Mail.Read", "Mail.Read"], "x  y", true, DeclinedScopes(granted: ["x", "y"], declined: ["Mail.Read"]),
                #line
            ),
            (["https://graph.microsoft.com/.default"], "User.Read Mail.Read", true, nil, #line),
            (["https://graph.microsoft.com//.default"], "", true, nil, #line),
            (["https://contoso.com/.DEFAULT", "Mail.Read"], "User.Read", true, nil, #line),
            (["https://graph.microsoft.com/User.Read"], "https://graph.microsoft.com/User.Read", true, nil, #line),
            ([], "User.Read", true, nil, #line),
        ]
        for row in table {
            XCTAssertEqual(
                DeclinedScopes.check(requested: row.requested, grantedScope: row.granted, accessTokenReturned: row.at),
                row.result, line: row.line)
        }
    }

    func testDeclinedScopesError() {
        let correlationId = UUID()
        let declined = DeclinedScopes(granted: ["User.Read"], declined: ["Mail.Read"])
        let result = NSObject()
        let error = declined.error(invalidResult: result, correlationId: correlationId)
        XCTAssertEqual(error.domain, MSALErrorDomain)
        XCTAssertEqual(error.code, MSALError.serverDeclinedScopes.rawValue)
        XCTAssertNil(error.userInfo[MSALInternalErrorCodeKey])
        XCTAssertEqual(error.userInfo[MSALGrantedScopesKey] as? [String], ["User.Read"])
        XCTAssertEqual(error.userInfo[MSALDeclinedScopesKey] as? [String], ["Mail.Read"])
        XCTAssertTrue((error.userInfo[MSALInvalidResultKey] as AnyObject) === result)
        XCTAssertEqual(error.userInfo[MSALCorrelationIDKey] as? String, correlationId.uuidString)
        XCTAssertTrue(
            (error.userInfo[MSALErrorDescriptionKey] as? String)?.hasPrefix(
                "Server returned less scopes than requested") ?? false)
        XCTAssertNil(declined.error().userInfo[MSALInvalidResultKey])
    }
}
