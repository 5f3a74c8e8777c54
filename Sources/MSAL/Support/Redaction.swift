import Foundation

/// Masks personal and secret values before they reach a log line or an error message.
///
/// Two uses:
/// - Values the code knows are personal or secret are interpolated into a ``LogMessage`` with
///   `\(pii:)`, `\(euii:)` or `\(secret:)`; the logger's masking level decides what shows.
/// - Free text that may contain secrets (URLs, form bodies, JSON bodies, headers, server messages)
///   goes through ``parts(of:)``: in a log message with `\(redacting: text)`, which again lets the
///   masking level decide, or through ``text(_:)``, ``url(_:)-(String)`` and ``formBody(_:)-(String)``,
///   which mask everything sensitive (for error messages and anything that is not a log line).
///
/// Recognised in free text: the values of `code`, `refresh_token`, `access_token`, `id_token`,
/// `client_secret`, `password`, `code_verifier`, `client_assertion`, `device_code`, `assertion`,
/// `user_code`, `id_token_hint`, `secret` (secrets); `login_hint`, `username`, `preferred_username`,
/// `upn`, `email`, `unique_name` (end-user identifiers); `client_info`, `home_account_id`, `oid`
/// (personal identifiers), both as `key=value` (query strings, fragments, form bodies) and as JSON
/// string fields (`"key": "value"`); `Bearer`/`PoP`/`Basic` credentials; and anything shaped like a
/// JWT (`eyJ...` with at least two dots).
enum Redaction {
    /// A personal identifier hidden.
    static func maskedPII(_ value: String) -> String {
        value.isEmpty ? "(empty)" : "(pii)"
    }

    /// A secret (token, code, password) reduced to its length.
    static func maskedSecret(_ value: String) -> String {
        value.isEmpty ? "(empty)" : "(secret, \(value.utf8.count) bytes)"
    }

    /// `text` with everything sensitive masked, whatever the logging settings: safe for error
    /// messages, exceptions and any output that is not a log line.
    static func text(_ text: String) -> String {
        LogMessage(parts: parts(of: text)).render(masking: .maskAllPII, piiEnabled: false).text
    }

    /// A URL with every value of its query and fragment (and any password) masked: query strings
    /// are personal data (SAS signatures, codes, search terms).
    static func url(_ url: String) -> String {
        LogMessage(parts: urlParts(of: url)).render(masking: .maskAllPII, piiEnabled: false).text
    }

    /// A URL with every value of its query and fragment (and any password) masked.
    static func url(_ url: URL) -> String {
        self.url(url.absoluteString)
    }

    /// OAuth and OpenID Connect parameters whose values are neither personal nor secret (what a
    /// sign-in asks for and how), shown in URLs so that logs can be read; any other query value
    /// is personal data.
    static let protocolKeys: Set<String> = [
        "client_id", "response_type", "response_mode", "redirect_uri", "scope", "state", "session_state",
        "code_challenge", "code_challenge_method", "prompt", "nonce", "x-client-sku", "x-client-ver",
        "x-client-os", "x-client-cpu", "client-request-id", "return-client-request-id", "api-version",
    ]

    /// A URL split for ``LogMessage``: the scheme, host and path as text (a user-info password
    /// marked secret), then each value of the query and fragment marked personal, or secret when
    /// its name is one of a secret (`code`, `sig`, ...), or shown for ``protocolKeys``; the names
    /// and separators as text. A part without `=` is a value.
    static func urlParts(of url: String) -> [LogMessage.Part] {
        guard let start = url.firstIndex(where: { $0 == "?" || $0 == "#" }) else { return parts(of: url) }
        var result = parts(of: String(url[..<start]))
        var segment = ""
        func flush() {
            guard !segment.isEmpty else { return }
            if let equals = segment.firstIndex(of: "=") {
                let name = String(segment[..<equals])
                let value = String(segment[segment.index(after: equals)...])
                result.append(.text(name + "="))
                if !value.isEmpty {
                    let lowered = name.lowercased()
                    if kind(ofKey: name) == .secret || lowered == "sig" {
                        result.append(.secret(value))
                    } else if protocolKeys.contains(lowered) {
                        result.append(.text(value))
                    } else {
                        result.append(kind(ofKey: name) == .euii ? .euii(value) : .pii(value))
                    }
                }
            } else {
                result.append(.pii(segment))
            }
            segment = ""
        }
        for character in url[start...] {
            if character == "?" || character == "#" || character == "&" || character == ";" {
                flush()
                result.append(.text(String(character)))
            } else {
                segment.append(character)
            }
        }
        flush()
        return result
    }

    /// An `application/x-www-form-urlencoded` body with the sensitive values masked.
    static func formBody(_ body: String) -> String {
        text(body)
    }

    /// A request or response body (form or JSON, decoded as UTF-8) with the sensitive values masked.
    static func formBody(_ body: Data) -> String {
        text(String(decoding: body, as: UTF8.self))
    }

