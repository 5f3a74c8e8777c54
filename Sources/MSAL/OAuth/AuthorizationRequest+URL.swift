import Foundation

extension AuthorizationRequest {
    /// The parameters, in the order they are sent.
    ///
    /// - Throws: -50000 + -42000 "Duplicate claims parameter is found in extraQueryParameters.
    ///   Please remove it." when ``claims`` is set and an extra parameter is named `claims`.
    func queryParameters() throws -> [(name: String, value: String)] {
        let claims = claims.flatMap { $0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ? nil : $0 }
        if claims != nil && extraQueryParameters.contains(where: { $0.name == "claims" }) {
            throw MSALErrors.make(
                .internalErrorInvalidParameter,
                "Duplicate claims parameter is found in extraQueryParameters. Please remove it.",
                ErrorDetails(correlationId: correlationId))
        }
        var parameters: [(name: String, value: String)] = [
            ("client_id", clientId),
            ("response_type", "code"),
            ("redirect_uri", redirectURI),
            ("scope", scope),
        ]
        func add(_ name: String, _ value: String?) {
            guard let value, !value.isEmpty else { return }
            parameters.append((name, value))
        }
        add("login_hint", loginHint)
        add("state", encodedState)
        add("code_challenge", pkce.challenge)
        add("code_challenge_method", PKCE.method)
        add("nonce", nonce)
        add("prompt", promptType.wireValue)
        add("claims", claims)
        add("resource", resource)
        if sendClientInfo { add("client_info", "1") }
        add("login_req", accountObjectId)
        add("domain_req", accountTenantId)
        add("haschrome", "1")
        add("return-client-request-id", "true")
        add("client-request-id", correlationId.uuidString)
        for header in LibraryInfo.clientHeaders {
            add(header.name, header.value)
        }
        add("x-app-name", appName)
        add("x-app-ver", appVersion)
        add("X-AnchorMailbox", anchorMailbox)
        if instanceAware { add("instance_aware", "true") }
        add("domain_hint", domainHint)
        add("response_mode", responseMode.wireValue)

        var sent = Set(parameters.map { $0.name.lowercased() })
        for extra in extraQueryParameters {
            guard !extra.name.isEmpty else { continue }
            guard sent.insert(extra.name.lowercased()).inserted else {
                Log.warning(
                    "The extra query parameter '\(extra.name)' is ignored: the library sets it (or it is repeated).",
                    correlationId: correlationId)
                continue
            }
            parameters.append(extra)
        }
        return parameters
    }

    /// The authorize URL: the endpoint with its own query kept, then ``queryParameters()``
    /// form-encoded (RFC 6749 Appendix B).
    func url() throws -> URL {
        let parameters = try queryParameters()
        var base = authorizeEndpoint.absoluteString
        if let hash = base.firstIndex(of: "#") {
            base = String(base[..<hash])
        }
        let separator: String
        if let question = base.firstIndex(of: "?") {
            separator = base[base.index(after: question)...].isEmpty || base.hasSuffix("&") ? "" : "&"
        } else {
            separator = "?"
        }
        let string = base + separator + FormURLEncoding.encode(parameters)
        guard let url = URL(string: string) else {
            throw MSALErrors.make(
                .internalErrorInvalidParameter,
                "Cannot build the authorize URL from the endpoint '\(Redaction.url(authorizeEndpoint))'. "
                    + "Check the authority.", ErrorDetails(correlationId: correlationId))
        }
        return url
    }
}
