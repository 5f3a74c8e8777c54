import Foundation

/// Reads a resource's Protected Resource Metadata (RFC 9728) through the library's transport and
/// checks it: the URL `https` (or a plain-HTTP loopback origin the app listed in
/// `knownAuthorities`), no redirection followed, the body within the transport's size limit and
/// ``ProtectedResourceMetadata/maximumSize``, the document's `resource` the one requested.
struct ProtectedResourceMetadataFetcher: Sendable {
    let transport: any HTTPTransport
    /// The plain-HTTP origins the app allows (its loopback `knownAuthorities`).
    let plainHTTPOrigins: Set<HTTPOrigin>

    /// The metadata of `resource`, from `metadataURL` (a challenge's `resource_metadata`) or the
    /// resource's well-known URL (RFC 9728 §3.1).
    ///
    /// - Throws: -50000 with -42000 when `resource` is not an `https` URL without fragment;
    ///   -42600 when the metadata URL is not acceptable or the document is refused (naming the URL
    ///   without its query and the reason); -42007 for a status other than 200; the transport's
    ///   `NSURLErrorDomain` errors.
    func fetch(resource: URL, metadataURL: URL?, correlationId: UUID) async throws -> ProtectedResourceMetadata {
        let details = ErrorDetails(correlationId: correlationId)
        let wellKnown: URL
        do {
            wellKnown = try ProtectedResourceMetadata.metadataURL(
                forResource: resource, plainHTTPOrigins: plainHTTPOrigins)
        } catch {
            throw MSALErrors.make(
                .internalErrorInvalidParameter,
                "The resource \(resource.withoutQuery) is not an https URL without fragment. "
                    + "Pass the resource identifier, such as https://api.example.com/mcp.",
                details)
        }
        let url = metadataURL ?? wellKnown
        guard ProtectedResourceMetadata.isAcceptedWebURL(url, plainHTTPOrigins: plainHTTPOrigins) else {
            throw MSALErrors.make(
                .internalErrorInvalidResponse,
                "The resource metadata URL \(url.withoutQuery) is not an https URL; nothing was fetched from it.",
                details)
        }
        let response = try await transport.send(HTTPRequest(url: url, correlationId: correlationId))
        guard response.statusCode == 200 else {
            throw MSALErrors.make(
                .internalErrorUnhandledResponse,
                "The resource metadata at \(url.withoutQuery) answered HTTP \(response.statusCode) "
                    + "(redirections are not followed).",
                ErrorDetails(
                    httpStatusCode: response.statusCode, httpHeaders: response.headers.dictionary,
                    correlationId: correlationId))
        }
        let metadata: ProtectedResourceMetadata
        do {
            metadata = try ProtectedResourceMetadata(body: response.body)
        } catch {
            throw MSALErrors.make(
                .internalErrorInvalidResponse, "The resource metadata at \(url.withoutQuery) \(error).", details)
        }
        guard ProtectedResourceMetadata.sameResource(metadata.resource, resource) else {
            throw MSALErrors.make(
                .internalErrorInvalidResponse,
                "The resource metadata at \(url.withoutQuery) \(ProtectedResourceMetadata.Problem.resourceMismatch).",
                details)
        }
        return metadata
    }
}
