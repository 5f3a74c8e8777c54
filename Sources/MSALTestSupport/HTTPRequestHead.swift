/// The request line and header fields of an HTTP/1.x request, parsed strictly enough that a
/// malformed request gets a 4xx answer instead of a guess.
struct HTTPRequestHead {
    /// How the body is delimited (RFC 9112 §6).
    enum Framing: Equatable {
        case none
        case length(Int)
        case chunked
    }

    var method: String
    var target: String
    var version: String
    var headers: HTTPServerHeaders
    var framing: Framing

    /// Parses the head (without its final empty line). Bare LF line ends are accepted.
    ///
    /// - Throws: ``HTTPReadError/rejected(status:reason:)`` with 400 (malformed), 413 (body over
    ///   `maximumBodyBytes`), 501 (an unknown transfer coding) or 505 (not HTTP/1.x).
    static func parse(_ bytes: ArraySlice<UInt8>, maximumBodyBytes: Int) throws(HTTPReadError) -> HTTPRequestHead {
        // Control characters other than tab, CR and LF, and bytes above ASCII, are not allowed.
        guard bytes.allSatisfy({ $0 == 9 || $0 == 10 || $0 == 13 || (32...126).contains($0) }) else {
            throw .rejected(status: 400, reason: "the request head contains control or non-ASCII bytes")
        }
        // Split bytes, not Characters: "\r\n" is a single Character in Swift.
        var lines = bytes.split(separator: 10, omittingEmptySubsequences: false).map { line in
            Substring(String(decoding: line.last == 13 ? line.dropLast() : line, as: UTF8.self))
        }
        while lines.last?.isEmpty == true { lines.removeLast() }
        guard let requestLine = lines.first else { throw .rejected(status: 400, reason: "no request line") }
        let parts = requestLine.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, isToken(parts[0]), !parts[1].isEmpty, !parts[1].contains("\t"), !parts[1].contains("\r")
        else {
            throw .rejected(status: 400, reason: "the request line is not `METHOD target HTTP/1.1`")
        }
        let version = String(parts[2])
        guard version == "HTTP/1.1" || version == "HTTP/1.0" else {
            if version.hasPrefix("HTTP/") { throw .rejected(status: 505, reason: "only HTTP/1.1 and HTTP/1.0") }
            throw .rejected(status: 400, reason: "the request line does not end with an HTTP version")
        }
        var headers = HTTPServerHeaders()
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":"), isToken(line[..<colon]) else {
                throw .rejected(status: 400, reason: "a header line is not `Name: value`")
            }
            headers.add(String(line[..<colon]), String(line[line.index(after: colon)...].trimmingSpaces))
        }
        let framing = try framing(of: headers, maximumBodyBytes: maximumBodyBytes)
        return HTTPRequestHead(
            method: String(parts[0]),
            target: String(parts[1]),
            version: version,
            headers: headers,
            framing: framing
        )
    }

    private static func framing(
        of headers: HTTPServerHeaders,
        maximumBodyBytes: Int
    ) throws(HTTPReadError) -> Framing {
        let codings = headers.values(for: "Transfer-Encoding").flatMap { $0.split(separator: ",") }
            .map { $0.trimmingSpaces.lowercased() }
        let lengths = headers.values(for: "Content-Length").flatMap { $0.split(separator: ",") }
            .map { String($0.trimmingSpaces) }
        if !codings.isEmpty {
            guard lengths.isEmpty else {
                throw .rejected(status: 400, reason: "both Transfer-Encoding and Content-Length")
            }
            guard codings == ["chunked"] else {
                throw .rejected(status: 501, reason: "only the chunked transfer coding is supported")
            }
            return .chunked
        }
        guard let first = lengths.first else { return .none }
        guard lengths.allSatisfy({ $0 == first }), first.utf8.count <= 18,
            first.utf8.allSatisfy({ (48...57).contains($0) }),
            let length = Int(first)
        else {
            throw .rejected(status: 400, reason: "Content-Length is not one decimal number")
        }
        guard length <= maximumBodyBytes else {
            throw .rejected(status: 413, reason: "the body is over \(maximumBodyBytes) bytes")
        }
        return length == 0 ? .none : .length(length)
    }

    /// An RFC 9110 token (method, header name): visible ASCII except delimiters.
    static func isToken(_ text: Substring) -> Bool {
        !text.isEmpty
            && text.utf8.allSatisfy { byte in
                (33...126).contains(byte) && !"\"(),/:;<=>?@[\\]{}".utf8.contains(byte)
            }
    }
}

/// Why a request could not be read.
enum HTTPReadError: Error {
    /// The connection ended or failed: nothing to answer.
    case connectionEnded
    /// The request is not acceptable: answer with `status` and close.
    case rejected(status: Int, reason: String)
}
