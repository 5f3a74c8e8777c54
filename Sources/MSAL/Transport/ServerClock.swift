package import Foundation

/// A server's clock as its `Date` header tells (RFC 9110 §6.6.1), read with one `GET` through the
/// library's own transport (its CA file, host routing and proxy): how `msal doctor` measures the
/// skew between this machine and the authority. Tokens' times (`nbf`, `exp`, `iat`) are the
/// authority's, so a skewed clock makes fresh tokens look expired or not yet valid.
package enum ServerClock {
    /// The answer to one request: the server's time, and this machine's time half-way through.
    package struct Reading: Sendable {
        /// The `Date` header's time, `nil` when the answer had none (or an unreadable one).
        package let serverDate: Date?
        /// This machine's time half-way between sending and receiving.
        package let localDate: Date
        /// The HTTP status of the answer.
        package let status: Int

        /// The server's clock minus this machine's, in seconds (positive: the server is ahead).
        /// The header has whole seconds, so this is exact to about one second.
        package var skew: TimeInterval? { serverDate.map { $0.timeIntervalSince(localDate) } }
    }

    /// `GET url` (any status will do) and its `Date` header.
    package static func read(_ url: URL, caFile: String?, connectTo: [String]) async throws -> Reading {
        let transport = CurlHTTPTransport(
            configuration: .init(caFile: caFile, connectTo: connectTo, retryPolicy: RetryPolicy(retryCount: 0)))
        let sent = Date()
        let response = try await transport.send(HTTPRequest(method: .get, url: url))
        let received = Date()
        return Reading(
            serverDate: response.headers["Date"].flatMap(parse),
            localDate: sent.addingTimeInterval(received.timeIntervalSince(sent) / 2), status: response.statusCode)
    }

    /// An IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the only form servers send today.
    package static func parse(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.date(from: text.trimmingCharacters(in: .whitespaces))
    }
}
