import Foundation
import MSALNative

/// The redirect that ends an authorization request, parsed and checked: the authorization code
/// to redeem, or the error the identity provider sent back (thrown as an `NSError`).
struct AuthorizationResponse: Sendable {
    /// The authorization code (a secret until redeemed).
    let code: String
    /// `cloud_instance_host_name`: the cloud the user's account lives in, when the server named
    /// one we accept (a Microsoft login host, or the request's own host). Redeem the code there.
    let cloudInstanceHostName: String?
    /// `client_info` (base64url JSON with `uid` and `utid`), when sent.
    let clientInfo: String?
    /// All parameters of the redirect: fragment parameters overlaid by query parameters.
    let parameters: [String: String]

    /// Parses and checks the redirect URL of `request`.
    ///
    /// 1. Parameters are the fragment's, overlaid by the query's (the query wins).
    /// 2. `state` must decode (base64url) to the request's state; compared in constant time.
    /// 3. `error` → the authorize endpoint's OAuth error mapping (`access_denied` → -50005, ...),
    ///    with `error_description`, `suberror` and `correlation_id` kept.
    /// 4. Else a non-blank `code` is required.
    ///
    /// - Throws: -50000 + -42501 for a missing or wrong state; the mapped server error; -50000 +
    ///   -42600 when there is neither a code nor an error, or the parameters cannot be decoded.
    init(url: URL, request: AuthorizationRequest) throws {
        try self.init(
            url: url, expectedState: request.state, requestHost: request.authorizeEndpoint.host,
            correlationId: request.correlationId)
    }

    /// Parses and checks a redirect URL.
    ///
    /// - Parameters:
    ///   - url: the URL the browser was redirected to.
    ///   - expectedState: the raw state of the request (before base64url); `nil` when the request
    ///     sent none, in which case the response must not carry one either.
    ///   - requestHost: the authorize endpoint's host; a `cloud_instance_host_name` equal to it is
    ///     accepted even if it is not a Microsoft host.
    ///   - correlationId: the request's correlation id, for errors and logs.
    init(url: URL, expectedState: String?, requestHost: String?, correlationId: UUID?) throws {
        let parameters = try Self.parameters(of: url, correlationId: correlationId)
        try Self.verifyState(parameters["state"], expected: expectedState, correlationId: correlationId)

        if let serverError = OAuthServerError(parameters: parameters) {
            let serverCorrelation = serverError.correlationId.flatMap(UUID.init(uuidString:))
            throw MSALErrors.serverError(
                serverError, endpoint: .authorize, correlationId: serverCorrelation ?? correlationId)
        }
        guard let code = parameters["code"], !code.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw MSALErrors.make(
                .internalErrorInvalidResponse,
                "Unexpected error has occured. There is no auth code nor an error in the redirect to the app. "
                    + "Check that the redirect URI is registered for the app and not shared with another flow.",
                ErrorDetails(correlationId: correlationId))
        }
        self.code = code
        self.parameters = parameters
        self.clientInfo = parameters["client_info"].flatMap { $0.isEmpty ? nil : $0 }
        self.cloudInstanceHostName = Self.acceptedCloudHost(
            parameters["cloud_instance_host_name"], requestHost: requestHost, correlationId: correlationId)
    }

    /// Fragment parameters overlaid by query parameters, form-decoded.
    static func parameters(of url: URL, correlationId: UUID?) throws -> [String: String] {
        let string = url.absoluteString
        var beforeFragment = Substring(string)
        var fragment: Substring = ""
        if let hash = string.firstIndex(of: "#") {
            beforeFragment = string[..<hash]
            fragment = string[string.index(after: hash)...]
        }
        var query: Substring = ""
        if let question = beforeFragment.firstIndex(of: "?") {
            query = beforeFragment[beforeFragment.index(after: question)...]
        }
        var parameters: [String: String] = [:]
        for part in [fragment, query] {
            guard let pairs = FormURLEncoding.decode(String(part)) else {
                throw MSALErrors.make(
                    .internalErrorInvalidResponse,
                    "The redirect to the app has a malformed query or fragment (a bad percent escape or "
                        + "bytes that are not UTF-8); it did not come from the identity provider as sent.",
                    ErrorDetails(correlationId: correlationId))
            }
            for pair in pairs {
                parameters[pair.name] = pair.value
            }
        }
        return parameters
    }

    /// Checks the returned state against the request's, in constant time.
    static func verifyState(_ received: String?, expected: String?, correlationId: UUID?) throws {
        guard let expected else {
            guard received == nil else {
                throw invalidState(received, correlationId: correlationId)
            }
            return
        }
        let decoded = received.flatMap { Base64URL.decode($0) } ?? []
        // Compared whatever the received value was, so timing tells nothing about the expected one.
        let matches = ConstantTime.equals(decoded, Array(expected.utf8))
        guard received != nil, matches else {
            throw invalidState(received, correlationId: correlationId)
        }
    }

    private static func invalidState(_ received: String?, correlationId: UUID?) -> NSError {
        let shown = received.map { "(\($0.utf8.count) characters, not the one sent)" } ?? "(none)"
        return MSALErrors.make(
            .internalErrorInvalidState,
            "Missing or invalid state returned state: \(shown). The redirect does not belong to this sign-in "
                + "(an old browser tab, or another program); start the sign-in again.",
            ErrorDetails(correlationId: correlationId))
    }

    /// `cloud_instance_host_name` when it is a plain host name that is a trusted Microsoft login
    /// host or the request's own host; `nil` otherwise (logged).
    static func acceptedCloudHost(_ value: String?, requestHost: String?, correlationId: UUID?) -> String? {
        guard let value = value?.trimmingCharacters(in: .whitespaces).lowercased(), !value.isEmpty else {
            return nil
        }
        let plainHost = value.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"),
                UInt8(ascii: "."):
                true
            default:
                false
            }
        }
        guard plainHost,
            TrustedAuthorityHosts.contains(value) || value == requestHost?.lowercased()
        else {
            Log.warning(
                "Ignoring cloud_instance_host_name '\(redacting: value)': neither a Microsoft login host nor the authority's host.",
                correlationId: correlationId)
            return nil
        }
        return value
    }
}
