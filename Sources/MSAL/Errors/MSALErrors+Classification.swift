import Foundation

extension MSALErrors {
    /// The top-level codes that stay top-level after classification; all others become
    /// ``MSALError/internal``.
    static let recoverableCodes: Set<Int> = [
        MSALError.workplaceJoinRequired.rawValue,
        MSALError.interactionRequired.rawValue,
        MSALError.serverDeclinedScopes.rawValue,
        MSALError.serverProtectionPoliciesRequired.rawValue,
        MSALError.userCanceled.rawValue,
        MSALError.serverInvalidRequestResetPasswordRequired.rawValue,
    ]

    /// How deep nested underlying errors are converted; deeper ones are left as they are.
    private static let maximumDepth = 8

    /// Converts any error into the real `NSError` an app receives, with MSAL's classification.
    ///
    /// - In ``MSALErrorDomain``: codes -50001...-50005 and -50142 stay; every other code becomes
    ///   -50000 (``MSALError/internal``) with ``MSALInternalErrorCodeKey`` set to that code, or to
    ///   -42008 (``MSALInternalError/internalErrorUnexpected``) when the code was -50000 itself. An
    ///   existing ``MSALInternalErrorCodeKey`` is kept, so classifying twice changes nothing.
    /// - Other domains (`NSURLErrorDomain`, ...) keep their domain and code.
    /// - `CancellationError` becomes ``MSALError/userCanceled``; any other Swift error becomes
    ///   ``MSALInternalError/internalErrorUnexpected`` with the Swift error described and underlying.
    /// - ``MSALCorrelationIDKey`` is added from `correlationId` when missing; underlying errors
    ///   are converted too.
    static func classify(_ error: any Error, correlationId: UUID? = nil) -> NSError {
        classify(error, correlationId: correlationId, depth: 0)
    }

    private static func classify(_ error: any Error, correlationId: UUID?, depth: Int) -> NSError {
        let source: NSError
        if (error as AnyObject) is NSError {
            source = error as NSError
        } else if error is CancellationError {
            source = NSError(
                domain: MSALErrorDomain,
                code: MSALError.userCanceled.rawValue,
                userInfo: descriptionEntries(
                    "The request was cancelled because the Swift task that awaited it was cancelled."
                )
            )
        } else if (error as NSError).domain == NSURLErrorDomain {
            // URLError and other Foundation value errors: keep domain, code and what they carry.
            source = error as NSError
        } else {
            var userInfo = descriptionEntries(
                "An unexpected error occurred inside the library (\(Redaction.text(String(describing: error)))). "
                    + "Report it with the correlation id."
            )
            userInfo[NSUnderlyingErrorKey] = plainNSError(error)
            source = NSError(
                domain: MSALErrorDomain, code: MSALInternalError.internalErrorUnexpected.rawValue, userInfo: userInfo)
        }

        var userInfo = source.userInfo
        if userInfo[MSALCorrelationIDKey] == nil, let correlationId {
            userInfo[MSALCorrelationIDKey] = correlationId.uuidString
        }
        if depth < maximumDepth, let underlying = userInfo[NSUnderlyingErrorKey] as? any Error {
            userInfo[NSUnderlyingErrorKey] = classify(underlying, correlationId: nil, depth: depth + 1)
        }

        guard source.domain == MSALErrorDomain else {
            return NSError(domain: source.domain, code: source.code, userInfo: userInfo)
        }
        let code = source.code
        if recoverableCodes.contains(code) {
            return NSError(domain: MSALErrorDomain, code: code, userInfo: userInfo)
        }
        if userInfo[MSALInternalErrorCodeKey] == nil {
            userInfo[MSALInternalErrorCodeKey] =
                code == MSALError.internal.rawValue ? MSALInternalError.internalErrorUnexpected.rawValue : code
        }
        return NSError(domain: MSALErrorDomain, code: MSALError.internal.rawValue, userInfo: userInfo)
    }

    /// The code an error was created with before classification: the ``MSALInternalErrorCodeKey`` of
    /// an ``MSALError/internal`` error, else its code. For decisions inside the library (for
    /// example "was it invalid_grant?"); `nil` outside ``MSALErrorDomain``.
    static func mappedCode(of error: NSError) -> ErrorCode? {
        guard error.domain == MSALErrorDomain else { return nil }
        if error.code == MSALError.internal.rawValue,
            let inner = MSALErrorInfo.intValue(error.userInfo[MSALInternalErrorCodeKey])
        {
            return ErrorCode(rawValue: inner)
        }
        return ErrorCode(rawValue: error.code)
    }

    private static func descriptionEntries(_ message: String) -> [String: Any] {
        [
            NSLocalizedDescriptionKey: TerminalText.escaped(message, keepingLineFeeds: true),
            MSALErrorDescriptionKey: message,
        ]
    }

    /// A real `NSError` with the Swift error's bridged domain and code and its (redacted) description.
    private static func plainNSError(_ error: any Error) -> NSError {
        let bridged = error as NSError
        var userInfo = bridged.userInfo
        userInfo[NSLocalizedDescriptionKey] = Redaction.text(String(describing: error))
        return NSError(domain: bridged.domain, code: bridged.code, userInfo: userInfo)
    }
}
