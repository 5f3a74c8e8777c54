// libFuzzer target: the Linux broker's replies. The input is a broker's JSON reply, read as
// BrokerFlow reads it (``BrokerFlow/parse(_:_:correlationId:_:)`` with ``BrokerReply``) as a token
// reply, an accounts reply and an acknowledgement; a token is turned into the token endpoint's
// body and parsed as TokenResponse, a failure into MSAL's error, accounts merged. Asserts nothing
// traps, refusals name our fields only, and nothing of the broker's text reaches an error but
// identifiers. Built by scripts/fuzz.sh (`--sanitize=fuzzer`).
import Foundation

@testable import MSAL

private let now = Date(timeIntervalSince1970: 1_767_225_600)
private let correlationId = UUID(uuidString: "6f0e3b8e-2f37-4f7a-9a8e-0c1d2e3f4a5b")!

/// Only letters, digits, spaces and the punctuation of a field path.
private func isOurs(_ text: String) -> Bool {
    text.unicodeScalars.allSatisfy {
        $0.isASCII && (CharacterSet.alphanumerics.contains($0) || " .[]-_:,()".unicodeScalars.contains($0))
    }
}

private func check(_ failure: BrokerFailure) {
    for part in failure.statusText.split(separator: ":", omittingEmptySubsequences: false) {
        precondition(BrokerFailure.identifier(String(part)) != nil, "a status that is not an identifier")
    }
    let error = BrokerFlow.error(failure, correlationId: correlationId)
    let message = error.userInfo[MSALErrorDescriptionKey] as? String ?? ""
    // Only our words, the status (an identifier) and AADSTS codes: no '@', quote or other text.
    precondition(isOurs(message.replacingOccurrences(of: "'", with: "")), "broker text reached an error message")
}

private func refused(_ error: any Error) {
    let message = (error as NSError).userInfo[MSALErrorDescriptionKey] as? String ?? ""
    precondition(isOurs(message.replacingOccurrences(of: "'", with: "")), "broker text reached a refusal")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBrokerReply(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    do {
        switch try BrokerFlow.parse("acquireTokenSilently", text, correlationId: correlationId, BrokerReply.token) {
        case .failure(let failure): check(failure)
        case .token(let token):
            precondition(!token.accessToken.isEmpty, "a token without an access token")
            let body = token.tokenResponseBody()
            if let response = try? TokenResponse(body: body, now: now, correlationId: correlationId) {
                precondition(response.accessToken == token.accessToken, "the access token changed")
            }
        }
    } catch {
        refused(error)
    }
    do {
        switch try BrokerFlow.parse("getAccounts", text, correlationId: correlationId, BrokerReply.accounts) {
        case .failure(let failure): check(failure)
        case .accounts(let accounts):
            let merged = BrokerFlow.merged(cached: [], broker: accounts)
            let ids = merged.compactMap { $0.identifier?.lowercased() }
            precondition(Set(ids).count == ids.count, "two accounts with one home account id")
        }
    } catch {
        refused(error)
    }
    do {
        if let failure = try BrokerFlow.parse("removeAccount", text, correlationId: correlationId, BrokerReply.failure)
        {
            check(failure)
        }
    } catch {
        refused(error)
    }
    return 0
}
