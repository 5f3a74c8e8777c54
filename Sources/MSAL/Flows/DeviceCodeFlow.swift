import Foundation

/// The device code flow (RFC 8628): for devices and shells without a browser. The user signs in
/// on another device; the library polls until done.
struct DeviceCodeFlow {
    let context: ApplicationContext

    struct Request {
        var scopes: [String]
        var authority: MSALAuthority?
        var claims: MSALClaimsRequest?
        var correlationId: UUID
        var extraQueryParameters: [String: String]?
        /// The RFC 8707 resource indicator to send, or `nil`.
        var resource: String? = nil
    }

    func run(_ request: Request, callback: MSALDeviceCodeCallback) async throws -> MSALResult {
        let correlationId = request.correlationId
        let (authority, knownAuthorities) = try context.requestAuthority(
            request.authority, account: nil, retarget: false, correlationId: correlationId)
        try ResourceIndicator.check(request.resource, for: authority, correlationId: correlationId)
        let scopes = try ScopeRules.requestScopes(
            request.scopes, clientId: context.clientId, authority: authority, correlationId: correlationId)
        let resolved = try await context.resolver.resolve(
            authority, knownAuthorities: knownAuthorities, correlationId: correlationId)
        let claims = MSALClaimsRequest.merged(request.claims, capabilities: context.capabilities)
        guard
            let endpoint = resolved.configuration.deviceAuthorizationEndpoint
                ?? resolved.networkAuthority.defaultTokenEndpoint.map({
                    $0.deletingLastPathComponent().appendingPathComponent("devicecode")
                })
        else {
            throw MSALErrors.make(
                .internalErrorInvalidParameter,
                "The authority does not offer the device code flow (no device_authorization_endpoint).",
                ErrorDetails(correlationId: correlationId))
        }
        let scopeString = ScopeRules.tokenRequestScopes(scopes).scopeString
        var parameters: [(name: String, value: String)] = [("client_id", context.clientId), ("scope", scopeString)]
        if let claims { parameters.append(("claims", claims)) }
        // The device authorization request stands for the authorization request (RFC 8628 §3.1),
        // so it names the resource as RFC 8707 §2.1 has the authorization request name it.
        if let resource = request.resource { parameters.append(("resource", resource)) }
        let response = try await context.transport.send(
            .formPost(
                url: TokenRequest.appendingQuery(request.extraQueryParameters, to: endpoint), parameters: parameters,
                correlationId: correlationId))
        guard response.statusCode == 200 else {
            if let serverError = OAuthServerError(jsonData: response.body) {
                throw MSALErrors.serverError(
                    serverError, endpoint: .token, httpStatusCode: response.statusCode,
                    httpHeaders: response.headers.dictionary, correlationId: correlationId)
            }
            throw MSALErrors.make(
                .internalErrorUnhandledResponse,
                "The device authorization endpoint answered HTTP \(response.statusCode).",
                ErrorDetails(
                    httpStatusCode: response.statusCode, httpHeaders: response.headers.dictionary,
                    correlationId: correlationId))
        }
        let authorization = try DeviceAuthorization(
            body: response.body, now: context.now(), correlationId: correlationId)
        Log.info("Device code issued; waiting for the user", correlationId: correlationId)
        callback(MSALDeviceCodeInfo(authorization))

        let poller = DeviceCodePoller(client: context.tokenClient, sleep: context.sleep, now: context.now)
        let tokens = try await poller.poll(
            authorization,
            makeRequest: { deviceCode in
                TokenRequest.deviceCode(
                    deviceCode, endpoint: resolved.configuration.tokenEndpoint,
                    common: .init(
                        clientId: context.clientId, scope: scopeString,
                        requestClientInfo: authority.supportsClientInfo, claims: claims,
                        extraQueryParameters: request.extraQueryParameters, resource: request.resource))
            }, correlationId: correlationId)
        return try await TokenResponseHandler(context: context).handle(
            tokens,
            for: .init(
                resolved: resolved, scopes: scopes, correlationId: correlationId, grant: .signIn,
                resource: request.resource, accountSource: BrokerFlow.AccountSource.deviceCode))
    }
}
