import Foundation

/// OAuth 2.0 Protected Resource Metadata (RFC 9728): what a resource publishes at
/// `/.well-known/oauth-protected-resource` about itself, chiefly which authorization servers
/// issue its tokens.
///
/// Only the members the library uses are read: `resource` (required), `authorization_servers`
/// and `scopes_supported` (arrays of strings when present). A member of the wrong type refuses the
/// document; other members are ignored, whatever they hold (`1e30`, nested objects).
struct ProtectedResourceMetadata: Sendable, Equatable {
    /// The resource identifier the document is about.
    var resource: String
    /// The issuer identifiers of the authorization servers, in the document's order.
    var authorizationServers: [String]
    /// The scopes the resource names, in the document's order.
    var scopesSupported: [String]

    /// The largest document read: 64 KiB (well under the transport's limit; real ones are < 2 KiB).
    static let maximumSize = 65_536
    /// The most authorization servers or scopes read from one document.
    static let maximumListLength = 64

    /// Why a document or a URL was refused. Never quotes the document.
    enum Problem: Error, Equatable, CustomStringConvertible {
        /// Bigger than ``maximumSize``.
        case tooLarge(Int)
        /// Not a JSON object.
        case notAnObject
        /// A member the library reads is missing or of the wrong type.
        case invalidMember(String)
        /// `resource` is not the resource identifier the client used (RFC 9728 §3.3).
        case resourceMismatch
        /// No authorization server the library can use (none, or none `https`).
        case noAuthorizationServer
        /// The resource identifier is not an `https` URL without fragment.
        case invalidResourceIdentifier

        var description: String {
            switch self {
            case .tooLarge(let size):
                "is \(size) bytes long, over the limit of \(ProtectedResourceMetadata.maximumSize)"
            case .notAnObject: "is not a JSON object"
            case .invalidMember(let name): "has no valid \(name) member"
            case .resourceMismatch:
                "names another resource than the one requested (RFC 9728 §3.3); it may come from an impersonator"
            case .noAuthorizationServer: "names no https authorization server"
            case .invalidResourceIdentifier: "is for a resource identifier that is not an https URL without fragment"
            }
        }
    }

    /// The document in `body`.
    init(body: Data) throws(Problem) {
        guard body.count <= Self.maximumSize else { throw .tooLarge(body.count) }
        guard let object = (try? JSONValue(parsing: body))?.objectValue else { throw .notAnObject }
        guard let resource = object["resource"]?.stringValue, !resource.isEmpty else {
            throw .invalidMember("resource")
        }
        self.resource = resource
        authorizationServers = try Self.strings(object, "authorization_servers")
        scopesSupported = try Self.strings(object, "scopes_supported")
    }

    init(resource: String, authorizationServers: [String], scopesSupported: [String] = []) {
        self.resource = resource
        self.authorizationServers = authorizationServers
        self.scopesSupported = scopesSupported
    }

    private static func strings(_ object: [String: JSONValue], _ name: String) throws(Problem) -> [String] {
        guard let value = object[name] else { return [] }
        guard let array = value.arrayValue, array.count <= maximumListLength else { throw .invalidMember(name) }
        var strings: [String] = []
        for element in array {
            guard let string = element.stringValue, !string.isEmpty else { throw .invalidMember(name) }
            strings.append(string)
        }
        return strings
    }

    /// The metadata URL of a resource identifier (RFC 9728 §3.1): `/.well-known/oauth-protected-resource`
    /// inserted between the host and the path, a terminating `/` after the host removed, the
    /// query kept. `https://api.example.com/mcp` gives
    /// `https://api.example.com/.well-known/oauth-protected-resource/mcp`.
    ///
    /// - Throws: ``Problem/invalidResourceIdentifier`` unless `resource` is an absolute `https`
    ///   URL (or `http` on one of `plainHTTPOrigins`) with a host, without user information or
    ///   fragment.
    static func metadataURL(forResource resource: URL, plainHTTPOrigins: Set<HTTPOrigin> = [])
        throws(Problem) -> URL
    {
        guard let components = URLComponents(url: resource, resolvingAgainstBaseURL: false),
            isAcceptedWebURL(resource, plainHTTPOrigins: plainHTTPOrigins), components.fragment == nil
        else { throw .invalidResourceIdentifier }
        var metadata = components
        let path = components.percentEncodedPath == "/" ? "" : components.percentEncodedPath
        metadata.percentEncodedPath = "/.well-known/oauth-protected-resource" + path
        guard let url = metadata.url else { throw .invalidResourceIdentifier }
        return url
    }

    /// Whether `url` is absolute `https` with a host and no user information, or `http` on one of
    /// `plainHTTPOrigins` (the loopback authorities the app listed in `knownAuthorities`).
    static func isAcceptedWebURL(_ url: URL, plainHTTPOrigins: Set<HTTPOrigin>) -> Bool {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            let host = components.host, !host.isEmpty, components.user == nil, components.password == nil,
            let origin = HTTPOrigin(url), (1...65_535).contains(origin.port)
        else { return false }
        return origin.scheme == "https" || (origin.scheme == "http" && plainHTTPOrigins.contains(origin))
    }

    /// Whether `resource` (from the document) is the identifier the client used (RFC 9728 §3.3):
    /// the same string, except that an empty path and `/` are the same (RFC 3986 §6.2.3).
    static func sameResource(_ resource: String, _ expected: URL) -> Bool {
        func normalized(_ text: String) -> String {
            guard let components = URLComponents(string: text), components.percentEncodedPath == "/",
                components.query == nil
            else { return text }
            return String(text.dropLast())
        }
        return normalized(resource) == normalized(expected.absoluteString)
    }
}
