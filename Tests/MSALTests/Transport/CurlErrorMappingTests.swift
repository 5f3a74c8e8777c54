import Foundation
import MSALNative
import XCTest

@testable import MSAL

final class CurlErrorMappingTests: XCTestCase {
    func testCurlCodesMapToFoundationCodes() {
        let table: [(curl: Int, errno: Int, verify: Int, expected: Int)] = [
            (6, 0, 0, -1003),
            (5, 0, 0, -1003),
            (7, Int(ECONNREFUSED), 0, -1004),
            (7, Int(ENETUNREACH), 0, -1009),
            (28, 0, 0, -1001),
            (52, 0, 0, -1005),
            (55, 0, 0, -1005),
            (56, 0, 0, -1005),
            (18, 0, 0, -1005),
            (60, 0, 19, -1202),
            (60, 0, 0, -1202),
            (60, 0, 10, -1201),
            (60, 0, 9, -1204),
            (35, 0, 0, -1200),
            (77, 0, 0, -1200),
            (8, 0, 0, -1011),
            (3, 0, 0, -1000),
            (42, 0, 0, -999),
            (99, 0, 0, -1),
        ]
        for row in table {
            let error = CurlError(code: row.curl, message: "m", osErrno: row.errno, certificateVerifyResult: row.verify)
            XCTAssertEqual(CurlErrorMapping.urlErrorCode(for: error), row.expected, "curl \(row.curl)")
        }
        XCTAssertEqual(
            CurlErrorMapping.urlErrorCode(for: CurlError(code: 1, message: "Received HTTP/0.9 when not allowed")),
            -1011
        )
        XCTAssertEqual(
            CurlErrorMapping.urlErrorCode(for: CurlError(code: 1, message: "Protocol \"ftp\" not supported")),
            -1002
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
        XCTAssertEqual(error.code, -1004)
        XCTAssertEqual(error.userInfo[MSALCurlErrorCodeKey] as? Int, 7)
        XCTAssertEqual(error.userInfo[MSALCurlErrorMessageKey] as? String, "Failed to connect")
        XCTAssertEqual(error.userInfo[MSALCorrelationIDKey] as? String, id.uuidString)
        XCTAssertFalse(error.localizedDescription.contains("secret"))
        XCTAssertTrue(error.localizedDescription.contains("https://login.example/tenant/oauth2/v2.0/token"))

        // A real NSError: the patterns of MSAL's samples match it on Linux.
        do {
            throw error
        } catch let caught as NSError {
            XCTAssertEqual(caught.code, -1004)
        } catch {
            XCTFail("not an NSError")
        }
    }
}

/// The numbers we deliver are Apple's (and `URLError.Code`'s), not swift-corelibs-foundation's
/// `NSURLError*` constants, which are one lower in the TLS range on Linux.
final class AppleURLErrorNumberTests: XCTestCase {
    func testTLSFailuresCarryApplesNumbers() {
        let table: [(curl: Int, verify: Int, apple: Int, code: URLError.Code)] = [
            (35, 0, -1200, .secureConnectionFailed),
            (60, 10, -1201, .serverCertificateHasBadDate),
            (60, 19, -1202, .serverCertificateUntrusted),
            (60, 9, -1204, .serverCertificateNotYetValid),
        ]
        for row in table {
            let error = CurlError(code: row.curl, message: "m", certificateVerifyResult: row.verify)
            let code = CurlErrorMapping.urlErrorCode(for: error)
            XCTAssertEqual(code, row.apple, "curl \(row.curl), verify \(row.verify)")
            XCTAssertEqual(URLError.Code(rawValue: code), row.code)
        }
    }

    func testResponseOverTheLimitIsDataLengthExceedsMaximum() {
        // CURLE_FILESIZE_EXCEEDED: the announced length or the bytes received passed the limit.
        let error = CurlError(code: 63, message: "the response body is larger than the limit of 1048576 bytes")
        XCTAssertEqual(CurlErrorMapping.urlErrorCode(for: error), -1103)
    }
}

/// Our table of Apple's numbers agrees with `URLError.Code`, which has Apple's values on Linux too.
final class URLErrorCodeTests: XCTestCase {
    func testEveryCodeIsURLErrorCodesValue() {
        let expected: [URLErrorCode: URLError.Code] = [
            .unknown: .unknown, .cancelled: .cancelled, .badURL: .badURL, .timedOut: .timedOut,
            .unsupportedURL: .unsupportedURL, .cannotFindHost: .cannotFindHost,
            .cannotConnectToHost: .cannotConnectToHost, .networkConnectionLost: .networkConnectionLost,
            .notConnectedToInternet: .notConnectedToInternet, .badServerResponse: .badServerResponse,
            .appTransportSecurityRequiresSecureConnection: .appTransportSecurityRequiresSecureConnection,
            .dataLengthExceedsMaximum: .dataLengthExceedsMaximum, .secureConnectionFailed: .secureConnectionFailed,
            .serverCertificateHasBadDate: .serverCertificateHasBadDate,
            .serverCertificateUntrusted: .serverCertificateUntrusted,
            .serverCertificateHasUnknownRoot: .serverCertificateHasUnknownRoot,
            .serverCertificateNotYetValid: .serverCertificateNotYetValid,
            .clientCertificateRejected: .clientCertificateRejected,
            .clientCertificateRequired: .clientCertificateRequired,
        ]
        XCTAssertEqual(Set(expected.keys), Set(URLErrorCode.allCases))
        for (ours, apple) in expected {
            XCTAssertEqual(ours.rawValue, apple.rawValue, "\(ours)")
        }
        XCTAssertEqual(URLErrorCode.serverCertificateUntrusted.rawValue, -1202)
        XCTAssertEqual(URLErrorCode.secureConnectionFailed.rawValue, -1200)
        XCTAssertEqual(URLErrorCode.clientCertificateRequired.rawValue, -1206)
    }
}
