import Foundation

/// The Linux broker's JSON replies as typed values, and the pure decisions taken from them.
///
/// Parsing is strict about types (a field of the wrong type refuses the whole reply) and lenient
/// about the shapes the broker versions disagree on: `grantedScopes` is a string or an array,
/// `expiresOn` and `extendedExpiresOn` are epoch milliseconds as a number or a string, a failure's
/// `status` and `subStatus` are strings or numbers. Unknown fields are ignored.
///
/// Nothing the broker wrote reaches a ``Malformed`` reason: it names our fields only, so it is
/// safe in errors and logs.
enum BrokerReply {
    /// Why a reply was refused: the field (one of ours) that is missing or of the wrong type.
    struct Malformed: Error, Equatable, Sendable, CustomStringConvertible {
        let reason: String
        var description: String { reason }
    }

    /// What `acquireTokenInteractively` and `acquireTokenSilently` answer.
    enum TokenOutcome: Equatable, Sendable {
        case token(BrokerToken)
        case failure(BrokerFailure)
    }

    /// What `getAccounts` answers.
    enum AccountsOutcome: Equatable, Sendable {
        case accounts([BrokerAccount])
        case failure(BrokerFailure)
    }

    /// A token reply: `{"brokerTokenResponse": {...}}` with the token or an `error` inside, a
    /// top-level `{"error": ...}`, or (older brokers) the token fields at the top level.
    static func token(_ text: String) throws(Malformed) -> TokenOutcome {
        let reply = try decode(TokenReply.self, text)
        if let error = reply.brokerTokenResponse?.error ?? reply.error { return .failure(error) }
        let body = reply.brokerTokenResponse ?? reply.topLevel
        guard let accessToken = body.accessToken, !accessToken.isEmpty else {
            throw Malformed(reason: "the token response has no access token")
        }
        return .token(
            BrokerToken(
                accessToken: accessToken, idToken: body.idToken,
                clientInfo: body.clientInfo ?? body.account?.clientInfo, account: body.account,
                expiresOnSeconds: body.expiresOn?.seconds, extendedExpiresOnSeconds: body.extendedExpiresOn?.seconds,
                grantedScopes: body.grantedScopes?.values))
    }

    /// A `getAccounts` reply: `{"accounts": [...]}` or `{"error": ...}`. A missing list is none.
    static func accounts(_ text: String) throws(Malformed) -> AccountsOutcome {
        let reply = try decode(AccountsReply.self, text)
        if let error = reply.error { return .failure(error) }
        return .accounts(reply.accounts ?? [])
    }

    /// A reply that carries nothing but may carry `{"error": ...}` (`removeAccount`).
    static func failure(_ text: String) throws(Malformed) -> BrokerFailure? {
        try decode(ErrorReply.self, text).error
    }

    /// Decodes `text` as a JSON object of type `T`; the reason names the path of our field.
    static func decode<T: Decodable>(_ type: T.Type, _ text: String) throws(Malformed) -> T {
        do {
            return try JSONDecoder().decode(T.self, from: Data(text.utf8))
        } catch let error as DecodingError {
            throw Malformed(reason: reason(error))
        } catch {
            throw Malformed(reason: "the reply is not JSON")
        }
    }

    private static func reason(_ error: DecodingError) -> String {
        func path(_ keys: [any CodingKey]) -> String {
            keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context): return "\(path(context.codingPath + [key])) is missing"
        case .valueNotFound(_, let context): return "\(path(context.codingPath)) is null"
        case .typeMismatch(_, let context):
            return context.codingPath.isEmpty
                ? "the reply is not a JSON object" : "\(path(context.codingPath)) has the wrong type"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "the reply is not JSON" : "\(path(context.codingPath)) is not valid"
        @unknown default: return "the reply is not valid"
        }
    }
}

/// A token the broker issued, with what the cache needs.
struct BrokerToken: Equatable, Sendable {
    var accessToken: String
    var idToken: String?
    /// The raw base64url client info (the reply's, else its account's).
    var clientInfo: String?
    var account: BrokerAccount?
    /// Epoch seconds.
    var expiresOnSeconds: Int64?
    var extendedExpiresOnSeconds: Int64?
    var grantedScopes: [String]?

    /// The token endpoint's JSON body for the same token, for ``TokenResponse`` and the checks
    /// and cache write every flow shares.
    func tokenResponseBody() -> Data {
        var body: [String: JSONValue] = ["token_type": .string("Bearer"), "access_token": .string(accessToken)]
        body["id_token"] = idToken.map(JSONValue.string)
        body["client_info"] = clientInfo.map(JSONValue.string)
        body["expires_on"] = expiresOnSeconds.map { .number(JSONValue.Number($0)) }
        body["ext_expires_on"] = extendedExpiresOnSeconds.map { .number(JSONValue.Number($0)) }
        body["scope"] = grantedScopes.map { .string($0.joined(separator: " ")) }
        return JSONValue.object(body).serialized()
    }
}

