import Foundation
import XCTest

@testable import MSAL

final class ClassificationTests: XCTestCase {
    private let correlationId = UUID(uuidString: "6F1C2F4A-3C5B-4E55-9D0B-7C1A2B3C4D5E")!

    private struct Row {
        var code: Int
        var existingInternal: Int?
        var expectedCode: Int
        var expectedInternal: Int?
        var line: UInt = #line
    }

    func testMSALDomainTable() {
        let rows: [Row] = [
            // Recoverable: stay top-level, no internal code added.
            Row(code: -50001, expectedCode: -50001, expectedInternal: nil),
            Row(code: -50002, expectedCode: -50002, expectedInternal: nil),
            Row(code: -50003, expectedCode: -50003, expectedInternal: nil),
            Row(code: -50004, expectedCode: -50004, expectedInternal: nil),
            Row(code: -50005, expectedCode: -50005, expectedInternal: nil),
            Row(code: -50142, expectedCode: -50142, expectedInternal: nil),
            // -50000 itself: internal becomes Unexpected.
            Row(code: -50000, expectedCode: -50000, expectedInternal: -42008),
            // -50006/-50007/-50008 are not recoverable.
            Row(code: -50006, expectedCode: -50000, expectedInternal: -50006),
            Row(code: -50007, expectedCode: -50000, expectedInternal: -50007),
            Row(code: -50008, expectedCode: -50000, expectedInternal: -50008),
            // Internal codes.
            Row(code: -42000, expectedCode: -50000, expectedInternal: -42000),
            Row(code: -42004, expectedCode: -50000, expectedInternal: -42004),
            Row(code: -42104, expectedCode: -50000, expectedInternal: -42104),
            Row(code: -42745, expectedCode: -50000, expectedInternal: -42745),
            // Unknown code in the MSAL domain.
            Row(code: 7, expectedCode: -50000, expectedInternal: 7),
            // An existing internal code is kept.
            Row(code: -50000, existingInternal: -42000, expectedCode: -50000, expectedInternal: -42000),
            Row(code: -42009, existingInternal: -42600, expectedCode: -50000, expectedInternal: -42600),
            Row(code: -50002, existingInternal: -42004, expectedCode: -50002, expectedInternal: -42004),
        ]
        for row in rows {
            var userInfo: [String: Any] = ["custom": "kept"]
            if let existing = row.existingInternal { userInfo[MSALInternalErrorCodeKey] = existing }
            let source = NSError(domain: MSALErrorDomain, code: row.code, userInfo: userInfo)
            let result = MSALErrors.classify(source, correlationId: correlationId)
            XCTAssertEqual(result.domain, MSALErrorDomain, line: row.line)
            XCTAssertEqual(result.code, row.expectedCode, line: row.line)
            XCTAssertEqual(result.userInfo[MSALInternalErrorCodeKey] as? Int, row.expectedInternal, line: row.line)
            XCTAssertEqual(result.userInfo["custom"] as? String, "kept", line: row.line)
            XCTAssertEqual(result.userInfo[MSALCorrelationIDKey] as? String, correlationId.uuidString, line: row.line)
            // Classifying again changes nothing.
            let again = MSALErrors.classify(result)
            XCTAssertEqual(again.code, result.code, line: row.line)
            XCTAssertEqual(again.userInfo[MSALInternalErrorCodeKey] as? Int, row.expectedInternal, line: row.line)
        }
    }

    func testOtherDomainsPassThroughWithCorrelationId() {
        let source = NSError(
            domain: NSURLErrorDomain, code: URLError.Code.notConnectedToInternet.rawValue,
            userInfo: [NSLocalizedDescriptionKey: "offline"])
        let result = MSALErrors.classify(source, correlationId: correlationId)
        XCTAssertEqual(result.domain, NSURLErrorDomain)
        XCTAssertEqual(result.code, URLError.Code.notConnectedToInternet.rawValue)
        XCTAssertNil(result.userInfo[MSALInternalErrorCodeKey])
        XCTAssertEqual(result.userInfo[MSALCorrelationIDKey] as? String, correlationId.uuidString)
        XCTAssertEqual(result.localizedDescription, "offline")
    }