    /// `text` split into plain parts and marked personal or secret parts, for ``LogMessage``.
    static func parts(of text: String) -> [LogMessage.Part] {
        let matches = sensitiveRanges(in: text)
        guard !matches.isEmpty else { return [.text(text)] }
        var parts: [LogMessage.Part] = []
        var position = text.startIndex
        for match in matches {
            if position < match.range.lowerBound {
                parts.append(.text(String(text[position..<match.range.lowerBound])))
            }
            let value = String(text[match.range])
            switch match.kind {
            case .secret: parts.append(.secret(value))
            case .euii: parts.append(.euii(value))
            case .pii: parts.append(.pii(value))
            }
            position = match.range.upperBound
        }
        if position < text.endIndex {
            parts.append(.text(String(text[position...])))
        }
        return parts
    }

    // MARK: - Recognition

    private enum Kind {
        case secret
        case euii
        case pii
    }

    private struct Match {
        var range: Range<String.Index>
        var kind: Kind
    }

    private static let secretKeys = [
        "code", "refresh_token", "access_token", "id_token", "client_secret", "password", "code_verifier",
        "client_assertion", "device_code", "assertion", "user_code", "id_token_hint", "secret",
    ]
    private static let euiiKeys = ["login_hint", "username", "preferred_username", "upn", "email", "unique_name"]
    private static let piiKeys = ["client_info", "home_account_id", "oid"]

    private static func kind(ofKey key: String) -> Kind? {
        let key = key.lowercased()
        if secretKeys.contains(key) { return .secret }
        if euiiKeys.contains(key) { return .euii }
        if piiKeys.contains(key) { return .pii }
        return nil
    }

    private static let keyAlternatives = (secretKeys + euiiKeys + piiKeys).joined(separator: "|")

    /// `key=value` in query strings, fragments and form bodies; the value ends at `&`, `#`, white
    /// space or a quote.
    private static let formPattern = regex(#"(?<![A-Za-z0-9_.\-])("# + keyAlternatives + #")=([^&#\s"'<>]*)"#)
    /// `"key": "value"` in JSON, with escaped characters inside the value.
    private static let jsonPattern = regex(#""("# + keyAlternatives + #")"\s*:\s*"((?:[^"\\]|\\.)*)""#)
    /// HTTP authorization credentials.
    private static let credentialPattern = regex(#"\b(Bearer|PoP|Basic)\s+([A-Za-z0-9\-._~+/]+=*)"#)
    /// A URL's user-info password (`scheme://user:password@host`).
    private static let userInfoPattern = regex(#"://([^/\s:@]+):([^/\s@]+)@"#)
    /// A JWT or JWE in compact form.
    private static let jwtPattern = regex(#"eyJ[A-Za-z0-9_\-]+(?:\.[A-Za-z0-9_\-]*){2,4}"#)

    private static func regex(_ pattern: String) -> NSRegularExpression {
        // The patterns are constants; a failure here is a programming error caught by every test run.
        try! NSRegularExpression(pattern: pattern, options: [.caseInsensitive])
    }

    private static func sensitiveRanges(in text: String) -> [Match] {
        guard !text.isEmpty else { return [] }
        let whole = NSRange(text.startIndex..<text.endIndex, in: text)
        var found: [Match] = []
        func collect(_ pattern: NSRegularExpression, valueGroup: Int, kind: (NSTextCheckingResult) -> Kind?) {
            for result in pattern.matches(in: text, range: whole) {
                guard let kind = kind(result), let range = Range(result.range(at: valueGroup), in: text),
                    !range.isEmpty
                else { continue }
                found.append(Match(range: range, kind: kind))
            }
        }
        func keyKind(_ result: NSTextCheckingResult) -> Kind? {
            Range(result.range(at: 1), in: text).flatMap { kind(ofKey: String(text[$0])) }
        }
        collect(formPattern, valueGroup: 2, kind: keyKind)
        collect(jsonPattern, valueGroup: 2, kind: keyKind)
        collect(credentialPattern, valueGroup: 2) { _ in .secret }
        collect(userInfoPattern, valueGroup: 2) { _ in .secret }
        collect(jwtPattern, valueGroup: 0) { _ in .secret }

        // Earliest first; of overlapping matches keep the one that starts first (the longer on a tie).
        found.sort {
            $0.range.lowerBound != $1.range.lowerBound
                ? $0.range.lowerBound < $1.range.lowerBound : $0.range.upperBound > $1.range.upperBound
        }
        var result: [Match] = []
        for match in found {
            if let last = result.last, match.range.lowerBound < last.range.upperBound {
                if match.range.upperBound > last.range.upperBound {
                    // Overlap that reaches further: extend the masked range, keep the stricter kind.
                    let kind: Kind = (last.kind == .secret || match.kind == .secret) ? .secret : last.kind
                    result[result.count - 1] = Match(
                        range: last.range.lowerBound..<match.range.upperBound, kind: kind)
                }
                continue
            }
            result.append(match)
        }
        return result
    }
}
