import Foundation
import XCTest

@testable import MSAL

/// An app's storage that fails as a sealed vault would, with its own message.
private final class SealedVault: MSALCacheStorage {
    struct Sealed: LocalizedError {
        var errorDescription: String? { "the vault is sealed; unseal it with the operator key" }
    }

    func load() throws -> Data? { throw Sealed() }
    func save(_ data: Data) throws { throw Sealed() }
}

/// A failing `customStorage` is the app's (or the keyring's) failure, not the library's: the error
/// says what the storage said, and nothing calls it an internal error to report.
final class CustomStorageErrorTests: XCTestCase {
    func testTheStoragesOwnMessageReachesTheApp() throws {
        let configuration = MSALPublicClientApplicationConfig(clientId: CacheFixtures.clientId)
        configuration.cacheConfig.customStorage = SealedVault()
        let application = try MSALPublicClientApplication(configuration: configuration)
        XCTAssertThrowsError(try application.allAccounts()) { error in
            let error = error as NSError
            XCTAssertEqual(error.domain, MSALErrorDomain)
            XCTAssertEqual(error.code, MSALError.internal.rawValue)
            let description = error.userInfo[MSALErrorDescriptionKey] as? String ?? ""
            XCTAssertTrue(description.contains("the vault is sealed; unseal it with the operator key"), description)
            let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError
            XCTAssertNotNil(underlying)
            let underlyingText = underlying?.localizedDescription ?? ""
            XCTAssertTrue(underlyingText.contains("the vault is sealed"), underlyingText)
            XCTAssertFalse(underlyingText.contains("inside the library"), underlyingText)
        }
    }
}
