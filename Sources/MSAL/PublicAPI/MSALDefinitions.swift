/// Called with the result of a token request, or the error (a real `NSError`) when it failed.
///
/// As in MSAL for iOS/macOS, the block is not required to be `@Sendable`: the library calls it
/// exactly once, on ``MSALTokenParameters/completionBlockQueue`` when set, else on a thread of its
/// own (silent, device code) or the main queue (interactive, sign-out).
public typealias MSALCompletionBlock = (MSALResult?, (any Error)?) -> Void

/// Called when sign-out finished: `true` on success, else the error.
public typealias MSALSignoutCompletionBlock = (Bool, (any Error)?) -> Void

/// Carries a caller's completion block to the thread that calls it once. The library never
/// calls it concurrently or twice, which is what makes sending it safe.
struct CompletionBox<Block>: @unchecked Sendable {
    let block: Block
}