/// An account the broker knows (`getAccounts`, or a token reply's `account`).
struct BrokerAccount: Decodable, Equatable, Sendable {
    var homeAccountId: String
    var environment: String?
    var realm: String?
    var localAccountId: String?
    var username: String?
    var name: String?
    var givenName: String?
    var familyName: String?
    var clientInfo: String?
}

/// A broker failure, `{context, status, subStatus}`.
struct BrokerFailure: Decodable, Equatable, Sendable {
    /// The status (`InteractionRequired`, `UserCanceled`, ... or a number), `Unexpected` when absent.
    var status: String
    var subStatus: String?
    /// The broker's words: may echo what was sent, so it never reaches an error or a log as it is.
    var context: String?

    /// What a failure means to MSAL.
    enum Kind: Equatable {
        case interactionRequired
        case userCanceled
        case other
    }

    var kind: Kind {
        switch status.lowercased() {
        case "interactionrequired", "accountunusable", "accountnotfound", "2": return .interactionRequired
        case "usercanceled", "usercancelled", "applicationcanceled", "7", "8": return .userCanceled
        default: return .other
        }
    }

    /// `status` or `status:subStatus`, for ``MSALBrokerStatusKey``: made of letters, digits and
    /// `._-` only (anything else is `Unexpected`), so it cannot carry what was sent.
    var statusText: String {
        let status = Self.identifier(status) ?? "Unexpected"
        guard let subStatus = subStatus.flatMap(Self.identifier) else { return status }
        return "\(status):\(subStatus)"
    }

    /// The Entra error codes (`AADSTS50076`) the context names: the only part of it an error shows.
    var errorCodes: [String] {
        guard let context else { return [] }
        var codes: [String] = []
        var rest = Substring(context)
        while let range = rest.range(of: "AADSTS") {
            let digits = rest[range.upperBound...].prefix(while: { $0.isASCII && $0.isNumber }).prefix(9)
            if !digits.isEmpty, !codes.contains("AADSTS\(digits)") { codes.append("AADSTS\(digits)") }
            rest = rest[range.upperBound...]
        }
        return codes
    }

    static func identifier(_ text: String) -> String? {
        let allowed = text.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x2E || byte == 0x5F || byte == 0x2D
        }
        return allowed && !text.isEmpty && text.utf8.count <= 64 ? text : nil
    }

    private enum CodingKeys: String, CodingKey {
        case status, subStatus, context
    }

    init(status: String, subStatus: String? = nil, context: String? = nil) {
        self.status = status
        self.subStatus = subStatus
        self.context = context
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        status = try container.decodeIfPresent(LooseText.self, forKey: .status)?.text ?? "Unexpected"
        subStatus = try container.decodeIfPresent(LooseText.self, forKey: .subStatus)?.text
        context = try container.decodeIfPresent(String.self, forKey: .context)
    }
}

// MARK: Reply shapes

private struct TokenReply: Decodable {
    var brokerTokenResponse: TokenBody?
    var error: BrokerFailure?
    /// The token fields at the top level (older brokers).
    var topLevel: TokenBody

    private enum CodingKeys: String, CodingKey {
        case brokerTokenResponse, error
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        brokerTokenResponse = try container.decodeIfPresent(TokenBody.self, forKey: .brokerTokenResponse)
        error = try container.decodeIfPresent(BrokerFailure.self, forKey: .error)
        topLevel = brokerTokenResponse == nil ? try TokenBody(from: decoder) : TokenBody()
    }
}

private struct TokenBody: Decodable {
    var accessToken: String?
    var idToken: String?
    var clientInfo: String?
    var account: BrokerAccount?
    var expiresOn: Milliseconds?
    var extendedExpiresOn: Milliseconds?
    var grantedScopes: ScopeList?
    var error: BrokerFailure?

    init() {}
}

private struct ErrorReply: Decodable {
    var error: BrokerFailure?
}

private struct AccountsReply: Decodable {
    var accounts: [BrokerAccount]?
    var error: BrokerFailure?
}

/// Epoch milliseconds as a number or a string of digits.
private struct Milliseconds: Decodable {
    var seconds: Int64

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let milliseconds: Int64?
        if let number = try? container.decode(Int64.self) {
            milliseconds = number
        } else if let number = try? container.decode(Double.self) {
            milliseconds = number.isFinite && abs(number) < 9e18 ? Int64(number) : nil
        } else if let text = try? container.decode(String.self) {
            milliseconds = Int64(text)
        } else {
            milliseconds = nil
        }
        guard let milliseconds, milliseconds >= 0 else {
            throw DecodingError.typeMismatch(
                Int64.self, .init(codingPath: decoder.codingPath, debugDescription: "not epoch milliseconds"))
        }
        seconds = milliseconds / 1000
    }
}

/// Scopes as a space-separated string or an array of strings.
private struct ScopeList: Decodable {
    var values: [String]

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) {
            values = text.split(separator: " ").map(String.init)
        } else {
            values = try container.decode([String].self)
        }
    }
}

/// A string, or a number written as text.
private struct LooseText: Decodable {
    var text: String

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let string = try? container.decode(String.self) {
            text = string
        } else if let number = try? container.decode(Int64.self) {
            text = String(number)
        } else {
            text = String(try container.decode(Double.self))
        }
    }
}
