// libFuzzer target: the authorization redirect URL and the configured redirect URI. Built by
// scripts/fuzz.sh (`--sanitize=fuzzer`).
import Foundation

@testable import MSAL

/// The state the seed redirects carry (base64url of it is `c3RhdGUtMTIz`).
private let expectedState = "state-123"

/// Reads the input as the URL the browser was redirected to (checked against a fixed state and
/// authorize host) and as a configured redirect URI, with and without a custom web view.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRedirect(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    if let url = URL(string: text) {
        if let response = try? AuthorizationResponse(
            url: url, expectedState: expectedState, requestHost: "login.microsoftonline.com", correlationId: nil)
        {
            precondition(!response.code.isEmpty, "a redirect accepted without a code")
            _ = response.cloudInstanceHostName
        }
        _ = try? AuthorizationResponse(url: url, expectedState: nil, requestHost: nil, correlationId: nil)
    }
    for customWebview in [false, true] {
        if let redirect = try? RedirectURI(validating: text, customWebview: customWebview) {
            _ = redirect.isLoopback
            _ = redirect.description
        }
    }
    return 0
}
