import Foundation

/// One request as the emulator sees it: who it was addressed to, its correlation and trace ids,
/// and the emulator clock when it arrived.
struct EmulatorRequestContext {
    let request: HTTPServerRequest
    let route: EmulatorRoute
    /// The `Host` header, lowercased (`login.microsoftonline.com`, `127.0.0.1:8443`).
    let host: String
    /// The cloud the host belongs to, when it is an alias of one.
    let cloud: EmulatorCloud?
    let correlationId: String
    let traceId: String
    let now: Date

    init(request: HTTPServerRequest, route: EmulatorRoute, clouds: [EmulatorCloud], now: Date) {
        self.request = request
        self.route = route
        let host = (request.header("Host") ?? "127.0.0.1").lowercased()
        self.host = host
        let name = Self.hostName(host)
        cloud = clouds.first { $0.contains(host: name) }
        correlationId = request.header("client-request-id") ?? UUID().uuidString.lowercased()
        traceId = UUID().uuidString.lowercased()
        self.now = now
    }

    /// `https://<host>`, the origin endpoints in documents and redirects use.
    var origin: String { "https://\(host)" }

    /// The host of issuers: the cloud's `preferred_network` for an alias, else the host as sent.
    var issuerHost: String { cloud?.preferredNetwork ?? host }

    /// The request's parameters: the query for GET, the form body for POST (both for POST with a
    /// query, body first).
    var parameters: [String: String] {
        var result: [String: String] = [:]
        for item in request.formItems + request.queryItems where result[item.name] == nil {
            result[item.name] = item.value ?? ""
        }
        return result
    }

    /// A host without its port (`[::1]:443` → `::1`).
    static func hostName(_ host: String) -> String {
        if host.hasPrefix("["), let close = host.firstIndex(of: "]") {
            return String(host[host.index(after: host.startIndex)..<close])
        }
        return String(host.split(separator: ":", maxSplits: 1).first ?? "")
    }

    /// An Entra-shaped JSON error answer.
    func errorResponse(_ error: EntraErrorResponse) -> HTTPServerResponse {
        .json(
            status: error.status,
            error.body(traceId: traceId, correlationId: correlationId, timestamp: now, host: issuerHost))
    }

    /// An HTML error page, as Entra shows when it cannot redirect (unknown app, bad redirect URI).
    func errorPage(_ error: EntraErrorResponse) -> HTTPServerResponse {
        let text = error.description(traceId: traceId, correlationId: correlationId, timestamp: now)
        let escaped = text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: "\r\n", with: "<br>")
        return .html(
            status: error.status,
            "<!DOCTYPE html><html><head><title>Sign in to your account</title></head><body>"
                + "<h1>Sorry, but we're having trouble signing you in.</h1><p id=\"error\">\(escaped)</p></body></html>"
        )
    }
}
