import Foundation
import XCTest

@testable import MSAL

final class MSALErrorInfoTests: XCTestCase {
    func testReadsEverythingTheFactoryWrites() {
        let correlationId = UUID()
        let error = MSALErrors.make(
            .internalErrorUnexpectedHttpResponse, "The server answered 503.",
            ErrorDetails(
                oauthError: "server_error", subError: "transient", subErrorDescription: "try later",
                stsErrorCodes: [1, 2], httpStatusCode: 503, httpHeaders: ["Retry-After": "5"],
                correlationId: correlationId, grantedScopes: ["a"], declinedScopes: ["b"],
                displayableUserId: "alice", homeAccountId: "h", throttled: true))
        let info = MSALErrorInfo(error)
        XCTAssertEqual(info.domain, MSALErrorDomain)
        XCTAssertEqual(info.code, -50000)
        XCTAssertEqual(info.msalError, .internal)
        XCTAssertEqual(info.internalCode, .internalErrorUnexpectedHttpResponse)
        XCTAssertEqual(info.internalCodeValue, -42009)
        XCTAssertEqual(info.oauthError, "server_error")
        XCTAssertEqual(info.subError, "transient")
        XCTAssertEqual(info.subErrorDescription, "try later")
        XCTAssertEqual(info.errorDescription, "The server answered 503.")
        XCTAssertEqual(info.correlationId, correlationId)
        XCTAssertEqual(info.grantedScopes, ["a"])
        XCTAssertEqual(info.declinedScopes, ["b"])
        XCTAssertEqual(info.httpStatusCode, 503)
        XCTAssertEqual(info.httpHeaders, ["Retry-After": "5"])
        XCTAssertEqual(info.stsErrorCodes, [1, 2])
        XCTAssertEqual(info.displayableUserId, "alice")
        XCTAssertEqual(info.homeAccountId, "h")
        XCTAssertTrue(info.isThrottled)
    }

    func testServerErrorCodeIsReadableAsInternalValue() {
        let info = MSALErrorInfo(MSALErrors.make(.serverError, "x"))
        XCTAssertEqual(info.msalError, .internal)
        XCTAssertEqual(info.internalCodeValue, MSALError.serverError.rawValue)
        XCTAssertNil(info.internalCode)
    }

    func testToleratesForeignShapesAndOtherDomains() {
        let error = NSError(
            domain: NSURLErrorDomain, code: -1009,
            userInfo: [
                MSALHTTPResponseCodeKey: 404, MSALSTSErrorCodesKey: [NSNumber(value: 7), "x"],
                MSALThrottlingCacheHitKey: NSNumber(value: 0), MSALGrantedScopesKey: ["a", 1],
                MSALCorrelationIDKey: "not a uuid", MSALInternalErrorCodeKey: "-42000",
            ])
        let info = MSALErrorInfo(error)
        XCTAssertNil(info.msalError)
        XCTAssertEqual(info.httpStatusCode, 404)
        XCTAssertEqual(info.stsErrorCodes, [7])
        XCTAssertFalse(info.isThrottled)
        XCTAssertEqual(info.grantedScopes, ["a"])
        XCTAssertNil(info.correlationId)
        XCTAssertEqual(info.internalCode, .internalErrorInvalidParameter)
    }

    func testSwiftErrorsAreReadThroughTheirBridge() {
        struct Plain: Error {}
        let info = MSALErrorInfo(Plain())
        XCTAssertNil(info.msalError)
        XCTAssertNil(info.oauthError)
        XCTAssertFalse(info.isThrottled)
    }
}
