import Foundation

/// An OAuth error response: the token endpoint's JSON body or the authorize redirect's parameters.
struct OAuthServerError: Sendable, Hashable {
    /// The OAuth `error` string (for example `invalid_grant`).
    var error: String
    /// `error_description`, for developers.
    var errorDescription: String?
    /// `suberror` (token endpoint) or `error_subcode` (authorize redirect).
    var subError: String?
    /// A description of the suberror, when the server sends one.
    var subErrorDescription: String?
    /// `error_codes` (for example `[50076]`).
    var errorCodes: [Int]
    /// The server's `correlation_id`, when it sent one.
    var correlationId: String?
    /// The server's `trace_id`, when it sent one.
    var traceId: String?
    /// `adi`: the user name a protection policy error refers to.
    var displayableUserId: String?

    init(
        error: String,
        errorDescription: String? = nil,
        subError: String? = nil,
        subErrorDescription: String? = nil,
        errorCodes: [Int] = [],
        correlationId: String? = nil,
        traceId: String? = nil,
        displayableUserId: String? = nil
    ) {
        self.error = error
        self.errorDescription = errorDescription
        self.subError = subError
        self.subErrorDescription = subErrorDescription
        self.errorCodes = errorCodes
        self.correlationId = correlationId
        self.traceId = traceId
        self.displayableUserId = displayableUserId
    }

    /// The error in a decoded JSON object, or `nil` when it has no non-blank `error` string.
    init?(jsonObject: [String: Any]) {
        guard let error = jsonObject["error"] as? String, !OAuthErrorMapping.normalized(error).isEmpty else {
            return nil
        }
        self.init(
            error: error,
            errorDescription: jsonObject["error_description"] as? String,
            subError: (jsonObject["suberror"] as? String) ?? (jsonObject["error_subcode"] as? String),
            subErrorDescription: jsonObject["suberror_description"] as? String,
            errorCodes: Self.integers(jsonObject["error_codes"]),
            correlationId: jsonObject["correlation_id"] as? String,
            traceId: jsonObject["trace_id"] as? String,
            displayableUserId: jsonObject["adi"] as? String
        )
    }

    /// The error in a JSON body, or `nil` when the body is not a JSON object with an `error`.
    init?(jsonData: Data) {
        guard let object = try? JSONSerialization.jsonObject(with: jsonData), let dictionary = object as? [String: Any]
        else { return nil }
        self.init(jsonObject: dictionary)
    }

    /// The error in a redirect's query or fragment parameters, or `nil` without an `error`.
    init?(parameters: [String: String]) {
        guard let error = parameters["error"], !OAuthErrorMapping.normalized(error).isEmpty else { return nil }
        self.init(
            error: error,
            errorDescription: parameters["error_description"],
            subError: parameters["suberror"] ?? parameters["error_subcode"],
            subErrorDescription: parameters["suberror_description"],
            errorCodes: (parameters["error_codes"] ?? "").split(separator: ",").compactMap {
                Int($0.trimmingCharacters(in: .whitespaces))
            },
            correlationId: parameters["correlation_id"],
            traceId: parameters["trace_id"],
            displayableUserId: parameters["adi"]
        )
    }

    private static func integers(_ value: Any?) -> [Int] {
        guard let array = value as? [Any] else { return [] }
        return array.compactMap { MSALErrorInfo.intValue($0) }
    }
}
