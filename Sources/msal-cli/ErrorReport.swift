import Foundation
import MSAL

/// The text `msal` prints on standard error for a failed request: every fact MSAL gives about the
/// error (domain, codes, OAuth error, suberror, description, correlation id, scopes, HTTP status),
/// one per line, and a hint of what to do. Never a token.
enum ErrorReport {
    static func lines(for error: NSError) -> [String] {
        let info = MSALErrorInfo(error)
        var lines = ["msal: error: \(info.errorDescription ?? error.localizedDescription)"]
        func add(_ label: String, _ value: String?) {
            if let value, !value.isEmpty { lines.append("  \(label): \(value)") }
        }
        add("domain", error.domain)
        add("code", codeText(error))
        add("internal code", info.internalCodeValue.map(internalCodeText))
        add("OAuth error", info.oauthError)
        add("suberror", info.subError)
        add("suberror description", info.subErrorDescription)
        add("STS error codes", info.stsErrorCodes.map { $0.map(String.init).joined(separator: ", ") })
        add("HTTP status", info.httpStatusCode.map(String.init))
        add("Retry-After", info.httpHeaders?.first { $0.key.lowercased() == "retry-after" }?.value)
        add("throttled by the client (request not sent)", info.isThrottled ? "yes" : nil)
        add("granted scopes", info.grantedScopes?.joined(separator: " "))
        add("declined scopes", info.declinedScopes?.joined(separator: " "))
        add("curl", error.userInfo[MSALCurlErrorMessageKey] as? String)
        add("correlation id", info.correlationId?.uuidString.lowercased())
        if error.domain == NSURLErrorDomain && error.code == URLError.Code.dataLengthExceedsMaximum.rawValue {
            add("hint", "the server's answer is larger than the limit; `msal rest` takes --max-response-size BYTES")
        } else {
            add("hint", hint(ExitCode(for: error)))
        }
        return lines
    }

    /// Prints the report to standard error and returns the exit code for the error.
    static func report(_ error: any Error) -> ExitCode {
        let nsError = error as NSError
        for line in lines(for: nsError) { Console.error(line) }
        return ExitCode(for: nsError)
    }

    private static func codeText(_ error: NSError) -> String {
        guard error.domain == MSALErrorDomain, let known = MSALError(rawValue: error.code) else {
            return String(error.code)
        }
        return "\(error.code) (\(known))"
    }

    private static func internalCodeText(_ code: Int) -> String {
        if let known = MSALInternalError(rawValue: code) { return "\(code) (\(known))" }
        if let known = MSALError(rawValue: code) { return "\(code) (\(known))" }
        return String(code)
    }

    private static func hint(_ code: ExitCode) -> String? {
        switch code {
        case .interactionRequired: "sign in again with `msal login` (with the same scopes)"
        case .network: "check the network connection, the proxy and the CA file"
        case .throttled: "the service is throttling this request; wait for Retry-After, then retry"
        case .declinedScopes: "ask only for the granted scopes, or sign in again to consent"
        case .userCanceled: "the sign-in was cancelled; run the command again"
        default: nil
        }
    }
}
