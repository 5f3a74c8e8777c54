internal import CMSALCurl
internal import CMSALOpenSSL

/// Versions of the C libraries this build runs on, for diagnostics and benchmark reports.
package enum NativeLibraries {
    /// The libcurl version string (`libcurl/7.88.1 OpenSSL/3.0.x ...`).
    package static var curlVersion: String {
        String(cString: cmsal_curl_version())
    }

    /// The OpenSSL version string (`OpenSSL 3.0.x ...`).
    package static var openSSLVersion: String {
        String(cString: OpenSSL_version(OPENSSL_VERSION))
    }
}
