import Foundation

/// Where the URLs of a discovery document may point. Tokens, codes and refresh tokens are sent to
/// these endpoints, so a document is refused when one of them would carry a credential in clear
/// text or to a host the authority does not own.
///
/// The rules:
/// - every URL is absolute `https` with a host and a valid port;
/// - the one exception is a plain-HTTP loopback authority the app itself listed in
///   `knownAuthorities` (an emulator, a test server): then `http` URLs of exactly that origin
///   (scheme, host and port) are accepted too. A loopback address alone is not an exception;
/// - for Microsoft Entra ID, B2C, CIAM and AD FS authorities, every endpoint is on the host (and
///   port) the document was read from, as those services publish them. A generic OpenID Connect
///   issuer may name other hosts (`https` still), as some do for their token endpoint.
struct DiscoveryURLPolicy: Sendable, Hashable {
    /// `http://host[:port]` (lowercased, default port omitted) of the known plain-HTTP loopback
    /// authority, or `nil`.
    let plainHTTPOrigin: String?
    /// `host[:port]` (lowercased, default port omitted) every endpoint must be on, or `nil` when
    /// any host is accepted.
    let requiredHost: String?

    /// `https` URLs on any host, nothing else: what a document read without an authority gets.
    static let httpsOnly = DiscoveryURLPolicy(plainHTTPOrigin: nil, requiredHost: nil)

    /// Why a URL was refused.
    enum Violation: Error, Equatable {
        /// Not an absolute URL with a host and a valid port.
        case notAbsolute
        /// A scheme other than `https` (and not the known plain-HTTP origin).
        case notHTTPS
        /// On a host other than the one the authority's documents come from.
        case otherHost(String)

        /// The reason, for an error message.
        var reason: String {
            switch self {
            case .notAbsolute: "is not an absolute URL with a host"
            case .notHTTPS:
                "is not an https URL (a plain-HTTP endpoint would receive tokens in clear text; http is "
                    + "accepted only on the origin of a loopback authority listed in knownAuthorities)"
            case .otherHost(let host): "names the host \(host), not the authority's host"
            }
        }
    }

    /// The policy for the documents of `authority`, read from `documentURL`.
    ///
    /// - Parameters:
    ///   - configuredAuthority: the authority the app configured; its origin is the plain-HTTP
    ///     exception when it is a loopback `http` authority listed in `knownAuthorities`.
    ///   - isDeveloperKnown: whether it is listed there.
    ///   - documentURL: where the document is read; its host is the one Entra-shaped endpoints
    ///     must use.
    ///   - sameHost: whether endpoints must be on `documentURL`'s host.
    init(configuredAuthority: Authority, isDeveloperKnown: Bool, documentURL: URL, sameHost: Bool) {
        plainHTTPOrigin =
            configuredAuthority.isLoopbackHTTP && isDeveloperKnown ? configuredAuthority.parts.origin : nil
        requiredHost = sameHost ? Self.parse(documentURL.absoluteString)?.hostWithPort : nil
    }

    init(plainHTTPOrigin: String?, requiredHost: String?) {
        self.plainHTTPOrigin = plainHTTPOrigin
        self.requiredHost = requiredHost
    }

    /// The URL for `string` when the policy accepts it, else why not.
    func check(_ string: String) -> Result<URL, Violation> {
        guard let parsed = Self.parse(string) else { return .failure(.notAbsolute) }
        switch parsed.scheme {
        case "https":
            break
        case "http" where plainHTTPOrigin == "http://\(parsed.hostWithPort)":
            break
        default:
            return .failure(.notHTTPS)
        }
        if let requiredHost, parsed.hostWithPort != requiredHost, parsed.scheme == "https" {
            return .failure(.otherHost(parsed.hostWithPort))
        }
        return .success(parsed.url)
    }

    /// Whether `url` is one this policy accepts.
    func accepts(_ url: URL) -> Bool {
        if case .success = check(url.absoluteString) { return true }
        return false
    }

    private struct Parsed {
        let scheme: String
        let hostWithPort: String
        let url: URL
    }

    private static func parse(_ string: String) -> Parsed? {
        guard let components = URLComponents(string: string),
            let scheme = components.scheme?.lowercased(),
            let host = components.hostAsWritten?.lowercased(), !host.isEmpty,
            let url = components.url
        else { return nil }
        let defaultPort = scheme == "https" ? 443 : scheme == "http" ? 80 : nil
        // Bytes, not `contains(":")`, which Foundation answers through NSString (a first use).
        let bracketed = host.utf8.contains(UInt8(ascii: ":")) && !host.hasPrefix("[") ? "[\(host)]" : host
        switch components.port {
        case nil, defaultPort:
            return Parsed(scheme: scheme, hostWithPort: bracketed, url: url)
        case .some(let port) where (1...65_535).contains(port):
            return Parsed(scheme: scheme, hostWithPort: "\(bracketed):\(port)", url: url)
        default:
            return nil
        }
    }
}
