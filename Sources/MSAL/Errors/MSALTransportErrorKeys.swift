/// userInfo key of `NSURLErrorDomain` errors from the library: libcurl's numeric result code
/// (`CURLcode`, an `Int`). Useful in bug reports; apps should act on the `NSURLError` code.
public let MSALCurlErrorCodeKey = "MSALCurlErrorCodeKey"

/// userInfo key of `NSURLErrorDomain` errors from the library: libcurl's detailed message
/// (a `String`), for example the TLS verification failure.
public let MSALCurlErrorMessageKey = "MSALCurlErrorMessageKey"
