import Foundation
internal import MSALNative

/// Serves the requests of one connection (TLS or plain TCP), one after the other (keep-alive), on
/// its own thread: read a request, ask the handler, carry out its action.
final class HTTPServerConnection {
    private let connection: any HTTPServerStream
    private let reader: HTTPRequestReader
    private let number: Int
    private let core: LoopbackServerCore

    init(connection: any HTTPServerStream, number: Int, core: LoopbackServerCore) {
        self.connection = connection
        self.reader = HTTPRequestReader(connection: connection)
        self.number = number
        self.core = core
    }

    /// Returns when the connection is to be closed; the caller closes the socket.
    func run() {
        var requestNumber = 0
        while !core.isStopped {
            let request: HTTPServerRequest
            do {
                guard let head = try reader.readHead() else { return connection.shutdown() }
                if head.headers.containsToken("100-continue", in: "Expect"), head.version == "HTTP/1.1",
                    head.framing != .none
                {
                    try reader.send(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
                }
                let body = try reader.readBody(head.framing)
                requestNumber += 1
                request = HTTPServerRequest(
                    method: head.method,
                    target: head.target,
                    version: head.version,
                    headers: head.headers,
                    body: Data(body),
                    connectionNumber: number,
                    requestNumberOnConnection: requestNumber
                )
            } catch {
                if case .rejected(let status, let reason) = error {
                    let response = HTTPServerResponse.text(status: status, reason + "\n")
                    try? connection.write(response.serialize(closing: true, includeBody: true))
                    connection.shutdown()
                }
                return
            }
            core.countRequest()
            guard perform(core.handler(request), for: request) else { return }
        }
    }

    /// Carries out a handler's action; returns whether the connection stays open.
    private func perform(_ action: HTTPServerAction, for request: HTTPServerRequest) -> Bool {
        switch action {
        case .respond(let response):
            return send(response, for: request)
        case .respondAfter(let seconds, let response):
            guard core.sleepUnlessStopped(seconds) else { return false }
            return send(response, for: request)
        case .closeConnection:
            return false
        case .respondPartially(let response, let count):
            let bytes = response.serialize(closing: false, includeBody: true)
            try? connection.write(Array(bytes.prefix(max(0, count))))
            return false
        case .respondRaw(let data, let close):
            do {
                try connection.write(Array(data))
            } catch {
                return false
            }
            return !close
        case .respondEndlessBody(let status, let headers):
            let head = Self.head(status: status, headers: headers, framing: "Transfer-Encoding: chunked")
            guard write(head) else { return false }
            while !core.isStopped {
                guard write(Self.fillerChunk) else { return false }
            }
            return false
        case .respondOversizedBody(let count, let chunked, let status, let headers):
            let count = max(0, count)
            let framing = chunked ? "Transfer-Encoding: chunked" : "Content-Length: \(count)"
            guard write(Self.head(status: status, headers: headers, framing: framing)) else { return false }
            var remaining = count
            while remaining > 0 && !core.isStopped {
                let size = min(remaining, Self.fillerSize)
                let piece =
                    size < Self.fillerSize
                    ? Self.filler(size, chunked: chunked) : chunked ? Self.fillerChunk : Self.fillerBytes
                guard write(piece) else { return false }
                remaining -= size
            }
            if chunked && remaining == 0 { _ = write(Array("0\r\n\r\n".utf8)) }
            connection.shutdown()
            return false
        case .stallMidHead(let status, let headers):
            var head = "HTTP/1.1 \(status) \(HTTPServerResponse.reasonPhrase(status))\r\n"
            for field in headers { head += "\(field.name): \(field.value)\r\n" }
            guard write(Array(head.utf8)) else { return false }
            // Whatever the client sends now is ignored; its close (or the server's stop) ends the wait.
            while !core.isStopped {
                guard let received = try? connection.read(maximumCount: 16384), !received.isEmpty else { break }
            }
            return false
        case .respondEndlessHead(let status):
            guard write(Array("HTTP/1.1 \(status) \(HTTPServerResponse.reasonPhrase(status))\r\n".utf8)) else {
                return false
            }
            var line = 0
            while !core.isStopped {
                var batch: [UInt8] = []
                batch.reserveCapacity(Self.fillerSize + 128)
                while batch.count < Self.fillerSize {
                    line += 1
                    batch += Array("X-Filler-\(line): ".utf8) + Self.headerFiller
                }
                guard write(batch) else { return false }
            }
            return false
        }
    }

    /// Writes `bytes`; false when the client has gone.
    private func write(_ bytes: [UInt8]) -> Bool {
        do {
            try connection.write(bytes)
            return true
        } catch {
            return false
        }
    }

    /// A response head: status line, `headers` (with a JSON `Content-Type` unless they have one),
    /// the framing field, `Connection: close` and the empty line.
    private static func head(status: Int, headers: HTTPServerHeaders, framing: String) -> [UInt8] {
        var text = "HTTP/1.1 \(status) \(HTTPServerResponse.reasonPhrase(status))\r\n"
        var fields = headers
        if !fields.contains("Content-Type") { fields.add("Content-Type", "application/json; charset=utf-8") }
        for field in fields { text += "\(field.name): \(field.value)\r\n" }
        text += "\(framing)\r\nConnection: close\r\n\r\n"
        return Array(text.utf8)
    }

    /// Bytes of generated bodies are written this many at a time.
    private static let fillerSize = 64 * 1024

    /// Full-size filler, built once.
    private static let fillerBytes = filler(fillerSize, chunked: false)

    /// One full-size chunk of filler in chunked coding, built once.
    private static let fillerChunk = filler(fillerSize, chunked: true)

    /// The value of each generated header field (100 bytes, then CR LF).
    private static let headerFiller = [UInt8](repeating: UInt8(ascii: "a"), count: 100) + [13, 10]

    /// `count` filler bytes (spaces, valid JSON whitespace), framed as one chunk when `chunked`.
    private static func filler(_ count: Int, chunked: Bool) -> [UInt8] {
        let bytes = [UInt8](repeating: UInt8(ascii: " "), count: count)
        guard chunked else { return bytes }
        return Array("\(String(count, radix: 16))\r\n".utf8) + bytes + [13, 10]
    }

    private func send(_ response: HTTPServerResponse, for request: HTTPServerRequest) -> Bool {
        let closing = request.wantsClose || response.headers.containsToken("close", in: "Connection") || core.isStopped
        let bytes = response.serialize(closing: closing, includeBody: request.method != "HEAD")
        do {
            try connection.write(bytes)
        } catch {
            return false  // the client left; nothing else to do
        }
        if closing { connection.shutdown() }
        return !closing
    }
}
