internal import CMSALCurl

/// The smallest possible libcurl client: one easy handle, reused, `curl_easy_perform` on the
/// calling thread. The benchmark's floor for a network round trip; not used by the library.
package final class CurlBlockingEasy {
    private let easy: CurlEasyHandle

    /// Sets up a handle for repeated requests like `request` (same URL, headers and body).
    package init(_ request: CurlRequest) throws(NativeError) {
        easy = try CurlEasyHandle()
        try easy.configure(for: request, userData: Unmanaged.passUnretained(easy).toOpaque())
    }

    /// Performs the request once, blocking, and returns the status code and new connections.
    package func perform() throws(CurlError) -> (status: Int, newConnections: Int) {
        let response = try performReturningResponse()
        return (response.status, response.newConnections)
    }

    /// Performs the request once, blocking, and returns the whole response.
    package func performReturningResponse() throws(CurlError) -> CurlResponse {
        easy.clearResponse()
        let code = cmsal_easy_perform(easy.handle)
        guard code == CURLE_OK else { throw easy.error(code: code) }
        return easy.response()
    }
}
