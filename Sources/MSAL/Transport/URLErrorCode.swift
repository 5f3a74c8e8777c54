/// The `NSURLErrorDomain` codes the library delivers, with the values of Apple's platforms and of
/// `URLError.Code`.
///
/// Defined here rather than taken from Foundation's `NSURLError*` constants: on Linux,
/// swift-corelibs-foundation gives the secure-connection range values one lower than Apple's
/// (`NSURLErrorServerCertificateUntrusted` is -1203 there, -1202 on Apple platforms and in
/// `URLError.Code.serverCertificateUntrusted`). Apps ported from Apple platforms compare with
/// Apple's numbers, so those are the ones we send. Use `.rawValue` where an `Int` is needed.
enum URLErrorCode: Int, Sendable, CaseIterable {
    case unknown = -1
    case cancelled = -999
    case badURL = -1000
    case timedOut = -1001
    case unsupportedURL = -1002
    case cannotFindHost = -1003
    case cannotConnectToHost = -1004
    case networkConnectionLost = -1005
    case notConnectedToInternet = -1009
    case badServerResponse = -1011
    /// Apple's App Transport Security refusal: a request that needs HTTPS was to plain HTTP.
    case appTransportSecurityRequiresSecureConnection = -1022
    /// A response larger than the client accepts.
    case dataLengthExceedsMaximum = -1103
    case secureConnectionFailed = -1200
    case serverCertificateHasBadDate = -1201
    case serverCertificateUntrusted = -1202
    case serverCertificateHasUnknownRoot = -1203
    case serverCertificateNotYetValid = -1204
    case clientCertificateRejected = -1205
    case clientCertificateRequired = -1206
}
