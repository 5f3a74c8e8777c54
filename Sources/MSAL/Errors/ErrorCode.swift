/// A code in ``MSALErrorDomain`` before classification: either a top-level ``MSALError`` or a
/// detailed ``MSALInternalError``. The OAuth mapping returns one; ``MSALErrors`` builds errors from it.
enum ErrorCode: Sendable, Hashable, CustomStringConvertible {
    case msal(MSALError)
    case msalInternal(MSALInternalError)

    /// The raw `NSError` code.
    var rawValue: Int {
        switch self {
        case .msal(let code): code.rawValue
        case .msalInternal(let code): code.rawValue
        }
    }

    /// The code for a raw value, or `nil` when it is neither an ``MSALError`` nor an
    /// ``MSALInternalError``.
    init?(rawValue: Int) {
        if let code = MSALError(rawValue: rawValue) {
            self = .msal(code)
        } else if let code = MSALInternalError(rawValue: rawValue) {
            self = .msalInternal(code)
        } else {
            return nil
        }
    }

    var description: String {
        switch self {
        case .msal(let code): "MSALError.\(code) (\(code.rawValue))"
        case .msalInternal(let code): "MSALInternalError.\(code) (\(code.rawValue))"
        }
    }
}
