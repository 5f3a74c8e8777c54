import MSALNative
import XCTest

final class NativeLibrariesTests: XCTestCase {
    func testVersionsNameTheLibraries() {
        XCTAssertTrue(NativeLibraries.curlVersion.hasPrefix("libcurl/"))
        XCTAssertTrue(NativeLibraries.openSSLVersion.hasPrefix("OpenSSL 3"))
    }
}
