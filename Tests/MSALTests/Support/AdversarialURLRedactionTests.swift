import Foundation
import XCTest

@testable import MSAL

/// Query strings are personal data (SAS signatures, codes, search terms): a URL in a log line
/// shows its scheme, host and path, and its query only when personal data may be logged
/// (issue 33, item 4).
final class AdversarialURLRedactionTests: XCTestCase {
    private let sas = URL(
        string: "https://contoso.blob.core.windows.net/c/items?sv=2024-05-04&se=2026&sig=SIGVALUE&q=alice")!

    func testAQueryIsMaskedInLogLinesUnlessPersonalDataIsLogged() {
        let message: LogMessage = "Sending GET \(redacting: sas)"
        let masked = message.render(masking: .maskAllPII, piiEnabled: false).text
        XCTAssertTrue(masked.hasPrefix("Sending GET https://contoso.blob.core.windows.net/c/items?"), masked)
        for value in ["2024-05-04", "SIGVALUE", "alice", "2026"] {
            XCTAssertFalse(masked.contains(value), "\(value): \(masked)")
        }
        XCTAssertTrue(masked.contains("sv="), "the names stay: \(masked)")

        let shown = message.render(masking: .maskSecretsOnly, piiEnabled: true).text
        XCTAssertTrue(shown.contains("sv=2024-05-04"), shown)
        XCTAssertTrue(shown.contains("q=alice"), shown)
    }

    func testAFragmentAndAValueWithoutANameAreMaskedToo() {
        let url = URL(string: "https://api.example.com/p?opaque-token#access_token=AT&x=PERSONAL")!
        let masked = Redaction.url(url)
        XCTAssertTrue(masked.hasPrefix("https://api.example.com/p?"), masked)
        for value in ["opaque-token", "AT", "PERSONAL"] {
            XCTAssertFalse(masked.contains(value), "\(value): \(masked)")
        }
    }
}
