import Foundation
import MSALTestSupport
import XCTest

/// A loopback HTTPS server whose `/authorize` answers like an identity provider after a silent
/// sign-in: a 302 to `redirect_uri` with a code and the request's `state`.
final class FakeAuthorizeServer: Sendable {
    let server: LoopbackHTTPSServer
    private let requests = RequestLog()

    /// The code every sign-in returns.
    static let code = "fake-authorization-code"

    init(certificate: TestServerCertificate? = nil, certificateAuthority: TestCertificateAuthority? = nil) throws {
        let requests = requests
        server = try LoopbackHTTPSServer(certificateAuthority: certificateAuthority, certificate: certificate) {
            request in
            requests.append(request)
            switch request.path {
            case "/common/oauth2/v2.0/authorize":
                // A sign-in page that sets a session cookie and sends the browser on.
                var response = HTTPServerResponse.redirect(to: "/login?" + (request.query ?? ""))
                response.headers.add("Set-Cookie", "esctx=session-1; Path=/; Secure; HttpOnly")
                return .respond(response)
            case "/login":
                guard let redirect = request.queryValue("redirect_uri") else {
                    return .respond(.text(status: 400, "no redirect_uri"))
                }
                if let error = request.queryValue("login_hint"), error == "deny@example.com" {
                    return .respond(
                        .redirect(to: redirect + "?error=access_denied&state=\(request.queryValue("state") ?? "")"))
                }
                let state = request.queryValue("state") ?? ""
                return .respond(.redirect(to: "\(redirect)?code=\(Self.code)&state=\(state)"))
            default:
                return .respond(.text(status: 404, "not found"))
            }
        }
    }

    var authorizeEndpoint: URL {
        server.baseURL.appendingPathComponent("common/oauth2/v2.0/authorize")
    }

    var caFile: String { server.certificateAuthority.certificateFile }

    var received: [HTTPServerRequest] { requests.all }

    func stop() { server.stop() }
}

private final class RequestLog: @unchecked Sendable {
    // @unchecked: `items` is only touched while holding `lock`.
    private let lock = NSLock()
    private var items: [HTTPServerRequest] = []

    func append(_ request: HTTPServerRequest) {
        lock.lock()
        items.append(request)
        lock.unlock()
    }

    var all: [HTTPServerRequest] {
        lock.lock()
        defer { lock.unlock() }
        return items
    }
}
