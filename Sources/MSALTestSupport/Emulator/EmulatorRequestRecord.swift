public import Foundation

/// A request the emulator received, as kept in ``EntraEmulator/recentRequests`` so a test can
/// assert what its client sent.
public struct EmulatorRequestRecord: Sendable {
    /// The method (`GET`, `POST`).
    public let method: String
    /// The `Host` header (`login.microsoftonline.com`, `127.0.0.1:8443`).
    public let host: String
    /// The path, percent-encoded as sent.
    public let path: String
    /// The endpoint it was routed to.
    public let endpoint: EmulatorEndpoint
    /// The query items, decoded.
    public let queryItems: [URLQueryItem]
    /// The form fields of a form body, decoded.
    public let formItems: [URLQueryItem]
    /// The header fields as sent.
    public let headers: HTTPServerHeaders
    /// Which TCP connection carried it (1 for the first).
    public let connectionNumber: Int
    /// The emulator clock when it arrived.
    public let receivedAt: Date

    /// The first value of query item `name`.
    public func queryValue(_ name: String) -> String? {
        queryItems.first { $0.name == name }?.value
    }

    /// The first value of form field `name`.
    public func formValue(_ name: String) -> String? {
        formItems.first { $0.name == name }?.value
    }

    /// The first value of header `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers[name]
    }
}
