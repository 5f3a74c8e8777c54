public import Foundation

/// What the user must do to finish a device code sign-in: open ``verificationURI`` on any device
/// and enter ``userCode``. Show ``message`` to the user.
public final class MSALDeviceCodeInfo: Sendable {
    /// The code the user enters.
    public let userCode: String
    /// The page where the user enters the code.
    public let verificationURI: URL
    /// Ready-made instructions from the identity provider (or ours when it sends none).
    public let message: String
    /// When the code expires.
    public let expiresOn: Date
    /// Seconds between polls.
    public let interval: TimeInterval

    init(_ authorization: DeviceAuthorization) {
        userCode = authorization.userCode
        verificationURI = authorization.verificationURI
        message =
            authorization.message
            ?? "To sign in, use a web browser to open the page \(authorization.verificationURI.absoluteString) "
            + "and enter the code \(authorization.userCode) to authenticate."
        expiresOn = authorization.expiresOn
        interval = authorization.interval
    }
}

/// Called once with the code the user must enter, before the library starts waiting.
public typealias MSALDeviceCodeCallback = @Sendable (MSALDeviceCodeInfo) -> Void
