import XCTest

@testable import MSAL

final class LogTests: XCTestCase {
    func testSecretsAreMaskedByDefault() {
        let message: LogMessage = "token \(secret: "abc") for \(euii: "alice@contoso.com")"
        let rendered = message.render(masking: .maskAllPII, piiEnabled: false)
        XCTAssertFalse(rendered.text.contains("abc"))
        XCTAssertFalse(rendered.text.contains("alice"))
        XCTAssertFalse(rendered.containsPII)
    }
}
