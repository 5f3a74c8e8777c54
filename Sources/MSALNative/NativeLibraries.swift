internal import CMSALCurl
internal import CMSALOpenSSL

/// Versions of the C libraries this build runs on, for diagnostics and benchmark reports.
package enum NativeLibraries {
    /// The libcurl version string (`libcurl/7.88.1 OpenSSL/3.0.x ...`); asking loads libcurl.
    /// When it cannot be loaded, says so instead.
    package static var curlVersion: String {
        guard let version = cmsal_curl_version() else {
            var reason: UnsafePointer<CChar>?
            _ = cmsal_curl_load(&reason)
            return "libcurl unavailable (" + (reason.map { String(cString: $0) } ?? "unknown reason") + ")"
        }
        return String(cString: version)
    }

    /// The OpenSSL version string (`OpenSSL 3.0.x ...`).
    package static var openSSLVersion: String {
        String(cString: OpenSSL_version(OPENSSL_VERSION))
    }
}
