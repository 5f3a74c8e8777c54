/// A failure of the test support library: a certificate could not be made, a port could not be
/// bound, an argument was not valid. The message says what went wrong.
public struct TestSupportError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, for the developer reading the test log.
    public let message: String

    /// Creates an error with a message for the developer.
    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
