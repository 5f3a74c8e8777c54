internal import MSALNative

/// Reads HTTP/1.x requests from a connection (TLS or plain TCP): heads up to a size limit, bodies by
/// `Content-Length` or chunked coding. Keeps bytes that arrived early (pipelining) for the next.
final class HTTPRequestReader {
    /// The largest request line plus header fields accepted (431 beyond).
    static let maximumHeadBytes = 64 * 1024
    /// The largest body accepted (413 beyond).
    static let maximumBodyBytes = 16 * 1024 * 1024

    private let connection: any HTTPServerStream
    private var buffer: [UInt8] = []

    init(connection: any HTTPServerStream) {
        self.connection = connection
    }

    /// Reads the next request head; `nil` when the connection ends before a new request starts.
    func readHead() throws(HTTPReadError) -> HTTPRequestHead? {
        var searchFrom = 0
        while true {
            // Empty lines before a request line are ignored (RFC 9112 §2.2).
            let blank = buffer.prefix { $0 == 13 || $0 == 10 }.count
            if blank > 0 { buffer.removeFirst(blank) }
            if let (headEnd, next) = Self.endOfHead(in: buffer, from: max(0, searchFrom - 3)) {
                guard headEnd <= Self.maximumHeadBytes else { throw Self.headTooLarge }
                let head = try HTTPRequestHead.parse(buffer[..<headEnd], maximumBodyBytes: Self.maximumBodyBytes)
                buffer.removeFirst(next)
                return head
            }
            guard buffer.count <= Self.maximumHeadBytes else { throw Self.headTooLarge }
            searchFrom = buffer.count
            let received = try receive()
            if received.isEmpty {
                if buffer.isEmpty { return nil }
                throw .connectionEnded
            }
            buffer += received
        }
    }

    /// Reads a body delimited by `framing`.
    func readBody(_ framing: HTTPRequestHead.Framing) throws(HTTPReadError) -> [UInt8] {
        switch framing {
        case .none:
            return []
        case .length(let count):
            return try take(count)
        case .chunked:
            return try readChunks()
        }
    }

    /// Sends bytes that belong to no response (an interim `100 Continue`).
    func send(_ bytes: [UInt8]) throws(HTTPReadError) {
        do {
            try connection.write(bytes)
        } catch {
            throw .connectionEnded
        }
    }

    private static let headTooLarge = HTTPReadError.rejected(
        status: 431,
        reason: "the request line and headers are over \(maximumHeadBytes) bytes"
    )

    /// The end of the head (before its final empty line) and the start of what follows.
    private static func endOfHead(in bytes: [UInt8], from start: Int) -> (Int, Int)? {
        var index = start
        while index < bytes.count {
            if bytes[index] == 10 {
                if index >= 1 && bytes[index - 1] == 10 { return (index - 1, index + 1) }
                if index >= 2 && bytes[index - 1] == 13 && bytes[index - 2] == 10 { return (index - 2, index + 1) }
            }
            index += 1
        }
        return nil
    }

    /// RFC 9112 §7.1: `size[;ext] CRLF data CRLF` ... `0 CRLF` trailers `CRLF`.
    private func readChunks() throws(HTTPReadError) -> [UInt8] {
        var body: [UInt8] = []
        while true {
            let line = try readLine()
            let sizeText = line.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)[0].trimmingSpaces
            guard !sizeText.isEmpty, sizeText.count <= 8, let size = Int(sizeText, radix: 16), size >= 0 else {
                throw .rejected(status: 400, reason: "a chunk size is not a hexadecimal number")
            }
            if size == 0 {
                while try !readLine().isEmpty {}  // trailer fields are ignored
                return body
            }
            guard body.count + size <= Self.maximumBodyBytes else {
                throw .rejected(status: 413, reason: "the body is over \(Self.maximumBodyBytes) bytes")
            }
            body += try take(size)
            guard try readLine().isEmpty else {
                throw .rejected(status: 400, reason: "a chunk is longer than its size")
            }
        }
    }

    /// One line (without its CR LF or LF), at most 4 KiB.
    private func readLine() throws(HTTPReadError) -> String {
        var searchFrom = 0
        while true {
            if let newline = buffer[searchFrom...].firstIndex(of: 10) {
                var line = buffer[..<newline]
                if line.last == 13 { line = line.dropLast() }
                let text = String(decoding: line, as: UTF8.self)
                buffer.removeFirst(newline + 1)
                return text
            }
            guard buffer.count <= 4096 else { throw .rejected(status: 400, reason: "a chunk line is too long") }
            searchFrom = buffer.count
            let received = try receive()
            guard !received.isEmpty else { throw .connectionEnded }
            buffer += received
        }
    }

    private func take(_ count: Int) throws(HTTPReadError) -> [UInt8] {
        while buffer.count < count {
            let received = try receive(maximumCount: max(16384, min(count - buffer.count, 1 << 20)))
            guard !received.isEmpty else { throw .connectionEnded }
            buffer += received
        }
        let taken = Array(buffer.prefix(count))
        buffer.removeFirst(count)
        return taken
    }

    private func receive(maximumCount: Int = 16384) throws(HTTPReadError) -> [UInt8] {
        do {
            return try connection.read(maximumCount: maximumCount)
        } catch {
            throw .connectionEnded
        }
    }
}
