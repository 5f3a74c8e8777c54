// libFuzzer target: the instance discovery response and the OpenID configuration document.
// Built by scripts/fuzz.sh (`--sanitize=fuzzer`).
import Foundation

@testable import MSAL

private let configurationURL = URL(
    string: "https://login.microsoftonline.com/common/v2.0/.well-known/openid-configuration")!

/// Reads the input as both discovery documents.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDiscovery(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let body = Data(bytes: data, count: size)
    _ = try? InstanceDiscoveryParser.parse(body, requestedEnvironment: "login.microsoftonline.com")
    if let configuration = try? OpenIDConfigurationParser.parse(body, configurationURL: configurationURL) {
        _ = configuration
    }
    return 0
}
