import Foundation

/// The pieces of an authority URL every kind of authority starts from, after the checks all kinds
/// share: not empty, https (or http on a loopback host), a host, a valid port.
///
/// The host is lowercased (an IPv6 address keeps its brackets); the port is dropped when it is
/// the scheme's default (443 for https, 80 for http); user info, query and fragment are ignored;
/// path segments are kept percent-encoded, without empty segments (so `//` and a trailing `/`
/// disappear).
struct AuthorityURLParts: Sendable, Equatable {
    /// `https`, or `http` for a loopback host.
    let scheme: String
    /// Lowercased host; an IPv6 address is in brackets (`[::1]`).
    let host: String
    /// The explicit, non-default port.
    let port: Int?
    /// The non-empty path segments, percent-encoded as given.
    let segments: [String]

    /// The loopback hosts on which `http` is accepted (when listed in knownAuthorities).
    static let loopbackHosts: Set<String> = ["127.0.0.1", "[::1]", "::1", "localhost"]

    /// `host` plus `:port` when a non-default port is present: MSAL's `environment`.
    var hostWithPort: String {
        port.map { "\(host):\($0)" } ?? host
    }

    /// `scheme://host[:port]`.
    var origin: String {
        "\(scheme)://\(hostWithPort)"
    }

    /// Whether the host is 127.0.0.1, ::1 or localhost.
    var isLoopbackHost: Bool {
        Self.loopbackHosts.contains(host)
    }

    /// The segments percent-decoded (a segment that cannot be decoded is kept as it is).
    var decodedSegments: [String] {
        segments.map(ASCII.percentDecoded)
    }

    /// The host's dot-separated labels, the last one with its port as MSAL splits them.
    var hostLabels: [Substring] {
        hostWithPort.split(separator: ".", omittingEmptySubsequences: false)
    }

    /// The first segment, lowercased, or `nil` when the path is empty.
    var firstSegmentLowercased: String? {
        segments.first.map { ASCII.percentDecoded($0).lowercased() }
    }

    /// Splits and checks `string`; throws the reference's message for an empty URL or a scheme
    /// other than https (http is accepted here for a loopback host only).
    static func parse(_ string: String, correlationId: UUID? = nil) throws -> AuthorityURLParts {
        let trimmed = ASCII.trimmed(string)
        let decoded = ASCII.trimmed(ASCII.percentDecoded(trimmed))
        guard !trimmed.isEmpty, !decoded.isEmpty else {
            throw AuthorityError.invalidParameter(AuthorityError.emptyAuthority, correlationId: correlationId)
        }
        guard let components = URLComponents(string: trimmed) else {
            throw AuthorityError.invalidParameter(AuthorityError.notAURL, correlationId: correlationId)
        }
        let scheme = components.scheme?.lowercased()
        let host = components.hostAsWritten?.lowercased() ?? ""
        guard scheme == "https" || (scheme == "http" && loopbackHosts.contains(host)) else {
            throw AuthorityError.invalidParameter(AuthorityError.httpsRequired, correlationId: correlationId)
        }
        guard !host.isEmpty else {
            throw AuthorityError.invalidParameter(AuthorityError.missingHost, correlationId: correlationId)
        }
        var port = components.port
        if let value = port {
            guard (1...65_535).contains(value) else {
                throw AuthorityError.invalidParameter(AuthorityError.invalidPort(value), correlationId: correlationId)
            }
            if (scheme == "https" && value == 443) || (scheme == "http" && value == 80) {
                port = nil
            }
        }
        let segments = components.percentEncodedPath.split(separator: "/").map(String.init)
        return AuthorityURLParts(scheme: scheme ?? "https", host: host, port: port, segments: segments)
    }

    /// A copy with another `host[:port]`, for the network alias or the cloud-instance host.
    func replacingHostWithPort(_ environment: String, correlationId: UUID? = nil) throws -> AuthorityURLParts {
        let replaced = try AuthorityURLParts.parse("\(scheme)://\(environment)/", correlationId: correlationId)
        return AuthorityURLParts(scheme: replaced.scheme, host: replaced.host, port: replaced.port, segments: segments)
    }

    /// `origin` followed by the given percent-encoded segments.
    func urlString(segments: ArraySlice<String>) -> String {
        // Appended one by one: `joined(separator:)` on a slice looks up its generic conformances at
        // run time, which cost `msal token` about 0.04 ms.
        var url = origin
        for segment in segments {
            url += "/" + segment
        }
        return url
    }
}
