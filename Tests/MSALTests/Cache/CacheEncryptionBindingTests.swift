import MSALNative
import XCTest

@testable import MSAL

/// The encrypted format's binding: version 2 covers the cache it is for, version 1 still opens.
final class CacheEncryptionBindingTests: XCTestCase {
    private let key: [UInt8] = (0..<32).map { UInt8(truncatingIfNeeded: $0 &* 53 &+ 5) }
    private let document = Array(#"{"AccessToken":{}}"#.utf8)

    func testABoundDocumentOpensOnlyForItsBinding() throws {
        let sealed = try CacheEncryption.seal(document, key: key, for: .storage("redis:a"))
        XCTAssertEqual(Array(sealed.prefix(12)), Array("MSALCACHE".utf8) + [0, 2, 1])
        XCTAssertEqual(CacheEncryption.open(sealed, key: key, for: .storage("redis:a")), document)
        XCTAssertNil(CacheEncryption.open(sealed, key: key, for: .storage("redis:b")))
        XCTAssertNil(CacheEncryption.open(sealed, key: key, for: .file))
        let file = try CacheEncryption.seal(document, key: key, for: .file)
        XCTAssertNil(CacheEncryption.open(file, key: key, for: .storage("")))
        // The header is authenticated: claiming version 1 does not drop the binding.
        var downgraded = sealed
        downgraded[10] = 1
        XCTAssertNil(CacheEncryption.open(downgraded, key: key, for: .storage("redis:a")))
    }

    func testAnUnboundVersion1DocumentStillOpens() throws {
        let header = Array("MSALCACHE".utf8) + [0, 1, 1]
        let legacy = header + (try AESGCM.seal(document, key: SecureBytes(key), associatedData: header))
        XCTAssertEqual(CacheEncryption.open(legacy, key: key, for: .file), document)
        XCTAssertEqual(CacheEncryption.open(legacy, key: key, for: .storage("redis:x")), document)
    }
}
