import Foundation
import MSALNative

extension EmulatorEngine {
    /// `GET /{tenant}/discovery/instance?api-version=1.1&authorization_endpoint=...`: the clouds'
    /// metadata when the endpoint's host is one the emulator serves, else `invalid_instance`.
    func instanceDiscovery(_ context: EmulatorRequestContext) -> HTTPServerResponse {
        let parameters = context.parameters
        guard let endpoint = parameters["authorization_endpoint"], let url = URL(string: endpoint),
            url.scheme?.lowercased() == "https", let host = url.host?.lowercased()
        else {
            return context.errorResponse(
                EntraErrorResponse(
                    error: "invalid_request", code: 50050,
                    message: "The request is malformed: 'authorization_endpoint' is missing or not an https URL."))
        }
        let isLoopback = ["127.0.0.1", "localhost", "::1", "[::1]"].contains(host)
        guard isLoopback || clouds.contains(where: { $0.contains(host: host) }) || servesHost(host) else {
            return context.errorResponse(
                EntraErrorResponse(error: "invalid_instance", code: 50049, message: "Unknown or invalid instance."))
        }
        let port = url.port.map { ":\($0)" } ?? ""
        let tenant = url.pathComponents.dropFirst().first ?? "common"
        let metadata: [[String: Any]] = clouds.map { cloud in
            [
                "preferred_network": cloud.preferredNetwork,
                "preferred_cache": cloud.preferredCache,
                "aliases": cloud.aliases,
            ]
        }
        return .json([
            "tenant_discovery_endpoint": "https://\(host)\(port)/\(tenant)/v2.0/.well-known/openid-configuration",
            "api-version": parameters["api-version"] ?? "1.1",
            "metadata": metadata,
        ])
    }

    /// Whether `host` names a B2C, CIAM or AD FS host of one of the tenants.
    func servesHost(_ host: String) -> Bool {
        state.withLock { state in
            state.tenants.contains { tenant in
                tenant.kind == .adfs ? tenant.domains.contains(host) : false
            }
        } || host.hasSuffix(".b2clogin.com") || host.hasSuffix(".ciamlogin.com")
    }

    /// The openid-configuration document of the route's tenant.
    func openIDConfiguration(_ context: EmulatorRequestContext) -> HTTPServerResponse {
        let route = context.route
        let resolved = state.withLock { EmulatorAudience.resolve(route, in: $0) }
        let audience: EmulatorAudience
        switch resolved {
        case .failure(let error): return context.errorResponse(error)
        case .success(let value): audience = value
        }
        if route.style == .adfs {
            return .json(adfsConfiguration(context))
        }
        let tenantId: String
        let segment: String
        switch audience {
        case .common, .organizations:
            tenantId = "{tenantid}"
            segment = route.tenant.lowercased()
        case .consumers:
            tenantId = EmulatorTenant.microsoftAccountsTenantId
            segment = "consumers"
        case .tenant(let tenant):
            tenantId = tenant.id
            segment = tenant.kind == .b2c ? route.tenant : tenant.id
        }
        let base = context.origin + route.prefix(tenantSegment: segment)
        var document: [String: Any] = [
            "issuer": issuer(context, tenantId: tenantId, b2c: route.policy != nil),
            "authorization_endpoint": "\(base)/oauth2/v2.0/authorize",
            "token_endpoint": "\(base)/oauth2/v2.0/token",
            "device_authorization_endpoint": "\(base)/oauth2/v2.0/devicecode",
            "end_session_endpoint": "\(base)/oauth2/v2.0/logout",
            "jwks_uri": "\(base)/discovery/v2.0/keys",
            "token_endpoint_auth_methods_supported": ["client_secret_post", "private_key_jwt", "client_secret_basic"],
            "response_modes_supported": responseModes,
            "response_types_supported": ["code", "id_token", "code id_token", "id_token token"],
            "subject_types_supported": ["pairwise"],
            "id_token_signing_alg_values_supported": ["RS256"],
            "scopes_supported": ["openid", "profile", "email", "offline_access"],
            "claims_supported": [
                "sub", "iss", "cloud_instance_name", "cloud_instance_host_name", "cloud_graph_host_name",
                "msgraph_host", "aud", "exp", "iat", "auth_time", "acr", "nonce", "preferred_username", "name",
                "tid", "ver", "at_hash", "c_hash", "email",
            ],
            "code_challenge_methods_supported": ["plain", "S256"],
            "request_uri_parameter_supported": false,
            "http_logout_supported": true,
            "frontchannel_logout_supported": true,
        ]
        if route.policy == nil {
            document["userinfo_endpoint"] = "https://graph.microsoft.com/oidc/userinfo"
            document["kerberos_endpoint"] = "\(base)/kerberos"
            document["tenant_region_scope"] = tenantId.hasPrefix("{") ? NSNull() : "NA"
            document["cloud_instance_name"] = context.cloud?.instanceName ?? "microsoftonline.com"
            document["cloud_graph_host_name"] = "graph.windows.net"
            document["msgraph_host"] = "graph.microsoft.com"
            document["rbac_url"] = "https://pas.windows.net"
        }
        return .json(document)
    }

    private func adfsConfiguration(_ context: EmulatorRequestContext) -> [String: Any] {
        let base = context.origin + "/adfs"
        return [
            "issuer": base,
            "authorization_endpoint": "\(base)/oauth2/authorize/",
            "token_endpoint": "\(base)/oauth2/token/",
            "device_authorization_endpoint": "\(base)/oauth2/devicecode",
            "end_session_endpoint": "\(base)/oauth2/logout",
            "jwks_uri": "\(base)/discovery/keys",
            "userinfo_endpoint": "\(base)/userinfo",
            "response_modes_supported": responseModes,
            "response_types_supported": ["code", "id_token", "code id_token", "id_token token"],
            "grant_types_supported": [
                "authorization_code", "refresh_token", "password", "urn:ietf:params:oauth:grant-type:device_code",
            ],
            "subject_types_supported": ["pairwise"],
            "scopes_supported": ["openid", "profile", "email", "offline_access", "allatclaims", "user_impersonation"],
            "id_token_signing_alg_values_supported": ["RS256"],
            "code_challenge_methods_supported": ["plain", "S256"],
            "access_token_issuer": "http://\(context.host)/adfs/services/trust",
            "microsoft_multi_refresh_token": true,
        ]
    }

    /// The issuer for tokens of `tenantId` at the request's host: `https://{host}/{tid}/v2.0`
    /// (B2C with a trailing `/`; AD FS `https://{host}/adfs`).
    func issuer(_ context: EmulatorRequestContext, tenantId: String, b2c: Bool = false) -> String {
        if context.route.style == .adfs { return "\(context.origin)/adfs" }
        return b2c ? "\(context.origin)/\(tenantId)/v2.0/" : "https://\(context.issuerHost)/\(tenantId)/v2.0"
    }

    /// `response_modes_supported`: Entra's three, or without `form_post` when it is not offered.
    var responseModes: [String] {
        offersFormPost ? ["query", "fragment", "form_post"] : ["query", "fragment"]
    }

    /// The JSON Web Key Set with the emulator's signing key.
    func keys(_ context: EmulatorRequestContext) -> HTTPServerResponse {
        .json(["keys": [signingKey.publicJWK]])
    }
}
