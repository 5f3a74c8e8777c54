import Foundation
import MSALNative

/// What the library reports about itself and its platform in request headers.
package enum LibraryInfo {
    /// The version of the package: the one place that holds it. Sent as `x-client-Ver`, printed
    /// by `msal --version`, and named in CHANGELOG.md.
    package static let version = "0.1.0"

    /// The SDK name, sent as `x-client-SKU`.
    static let sku = "MSAL.Linux.Swift"

    /// The kernel release (`uname -r`), sent as `x-client-OS`.
    static let operatingSystem: String = SystemInfo.kernelRelease ?? "Linux"

    /// The pointer width, sent as `x-client-CPU` ("64" or "32").
    static let cpu = MemoryLayout<Int>.size == 8 ? "64" : "32"

    /// Headers MSAL sends with every request to an identity provider.
    static let clientHeaders: [(name: String, value: String)] = [
        ("x-client-SKU", sku),
        ("x-client-Ver", version),
        ("x-client-OS", operatingSystem),
        ("x-client-CPU", cpu),
    ]
}
