// libFuzzer target: the token endpoint's success and error bodies, and the device authorization
// response. Built by scripts/fuzz.sh (`--sanitize=fuzzer`).
import Foundation

@testable import MSAL

private let now = Date(timeIntervalSince1970: 1_767_225_600)

/// Reads the input as each body the token and device authorization endpoints return.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTokenResponse(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let body = Data(bytes: data, count: size)
    if let response = try? TokenResponse(body: body, now: now) {
        precondition(!response.accessToken.isEmpty, "a token response without an access token")
        _ = response.expiresOn
        _ = response.fields.count
    }
    if let error = OAuthServerError(jsonData: body) {
        precondition(!error.error.isEmpty, "an OAuth error without an error")
    }
    if let device = try? DeviceAuthorization(body: body, now: now) {
        precondition(!device.deviceCode.isEmpty && !device.userCode.isEmpty, "a device code response without codes")
        _ = device.verificationURI.absoluteString
    }
    return 0
}
