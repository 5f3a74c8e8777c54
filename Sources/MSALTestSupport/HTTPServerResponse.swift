public import Foundation

/// An HTTP response for a ``LoopbackHTTPSServer`` handler to send.
///
/// The server adds `Content-Length` (unless the headers already have one, so a test can send a
/// wrong one) and `Connection: close` when it closes the connection after the response.
public struct HTTPServerResponse: Sendable {
    /// The status code (`200`, `400`, `429`...).
    public var status: Int
    /// The header fields, in order.
    public var headers: HTTPServerHeaders
    /// The body.
    public var body: Data

    /// Creates a response.
    public init(status: Int = 200, headers: HTTPServerHeaders = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON response from an object `JSONSerialization` accepts (dictionaries, arrays, strings,
    /// numbers, booleans, `NSNull`), with sorted keys. An object it does not accept gives a 500
    /// response that says so, instead of a crash.
    public static func json(status: Int = 200, _ object: Any, headers: HTTPServerHeaders = [:]) -> HTTPServerResponse {
        guard JSONSerialization.isValidJSONObject(object),
            let data = try? JSONSerialization.data(
                withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        else {
            return .text(status: 500, "HTTPServerResponse.json: the handler's object is not valid JSON: \(object)")
        }
        return .json(status: status, data: data, headers: headers)
    }

    /// A JSON response from an `Encodable` value (sorted keys). A value that fails to encode gives
    /// a 500 response with the encoding error.
    public static func json(
        status: Int = 200,
        encoding value: some Encodable,
        headers: HTTPServerHeaders = [:]
    ) -> HTTPServerResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return .json(status: status, data: try encoder.encode(value), headers: headers)
        } catch {
            return .text(status: 500, "HTTPServerResponse.json: cannot encode the handler's value: \(error)")
        }
    }

    /// A JSON response with a body already encoded.
    public static func json(status: Int = 200, data: Data, headers: HTTPServerHeaders = [:]) -> HTTPServerResponse {
        var fields = headers
        if !fields.contains("Content-Type") { fields.add("Content-Type", "application/json; charset=utf-8") }
        return HTTPServerResponse(status: status, headers: fields, body: data)
    }

    /// A plain-text response (UTF-8).
    public static func text(status: Int = 200, _ text: String, headers: HTTPServerHeaders = [:]) -> HTTPServerResponse {
        var fields = headers
        if !fields.contains("Content-Type") { fields.add("Content-Type", "text/plain; charset=utf-8") }
        return HTTPServerResponse(status: status, headers: fields, body: Data(text.utf8))
    }

    /// An HTML response (UTF-8).
    public static func html(status: Int = 200, _ html: String, headers: HTTPServerHeaders = [:]) -> HTTPServerResponse {
        var fields = headers
        if !fields.contains("Content-Type") { fields.add("Content-Type", "text/html; charset=utf-8") }
        return HTTPServerResponse(status: status, headers: fields, body: Data(html.utf8))
    }

    /// A redirect to `location` (`302 Found` unless another status is given).
    public static func redirect(to location: String, status: Int = 302) -> HTTPServerResponse {
        HTTPServerResponse(status: status, headers: ["Location": location])
    }

    /// The bytes the server sends for this response on a connection it keeps open: status line,
    /// headers (with `Content-Length` added) and body. ``HTTPServerAction/respondPartially(_:bytes:)``
    /// cuts these bytes.
    public func serialized() -> Data {
        Data(serialize(closing: false, includeBody: true))
    }

    /// Serializes for the wire. Header names and values lose CR and LF, so a handler cannot split
    /// the response by accident (``HTTPServerAction/respondRaw(_:close:)`` sends anything).
    func serialize(closing: Bool, includeBody: Bool) -> [UInt8] {
        let code = (0...999).contains(status) ? status : 500
        var head = "HTTP/1.1 \(String(code).leftPadded(to: 3)) \(Self.reasonPhrase(code))\r\n"
        let bodyless = (100..<200).contains(code) || code == 204 || code == 304
        for field in headers {
            head += "\(Self.clean(field.name)): \(Self.clean(field.value))\r\n"
        }
        if !bodyless && !headers.contains("Content-Length") {
            head += "Content-Length: \(body.count)\r\n"
        }
        if closing && !headers.containsToken("close", in: "Connection") {
            head += "Connection: close\r\n"
        }
        head += "\r\n"
        var bytes = Array(head.utf8)
        if includeBody && !bodyless {
            bytes += body
        }
        return bytes
    }

    private static func clean(_ text: String) -> String {
        String(text.unicodeScalars.filter { $0 != "\r" && $0 != "\n" })
    }

    /// The reason phrase for a status code (`OK`, `Bad Request`), or `Status` for unusual codes.
    static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 413: "Content Too Large"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 505: "HTTP Version Not Supported"
        default: "Status"
        }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
