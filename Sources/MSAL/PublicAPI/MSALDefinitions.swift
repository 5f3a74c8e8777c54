/// Called with the result of a token request, or the error (a real `NSError`) when it failed.
public typealias MSALCompletionBlock = @Sendable (MSALResult?, (any Error)?) -> Void

/// Called with the accounts found, or the error.
public typealias MSALAccountsCompletionBlock = @Sendable ([MSALAccount]?, (any Error)?) -> Void

/// Called when sign-out finished: `true` on success, else the error.
public typealias MSALSignoutCompletionBlock = @Sendable (Bool, (any Error)?) -> Void
