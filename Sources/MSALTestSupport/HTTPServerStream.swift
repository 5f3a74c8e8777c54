internal import MSALNative

/// The byte stream a server connection reads requests from and writes responses to: a TLS
/// connection (``LoopbackHTTPSServer``) or the bare TCP socket (``LoopbackHTTPServer``).
/// Used by one connection thread only.
protocol HTTPServerStream: AnyObject {
    /// Up to `maximumCount` bytes, blocking until some arrive; empty at the end of the stream.
    func read(maximumCount: Int) throws(NativeError) -> [UInt8]
    /// Writes all of `bytes`, blocking until they are handed to the kernel.
    func write(_ bytes: [UInt8]) throws(NativeError)
    /// Ends the stream politely before the socket is closed (TLS `close_notify`; nothing for TCP).
    func shutdown()
}

extension TLSConnection: HTTPServerStream {}

/// A plain-TCP stream: HTTP without TLS.
final class PlainServerStream: HTTPServerStream {
    private let socket: TCPSocket

    init(_ socket: TCPSocket) {
        self.socket = socket
    }

    func read(maximumCount: Int) throws(NativeError) -> [UInt8] {
        try socket.receive(maximumCount: maximumCount)
    }

    func write(_ bytes: [UInt8]) throws(NativeError) {
        try socket.send(bytes)
    }

    func shutdown() {}
}
