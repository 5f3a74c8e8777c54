public import Foundation

/// What a ``LoopbackHTTPSServer`` (or ``LoopbackHTTPServer``) does with a request: answer it, or
/// misbehave on purpose so a test can see how the client copes (timeouts, lost connections,
/// malformed, endless or oversized responses).
///
/// The generated bodies and heads of the last four cases are made on the fly, a few kilobytes at
/// a time: the server's memory stays small however much it sends.
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
    /// Sends the head of a `status` response with `headers` (a JSON `Content-Type` unless they
    /// name one), `Transfer-Encoding: chunked` and `Connection: close`, then chunks of 64 KiB of
    /// spaces forever: the body never ends until the client closes the connection or the server
    /// stops. For clients that must bound how much they receive.
    case respondEndlessBody(status: Int = 200, headers: HTTPServerHeaders = [:])
    /// Sends a `status` response whose body is `bytes` spaces, announced by `Content-Length`
    /// (or, when `chunked`, sent in 64 KiB chunks with no length given in advance), then closes
    /// the connection. The client going away or the server stopping cuts the body short.
    case respondOversizedBody(bytes: Int, chunked: Bool = false, status: Int = 200, headers: HTTPServerHeaders = [:])
    /// Sends the status line and `headers` (as given, nothing added) but never the empty line
    /// that ends the head, then waits, ignoring anything the client sends, until the client closes
    /// the connection or the server stops: a server stalled in the middle of its response head.
    case stallMidHead(status: Int = 200, headers: HTTPServerHeaders = [:])
    /// Sends a `status` line, then header fields of about 120 bytes each (`X-Filler-<n>`) forever,
    /// never ending the head, until the client closes the connection or the server stops: a head
    /// that is small line by line and unbounded in total.
    case respondEndlessHead(status: Int = 200)
}
