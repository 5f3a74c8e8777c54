public import Foundation

/// What a ``LoopbackHTTPSServer`` does with a request: answer it, or misbehave on purpose so a
/// test can see how the client copes (timeouts, lost connections, malformed responses).
public enum HTTPServerAction: Sendable {
    /// Sends the response. The connection stays open for the next request unless the client
    /// asked to close it (`Connection: close`, HTTP/1.0) or the response says `Connection: close`.
    case respond(HTTPServerResponse)
    /// Waits `seconds`, then sends the response (a slow server, for client timeouts). Stopping
    /// the server cuts the wait short and closes the connection without a response.
    case respondAfter(seconds: Double, HTTPServerResponse)
    /// Closes the connection without answering (TCP close, no TLS `close_notify`).
    case closeConnection
    /// Sends only the first `bytes` bytes of ``HTTPServerResponse/serialized()``, then closes the
    /// connection without TLS `close_notify`: a connection lost in the middle of a response.
    case respondPartially(HTTPServerResponse, bytes: Int)
    /// Sends `data` as is (malformed HTTP, a wrong status line), then closes the connection if
    /// `close` is true or waits for the next request on it otherwise.
    case respondRaw(Data, close: Bool)
}
