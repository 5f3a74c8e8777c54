/// Test support for apps that use MSAL: a loopback HTTPS server and, later, the Entra emulator.
public enum MSALTestSupportInfo {
    /// The version of the test support library.
    public static let version = "0.1.0"
}
