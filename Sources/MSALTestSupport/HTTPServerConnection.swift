import Foundation
internal import MSALNative

/// Serves the requests of one TLS connection, one after the other (keep-alive), on its own
/// thread: read a request, ask the handler, carry out its action.
final class HTTPServerConnection {
    private let connection: TLSConnection
    private let reader: HTTPRequestReader
    private let number: Int
    private let core: LoopbackServerCore

    init(connection: TLSConnection, number: Int, core: LoopbackServerCore) {
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
        }
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
