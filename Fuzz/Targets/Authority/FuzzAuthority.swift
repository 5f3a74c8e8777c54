// libFuzzer target: authority URLs of every kind. Built by scripts/fuzz.sh (`--sanitize=fuzzer`).
import Foundation

@testable import MSAL

/// Uses the URLs and facts derived from a parsed authority, as token requests do.
private func use(_ authority: Authority) {
    _ = authority.openIDConfigurationURL
    _ = authority.defaultAuthorizationEndpoint
    _ = authority.defaultTokenEndpoint
    _ = authority.instanceDiscoveryURL(isDeveloperKnown: false)
    _ = authority.environment
    _ = authority.aadTenantType
    _ = authority.b2cPolicy
    _ = authority.url
}

/// Reads the input as an authority URL: detected, and as each kind.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAuthority(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let parsed: [Authority?] = [
        try? Authority.detect(text),
        try? Authority.aad(text),
        try? Authority.b2c(text, validateFormat: true),
        try? Authority.b2c(text, validateFormat: false),
        try? Authority.ciam(text, validateFormat: true),
        try? Authority.ciam(text, validateFormat: false),
        try? Authority.adfs(text),
        try? Authority.oidc(issuer: text),
    ]
    for case let authority? in parsed {
        use(authority)
    }
    return 0
}
