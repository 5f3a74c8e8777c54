import Foundation
import MSALSecretService
import MSALSecretServiceNative
import XCTest

/// What needs no Secret Service: how items are named, how words from a daemon are made safe to
/// print, and the store's description.
final class SecretServiceClientTests: XCTestCase {
    func testTheSchemaNameIsMSALExtensionsDefault() {
        // hashlib.sha256("/home/me/.cache/token_cache.bin".encode("utf-8")).hexdigest()
        XCTAssertEqual(
            MSALSecretServiceCacheStorage.extensionsSchemaName(signalPath: "/home/me/.cache/token_cache.bin"),
            "d6fef24cfd92a9503c5a0c9029a82ab22795376730b2ee1ddaa0889328795963")
    }

    func testAnItemIsDescribedWithItsAttributesSorted() {
        let item = SecretServiceClient.Item(schema: "org.example.S", attributes: ["b": "2", "a": "1"])
        XCTAssertEqual(item.description, "org.example.S {a=1, b=2}")
    }

    func testDaemonTextIsMadePrintable() {
        XCTAssertEqual(SecretServiceClient.printable("a\u{1B}[31mb\nc\u{7}"), "a?[31mb?c?")
        let long = String(repeating: "x", count: 1000)
        XCTAssertEqual(SecretServiceClient.printable(long), String(repeating: "x", count: 400) + "...")
        XCTAssertEqual(SecretServiceClient.printable("Schlüssel"), "Schlüssel")
    }

    func testTheDefaultStoreNamesTheCacheByTheSharingGroup() {
        let store = MSALSecretServiceKeyStore()
        XCTAssertEqual(store.schemaName, "org.swift-msal.CacheKey")
        XCTAssertEqual(store.attributes, ["cache": "com.microsoft.identity.universalstorage"])
        XCTAssertEqual(store.collection, "default")
        XCTAssertEqual(store.timeout, 5)
        XCTAssertEqual(store.label, "MSAL token cache key (cache=com.microsoft.identity.universalstorage)")
        XCTAssertEqual(
            store.storeDescription,
            "Secret Service, collection default, item org.swift-msal.CacheKey {cache=com.microsoft.identity.universalstorage}"
        )
    }

    func testMistakesAreFoundBeforeAnyCall() {
        // No bus is needed to refuse these: nothing is sent.
        for (item, expected) in [
            (SecretServiceClient.Item(schema: "s", attributes: [:]), "between 1 and 32"),
            (SecretServiceClient.Item(schema: "s", attributes: ["xdg:schema": "x"]), "reserved"),
            (SecretServiceClient.Item(schema: "s", attributes: ["a\u{0}": "x"]), "NUL"),
            (
                SecretServiceClient.Item(
                    schema: "s", attributes: Dictionary(uniqueKeysWithValues: (0..<33).map { ("a\($0)", "v") })),
                "between 1 and 32"
            ),
        ] {
            XCTAssertThrowsError(try SecretServiceClient.lookup(item, timeout: 1)) { error in
                let failure = error as? SecretServiceClient.Failure
                XCTAssertEqual(failure?.kind, .invalid)
                XCTAssertTrue("\(error)".contains(expected), "\(error)")
            }
        }
    }
}
