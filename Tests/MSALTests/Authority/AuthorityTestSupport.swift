import Foundation
import XCTest

@testable import MSAL

/// Asserts that `body` throws a real NSError in MSALErrorDomain with the given top-level code,
/// internal code (nil: none expected) and description.
func assertMSALFailure(
    _ body: @autoclosure () throws -> some Any,
    code: Int = MSALError.internal.rawValue,
    internalCode: Int? = MSALInternalError.internalErrorInvalidParameter.rawValue,
    message: String? = nil,
    _ context: String = "",
    file: StaticString = #filePath,
    line: UInt = #line
) {
    do {
        _ = try body()
        XCTFail("expected an error \(context)", file: file, line: line)
    } catch {
        let nsError = error as NSError
        XCTAssertEqual(nsError.domain, MSALErrorDomain, context, file: file, line: line)
        XCTAssertEqual(nsError.code, code, context, file: file, line: line)
        XCTAssertEqual(
            nsError.userInfo[MSALInternalErrorCodeKey] as? Int, internalCode, context, file: file, line: line)
        if let message {
            XCTAssertEqual(
                nsError.userInfo[MSALErrorDescriptionKey] as? String, message, context, file: file, line: line)
            XCTAssertEqual(nsError.localizedDescription, message, context, file: file, line: line)
        }
    }
}

/// A URL from a literal known to parse.
func fixtureURL(_ string: String) -> URL {
    guard let url = URL(string: string) else { preconditionFailure("bad test URL \(string)") }
    return url
}
