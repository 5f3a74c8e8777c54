// libFuzzer target: the id_token / JWT parser. Built by scripts/fuzz.sh (`--sanitize=fuzzer`).
import Foundation

@testable import MSAL

private let now = Date(timeIntervalSince1970: 1_767_225_600)

/// Reads the input as a compact JWT, as an id_token and as client_info, then uses every claim
/// accessor (the parts of the claims the library reads after parsing).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJWT(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    if let jwt = try? JWT(compact: text) {
        _ = jwt.algorithm
        _ = jwt.keyID
        _ = jwt.description
        precondition(jwt.signingInput.count < size, "signing input longer than the token")
    }
    if let claims = try? IDTokenClaims(raw: text) {
        _ = claims.uniqueId
        _ = claims.tenantId
        _ = claims.preferredUsername
        _ = claims.name
        _ = claims.audiences
        _ = claims.time("exp")
        _ = try? claims.validate(
            clientId: "4b0db8c2-9f26-4417-8bde-3f0e3656f8e0", issuer: claims.issuer, nonce: "n-0S6_WzA2Mj",
            now: now)
    }
    if let info = try? ClientInfo(raw: text) {
        _ = info.homeAccountId
    }
    return 0
}