    func testExistingCorrelationIdIsKept() {
        let source = NSError(domain: NSURLErrorDomain, code: -1001, userInfo: [MSALCorrelationIDKey: "original"])
        let result = MSALErrors.classify(source, correlationId: correlationId)
        XCTAssertEqual(result.userInfo[MSALCorrelationIDKey] as? String, "original")
    }

    func testURLErrorValueBecomesRealNSErrorInURLDomain() {
        let result = MSALErrors.classify(URLError(.timedOut), correlationId: correlationId)
        XCTAssertEqual(result.domain, NSURLErrorDomain)
        XCTAssertEqual(result.code, URLError.Code.timedOut.rawValue)
        XCTAssertTrue((result as AnyObject) is NSError)
    }

    func testCancellationBecomesUserCanceled() {
        let result = MSALErrors.classify(CancellationError(), correlationId: correlationId)
        XCTAssertEqual(result.domain, MSALErrorDomain)
        XCTAssertEqual(result.code, MSALError.userCanceled.rawValue)
        XCTAssertFalse(result.localizedDescription.isEmpty)
    }

    private struct SwiftOnlyError: Error, CustomStringConvertible {
        var description: String { "curl failed with refresh_token=0.AAAAsecretvalue" }
    }

    func testSwiftErrorBecomesUnexpectedWithRedactedDescription() {
        let result = MSALErrors.classify(SwiftOnlyError(), correlationId: correlationId)
        XCTAssertEqual(result.domain, MSALErrorDomain)
        XCTAssertEqual(result.code, -50000)
        XCTAssertEqual(result.userInfo[MSALInternalErrorCodeKey] as? Int, -42008)
        XCTAssertFalse(result.localizedDescription.contains("0.AAAAsecretvalue"))
        let underlying = result.userInfo[NSUnderlyingErrorKey] as? NSError
        XCTAssertNotNil(underlying)
        XCTAssertFalse(underlying?.localizedDescription.contains("0.AAAAsecretvalue") ?? true)
    }

    func testUnderlyingMSALErrorsAreClassifiedToo() {
        let inner = NSError(domain: MSALErrorDomain, code: -42004, userInfo: [MSALOAuthErrorKey: "invalid_grant"])
        let outer = NSError(domain: MSALErrorDomain, code: -50002, userInfo: [NSUnderlyingErrorKey: inner])
        let result = MSALErrors.classify(outer)
        XCTAssertEqual(result.code, -50002)
        let underlying = result.userInfo[NSUnderlyingErrorKey] as? NSError
        XCTAssertEqual(underlying?.code, -50000)
        XCTAssertEqual(underlying?.userInfo[MSALInternalErrorCodeKey] as? Int, -42004)
    }

    func testDeeplyNestedUnderlyingErrorsDoNotRecurseForever() {
        var error = NSError(domain: MSALErrorDomain, code: -42000, userInfo: nil)
        for _ in 0..<100 {
            error = NSError(domain: MSALErrorDomain, code: -42000, userInfo: [NSUnderlyingErrorKey: error])
        }
        XCTAssertEqual(MSALErrors.classify(error).code, -50000)
    }

    func testMappedCodeReadsBackTheCodeBeforeClassification() {
        XCTAssertEqual(
            MSALErrors.mappedCode(of: MSALErrors.make(.internalErrorInvalidGrant, "x")),
            .msalInternal(.internalErrorInvalidGrant))
        XCTAssertEqual(MSALErrors.mappedCode(of: MSALErrors.make(.serverError, "x")), .msal(.serverError))
        XCTAssertEqual(
            MSALErrors.mappedCode(of: MSALErrors.make(.interactionRequired, "x")), .msal(.interactionRequired))
        XCTAssertNil(MSALErrors.mappedCode(of: NSError(domain: NSURLErrorDomain, code: -1, userInfo: nil)))
    }
}
