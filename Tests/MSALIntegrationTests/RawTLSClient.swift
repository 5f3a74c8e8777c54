import Foundation
import MSALNative
import MSALTestSupport

/// A minimal HTTPS client over MSALNative's TLS connection, for what curl cannot do: send
/// malformed requests, hold many connections open, pipeline, read raw bytes.
final class RawTLSClient {
    let connection: TLSConnection
    private var buffer: [UInt8] = []

    init(server: LoopbackHTTPSServer, serverName: String? = nil) throws {
        let root = try X509Certificate(pem: server.certificateAuthority.certificatePEM)
        let context = try TLSContext.client(trusting: [root])
        let socket = try TCPSocket.connect(host: server.host, port: server.port)
        socket.setReceiveTimeout(seconds: 5)
        connection = try TLSConnection.connect(socket, context: context, serverName: serverName ?? server.host)
    }

    func send(_ text: String) throws {
        try connection.write(Array(text.utf8))
    }

    /// Sends `GET path` (keep-alive) and reads the response.
    func get(_ path: String) throws -> (status: Int, body: String) {
        try send("GET \(path) HTTP/1.1\r\nHost: test\r\n\r\n")
        return try readResponse()
    }

    /// Reads one response with a Content-Length body; returns its status and body.
    func readResponse() throws -> (status: Int, body: String) {
        var headEnd: Int?
        while headEnd == nil {
            headEnd = buffer.indices.dropLast(3).first { buffer[$0..<$0 + 4].elementsEqual("\r\n\r\n".utf8) }
            if headEnd == nil { try fill() }
        }
        let end = headEnd ?? 0
        let head = String(decoding: buffer[..<end], as: UTF8.self)
        let lines = head.components(separatedBy: "\r\n")
        let status = Int(lines[0].split(separator: " ")[1]) ?? -1
        let lengthLine = lines.first { $0.lowercased().hasPrefix("content-length:") }
        let length = lengthLine.flatMap {
            Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
        }
        let bodyStart = end + 4
        while buffer.count < bodyStart + (length ?? 0) { try fill() }
        let body = String(decoding: buffer[bodyStart..<bodyStart + (length ?? 0)], as: UTF8.self)
        buffer.removeFirst(bodyStart + (length ?? 0))
        return (status, body)
    }

    /// Reads until the server closes the connection; returns everything not yet consumed.
    func readToEnd() throws -> String {
        while true {
            let bytes = try connection.read()
            if bytes.isEmpty { break }
            buffer += bytes
        }
        defer { buffer.removeAll() }
        return String(decoding: buffer, as: UTF8.self)
    }

    /// Whether the server has closed the connection (reads to the end).
    func isClosedByServer() -> Bool {
        (try? readToEnd()) != nil
    }

    private func fill() throws {
        let bytes = try connection.read()
        guard !bytes.isEmpty else { throw TestSupportError("the server closed the connection") }
        buffer += bytes
    }
}
