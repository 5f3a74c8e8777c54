import Foundation
import MSALNative
import XCTest

@testable import MSAL

final class CurlErrorMappingTests: XCTestCase {
    func testCurlCodesMapToFoundationCodes() {
        let table: [(curl: Int, errno: Int, verify: Int, expected: Int)] = [
            (6, 0, 0, NSURLErrorCannotFindHost),
            (5, 0, 0, NSURLErrorCannotFindHost),
            (7, Int(ECONNREFUSED), 0, NSURLErrorCannotConnectToHost),
            (7, Int(ENETUNREACH), 0, NSURLErrorNotConnectedToInternet),
            (28, 0, 0, NSURLErrorTimedOut),
            (52, 0, 0, NSURLErrorNetworkConnectionLost),
            (55, 0, 0, NSURLErrorNetworkConnectionLost),
            (56, 0, 0, NSURLErrorNetworkConnectionLost),
            (18, 0, 0, NSURLErrorNetworkConnectionLost),
            (60, 0, 19, NSURLErrorServerCertificateUntrusted),
            (60, 0, 0, NSURLErrorServerCertificateUntrusted),
            (60, 0, 10, NSURLErrorServerCertificateHasBadDate),
            (60, 0, 9, NSURLErrorServerCertificateNotYetValid),
            (35, 0, 0, NSURLErrorSecureConnectionFailed),
            (77, 0, 0, NSURLErrorSecureConnectionFailed),
            (8, 0, 0, NSURLErrorBadServerResponse),
            (3, 0, 0, NSURLErrorBadURL),
            (42, 0, 0, NSURLErrorCancelled),
            (99, 0, 0, NSURLErrorUnknown),
        ]
        for row in table {
            let error = CurlError(code: row.curl, message: "m", osErrno: row.errno, certificateVerifyResult: row.verify)
            XCTAssertEqual(CurlErrorMapping.urlErrorCode(for: error), row.expected, "curl \(row.curl)")
        }
        XCTAssertEqual(
            CurlErrorMapping.urlErrorCode(for: CurlError(code: 1, message: "Received HTTP/0.9 when not allowed")),
            NSURLErrorBadServerResponse
        )
        XCTAssertEqual(
            CurlErrorMapping.urlErrorCode(for: CurlError(code: 1, message: "Protocol \"ftp\" not supported")),
            NSURLErrorUnsupportedURL
        )
    }

    func testErrorIsARealNSErrorWithCurlDetailsAndNoQuery() throws {
        let id = UUID()
        let url = try XCTUnwrap(URL(string: "https://login.example/tenant/oauth2/v2.0/token?secret=abc"))
        let error = CurlErrorMapping.urlError(
            for: CurlError(code: 7, message: "Failed to connect", osErrno: Int(ECONNREFUSED)),
            url: url,
            correlationId: id
        )
        XCTAssertEqual(error.domain, NSURLErrorDomain)
        XCTAssertEqual(error.code, NSURLErrorCannotConnectToHost)
        XCTAssertEqual(error.userInfo[MSALCurlErrorCodeKey] as? Int, 7)
        XCTAssertEqual(error.userInfo[MSALCurlErrorMessageKey] as? String, "Failed to connect")
        XCTAssertEqual(error.userInfo[MSALCorrelationIDKey] as? String, id.uuidString)
        XCTAssertFalse(error.localizedDescription.contains("secret"))
        XCTAssertTrue(error.localizedDescription.contains("https://login.example/tenant/oauth2/v2.0/token"))

        // A real NSError: the patterns of MSAL's samples match it on Linux.
        do {
            throw error
        } catch let caught as NSError {
            XCTAssertEqual(caught.code, NSURLErrorCannotConnectToHost)
        } catch {
            XCTFail("not an NSError")
        }
    }
}
