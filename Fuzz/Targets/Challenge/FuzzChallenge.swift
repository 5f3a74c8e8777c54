// libFuzzer target: WWW-Authenticate challenges (RFC 9110), the claims challenge and the
// authority of an Entra challenge. Built by scripts/fuzz.sh (`--sanitize=fuzzer`).
import Foundation

@testable import MSAL

/// Reads the input's lines as the values of one `WWW-Authenticate` field. What parses must
/// survive a write and a re-read unchanged; every parameter value goes through the claims decoder
/// and the Entra authority reader; the public type reads it too.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzChallenge(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let values = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    guard let challenges = try? WWWAuthenticate.parse(values) else { return 0 }
    precondition(!challenges.isEmpty, "an accepted field has a challenge")
    let written = challenges.map(serialized).joined(separator: ", ")
    guard let reread = try? WWWAuthenticate.parse([written]) else {
        fatalError("a written challenge list does not parse again")
    }
    precondition(reread == challenges, "challenges changed in a write and re-read")
    for challenge in challenges {
        precondition(challenge.token68 == nil || challenge.parameters.isEmpty, "token68 and parameters at once")
        for parameter in challenge.parameters {
            if let claims = try? ClaimsChallenge.decode(parameter.value) {
                precondition((try? JSONValue(parsing: claims))?.objectValue != nil, "accepted claims are no object")
            }
            if let url = Authority.challengeAuthorityURL(authorizationURI: parameter.value, realm: "contoso.com") {
                precondition(url.scheme == "https" && url.query == nil, "an authority that is not plain https")
            }
        }
    }
    _ = try? MSALWWWAuthenticateParameters(headerValues: values)
    return 0
}

/// `challenge` as RFC 9110 text, every value quoted.
private func serialized(_ challenge: WWWAuthenticate.Challenge) -> String {
    if let token68 = challenge.token68 { return "\(challenge.scheme) \(token68)" }
    guard !challenge.parameters.isEmpty else { return challenge.scheme }
    let parameters = challenge.parameters.map { parameter in
        var quoted = "\""
        for character in parameter.value.unicodeScalars {
            if character == "\"" || character == "\\" { quoted.unicodeScalars.append("\\") }
            quoted.unicodeScalars.append(character)
        }
        return "\(parameter.name)=\(quoted)\""
    }
    return "\(challenge.scheme) " + parameters.joined(separator: ", ")
}
