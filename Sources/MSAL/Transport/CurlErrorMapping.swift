import Foundation
import MSALNative

/// Turns a libcurl failure into the `NSURLErrorDomain` error an app written for MSAL on Apple
/// platforms expects (with Apple's numbers, ``URLErrorCode``), with curl's own code and message
/// kept in userInfo.
enum CurlErrorMapping {
    // CURLcode values (curl/curl.h), as numbers so this layer needs no C import.
    private static let unsupportedProtocol = 1
    private static let urlMalformed = 3
    private static let couldNotResolveProxy = 5
    private static let couldNotResolveHost = 6
    private static let couldNotConnect = 7
    private static let weirdServerReply = 8
    private static let partialFile = 18
    private static let operationTimedOut = 28
    private static let sslConnectError = 35
    private static let gotNothing = 52
    private static let sendError = 55
    private static let receiveError = 56
    private static let peerFailedVerification = 60
    private static let badContentEncoding = 61
    /// `CURLE_FILESIZE_EXCEEDED`: also what the transfer reports when our callbacks stop a
    /// response over its limits.
    private static let fileSizeExceeded = 63
    private static let sslCACertBadFile = 77
    private static let http2Error = 16
    private static let http2Stream = 92

    // OpenSSL X509_V_ERR_* values reported by CURLINFO_SSL_VERIFYRESULT.
    private static let certificateNotYetValid = 9
    private static let certificateHasExpired = 10

    // errno values that mean the network itself is unreachable.
    private static let networkUnreachableErrnos: Set<Int> = [Int(ENETUNREACH), Int(ENETDOWN)]

    /// The `NSURLErrorDomain` code that fits `error`, Apple's number.
    static func urlErrorCode(for error: CurlError) -> Int {
        code(for: error).rawValue
    }

    /// The ``URLErrorCode`` that fits `error`.
    static func code(for error: CurlError) -> URLErrorCode {
        if error.isCancellation { return .cancelled }
        switch error.code {
        case couldNotResolveHost, couldNotResolveProxy:
            return .cannotFindHost
        case couldNotConnect:
            return networkUnreachableErrnos.contains(error.osErrno)
                ? .notConnectedToInternet : .cannotConnectToHost
        case operationTimedOut:
            return .timedOut
        case sendError, receiveError, gotNothing, partialFile, http2Stream:
            return .networkConnectionLost
        case peerFailedVerification:
            switch error.certificateVerifyResult {
            case certificateHasExpired: return .serverCertificateHasBadDate
            case certificateNotYetValid: return .serverCertificateNotYetValid
            default: return .serverCertificateUntrusted
            }
        case sslConnectError, sslCACertBadFile:
            return .secureConnectionFailed
        case unsupportedProtocol:
            // Also what curl reports for a reply that is not HTTP at all ("HTTP/0.9 not allowed").
            return error.message.contains("HTTP/0.9") ? .badServerResponse : .unsupportedURL
        case urlMalformed:
            return .badURL
        case weirdServerReply, badContentEncoding, http2Error:
            return .badServerResponse
        case fileSizeExceeded:
            return .dataLengthExceedsMaximum
        default:
            return .unknown
        }
    }

    /// The `NSURLErrorDomain` error for `error` on a request to `url`.
    static func urlError(for error: CurlError, url: URL, correlationId: UUID) -> NSError {
        let code = code(for: error)
        let failingURL = url.withoutQuery
        let description: String
        switch code {
        case .cancelled:
            description = "The request to \(failingURL) was cancelled."
        case .timedOut:
            description = "The request to \(failingURL) timed out (\(error.message))."
        case .serverCertificateUntrusted, .serverCertificateHasBadDate,
            .serverCertificateNotYetValid:
            description =
                "The server certificate of \(failingURL) could not be verified (\(error.message)). "
                + "If it is signed by a private certificate authority, configure its PEM file."
        case .dataLengthExceedsMaximum:
            description =
                "The response from \(failingURL) was refused: \(error.message)."
                + (error.exceededLimit?.isBody == true
                    ? " The limit is MSALHTTPConfig.maximumResponseBodySize (for a call to a protected resource, "
                        + "MSALProtectedResourceRequest.maximumResponseBodySize)." : "")
        default:
            description = "The request to \(failingURL) failed: \(error.message)."
        }
        return NSError(
            domain: NSURLErrorDomain,
            code: code.rawValue,
            userInfo: [
                NSLocalizedDescriptionKey: description,
                NSURLErrorFailingURLErrorKey: URL(string: failingURL) ?? url,
                MSALCurlErrorCodeKey: error.code,
                MSALCurlErrorMessageKey: error.message,
                MSALCorrelationIDKey: correlationId.uuidString,
            ]
        )
    }
}

extension CurlError.ResponseLimit {
    /// Whether this is the body limit.
    fileprivate var isBody: Bool {
        if case .body = self { return true }
        return false
    }
}

extension URL {
    /// The URL as text without its query and fragment, safe to log and to put into errors.
    var withoutQuery: String {
        guard var components = URLComponents(url: self, resolvingAgainstBaseURL: false) else { return "(invalid URL)" }
        components.query = nil
        components.fragment = nil
        return components.string ?? "(invalid URL)"
    }
}
