public import Foundation
import MSALNative

/// A protected resource's OAuth 2.0 Protected Resource Metadata (RFC 9728), checked, with the
/// library's choice of how to get a token for it.
///
/// Get one with
/// ``MSALPublicClientApplication/protectedResourceMetadata(forResource:challenge:)``:
///
/// ```swift
/// let metadata = try await application.protectedResourceMetadata(forResource: URL(string: "https://mcp.example.com/mcp")!)
/// let parameters = MSALSilentTokenParameters(scopes: metadata.scopes, account: account)
/// parameters.authority = metadata.authority          // for an app configured with that kind
/// parameters.resourceIndicator = metadata.resourceIndicator  // nil for Microsoft Entra ID
/// ```
public final class MSALProtectedResourceMetadata: Sendable {
    /// The resource identifier (the document's `resource`, identical to the one asked for).
    public let resource: String
    /// The document's `authorization_servers`: issuer identifiers, in its order.
    public let authorizationServers: [String]
    /// The document's `scopes_supported`.
    public let scopesSupported: [String]
    /// The authority chosen among ``authorizationServers``: an https one on the host of the app's
    /// configured authority when there is one, else the first https one. A Microsoft Entra issuer
    /// (`https://login.microsoftonline.com/<tenant>/v2.0`) gives an ``MSALAADAuthority`` for its
    /// tenant; another issuer an ``MSALOIDCAuthority``.
    public let authority: MSALAuthority
    /// Whether ``authority`` is Microsoft Entra ID.
    public let isMicrosoftEntra: Bool
    /// The scopes to request: `<resource>/.default` for Microsoft Entra ID (which names the
    /// resource by its scope); for another server the challenge's `scope`, else
    /// ``scopesSupported``.
    public let scopes: [String]
    /// The RFC 8707 resource indicator to send as `resource` on the authorization and token
    /// requests of a server other than Microsoft Entra ID; `nil` for Entra, whose v2.0 endpoints
    /// refuse it. Set it as ``MSALTokenParameters/resourceIndicator`` of the token requests.
    public let resourceIndicator: String?

    init(metadata: ProtectedResourceMetadata, plan: ResourceAccessPlan) {
        resource = metadata.resource
        authorizationServers = metadata.authorizationServers
        scopesSupported = metadata.scopesSupported
        authority = MSALAuthority.wrap(plan.authority)
        isMicrosoftEntra = plan.isEntra
        scopes = plan.scopes
        resourceIndicator = plan.resourceParameter
    }
}

extension MSALPublicClientApplication {
    /// Reads a resource's Protected Resource Metadata (RFC 9728) and chooses how to get a token
    /// for it (see ``MSALProtectedResourceMetadata``).
    ///
    /// The document is read from the challenge's `resource_metadata` URL when it has one, else
    /// from the resource's well-known URL (`https://api.example.com/mcp` is described at
    /// `https://api.example.com/.well-known/oauth-protected-resource/mcp`), through the library's
    /// transport and trust settings: `https` only (or a loopback `http` origin listed in
    /// `knownAuthorities`), no redirection followed, at most 64 KiB. Its `resource` must be
    /// identical to `resource` (RFC 9728 §3.3): a document naming another resource may come from
    /// an impersonator.
    ///
    /// - Parameters:
    ///   - resource: the resource identifier, such as the MCP server's URL.
    ///   - challenge: the resource's challenge, for its `resource_metadata` and `scope`.
    /// - Throws: -50000 with -42000 when `resource` is not an `https` URL without fragment; with
    ///   -42600 when the document or its URL is refused, or names no usable authorization server;
    ///   with -42007 for an HTTP status other than 200; `NSURLErrorDomain` errors (-1103 for a
    ///   body over ``MSALHTTPConfig/maximumResponseBodySize``).
    public func protectedResourceMetadata(forResource resource: URL, challenge: MSALWWWAuthenticateParameters? = nil)
        async throws -> MSALProtectedResourceMetadata
    {
        let correlationId = CorrelationID.make()
        let origins = PlainHTTPPolicy.allowedOrigins(knownAuthorities: context.knownAuthorities)
        do {
            let metadata = try await ProtectedResourceMetadataFetcher(
                transport: context.transport, plainHTTPOrigins: origins
            ).fetch(resource: resource, metadataURL: challenge?.resourceMetadataURL, correlationId: correlationId)
            do {
                let plan = try ResourceAccessDecision.plan(
                    metadata: metadata, resource: resource, challengeScopes: challenge?.scopes ?? [],
                    configured: context.defaultAuthority, plainHTTPOrigins: origins)
                return MSALProtectedResourceMetadata(metadata: metadata, plan: plan)
            } catch {
                throw MSALErrors.make(
                    .internalErrorInvalidResponse,
                    "The resource metadata of \(resource.withoutQuery) \(error).",
                    ErrorDetails(correlationId: correlationId))
            }
        } catch {
            throw MSALErrors.classify(error, correlationId: correlationId)
        }
    }

    /// The completion-block form of ``protectedResourceMetadata(forResource:challenge:)``; the
    /// block runs on the thread that produced the answer.
    public func protectedResourceMetadata(
        forResource resource: URL, challenge: MSALWWWAuthenticateParameters? = nil,
        completionBlock: @escaping @Sendable (MSALProtectedResourceMetadata?, (any Error)?) -> Void
    ) {
        Task {
            do {
                completionBlock(try await protectedResourceMetadata(forResource: resource, challenge: challenge), nil)
            } catch {
                completionBlock(nil, error as NSError)
            }
        }
    }
}
