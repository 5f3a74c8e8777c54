import Foundation
import Glibc
import MSALNative
import XCTest

@testable import MSAL

/// A store that hands out whatever it was given.
private final class FixedKeyStore: MSALCacheKeyStore, @unchecked Sendable {
    // @unchecked: immutable after init.
    private let key: Data
    init(_ key: Data) { self.key = key }
    var storeDescription: String { "test vault, key k" }
    func loadKey() throws -> Data? { key }
    func storeKey(_ key: Data) throws {}
}

/// Keys that are not keys (issue 33, item 5): 32 zero bytes, one repeated byte, too few distinct
/// bytes, the wrong length after decoding; and credential files others can read.
final class AdversarialCacheKeyTests: XCTestCase {
    private var folder: URL!
    private let lines = Locked<[(MSALLogLevel, String)]>([])

    override func setUp() {
        folder = CacheFixtures.temporaryFolder()
        let lines = lines
        MSALGlobalConfig.loggerConfig.logLevel = .warning
        MSALGlobalConfig.loggerConfig.setLogCallback { level, message, _ in
            lines.withLock { $0.append((level, message ?? "")) }
        }
    }

    override func tearDown() {
        MSALGlobalConfig.loggerConfig.removeLogCallback()
        MSALGlobalConfig.loggerConfig.logLevel = .info
        try? FileManager.default.removeItem(at: folder)
    }

    /// A key as random bytes look: 32 distinct values.
    static let goodKey = (0..<32).map { UInt8($0 * 7 + 3) }

    func testDegenerateKeysAreRefusedByTheCheck() {
        let sixteen = (0..<32).map { UInt8($0 % 16) * 9 }
        let fifteen = (0..<32).map { UInt8($0 % 15) * 9 }
        let rows: [([UInt8], String?, UInt)] = [
            (Self.goodKey, nil, #line),
            (sixteen, nil, #line),
            ([UInt8](repeating: 0, count: 32), "every byte is 0x00", #line),
            ([UInt8](repeating: 0xAB, count: 32), "every byte is 0xab", #line),
            (fifteen, "only 15 distinct byte values", #line),
            (Array(Self.goodKey.prefix(31)), "31 bytes, not 32", #line),
            (Self.goodKey + [1], "33 bytes, not 32", #line),
            ([], "0 bytes, not 32", #line),
        ]
        for (key, problem, line) in rows {
            let found = CacheKeyCheck.problem(key)
            if let problem {
                XCTAssertTrue(found?.contains(problem) == true, "\(found ?? "accepted")", line: line)
            } else {
                XCTAssertNil(found, line: line)
            }
        }
    }

    /// The systemd credential `msal-cache-key` holding 32 zero bytes, one repeated byte in hex or
    /// base64, or a base64 key of 31 bytes: a clear error naming the store, never a key.
    func testASystemdCredentialThatIsNoKeyIsRefusedInEveryForm() throws {
        let rows: [(String, [UInt8], String, UInt)] = [
            ("zeros raw", [UInt8](repeating: 0, count: 32), "every byte is 0x00", #line),
            ("zeros hex", Array((String(repeating: "00", count: 32) + "\n").utf8), "every byte is 0x00", #line),
            ("one byte hex", Array(String(repeating: "ab", count: 32).utf8), "every byte is 0xab", #line),
            (
                "one byte base64", Array(Data(repeating: 0x41, count: 32).base64EncodedString().utf8),
                "every byte is 0x41", #line
            ),
            ("31 bytes base64", Array(Data(Self.goodKey.prefix(31)).base64EncodedString().utf8), "31 bytes", #line),
            ("48 bytes hex", Array(String(repeating: "0123456789abcdef", count: 6).utf8), "48 bytes", #line),
        ]
        for (index, (name, contents, problem, line)) in rows.enumerated() {
            let credential = "msal-cache-key-\(index)"
            try writeCredential(credential, contents)
            let store = MSALSystemdCredentialKeyStore(credentialName: credential, directory: folder.path)
            XCTAssertThrowsError(try store.loadKey(), name, line: line) { error in
                let description = (error as NSError).userInfo[MSALErrorDescriptionKey] as? String ?? ""
                XCTAssertTrue(description.contains(problem), "\(name): \(description)", line: line)
                XCTAssertTrue(description.contains("systemd credential \(credential)"), description, line: line)
            }
        }
    }

    /// A key store whose payload is 32 zero bytes fails the application's creation, naming the store.
    func testAKeyStoreHoldingADegenerateKeyFailsTheApplication() throws {
        let configuration = MSALPublicClientApplicationConfig(clientId: CacheFixtures.clientId)
        configuration.cacheConfig.cacheFileURL = folder.appendingPathComponent("cache.json")
        configuration.cacheConfig.encryptionKeyStore = FixedKeyStore(Data(count: 32))
        XCTAssertThrowsError(try MSALPublicClientApplication(configuration: configuration)) { error in
            let description = (error as NSError).userInfo[MSALErrorDescriptionKey] as? String ?? ""
            XCTAssertTrue(description.contains("test vault, key k"), description)
            XCTAssertTrue(description.contains("every byte is 0x00"), description)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.appendingPathComponent("cache.json").path))
    }

    /// `cacheConfig.encryptionKey = Data(count: 32)` (an unset buffer) fails the creation.
    func testAnEncryptionKeyOfZeroesFailsTheApplication() throws {
        let configuration = MSALPublicClientApplicationConfig(clientId: CacheFixtures.clientId)
        configuration.cacheConfig.cacheFileURL = folder.appendingPathComponent("cache.json")
        configuration.cacheConfig.encryptionKey = Data(count: 32)
        XCTAssertThrowsError(try MSALPublicClientApplication(configuration: configuration)) { error in
            XCTAssertEqual((error as NSError).domain, MSALErrorDomain)
            let description = (error as NSError).userInfo[MSALErrorDescriptionKey] as? String ?? ""
            XCTAssertTrue(description.contains("cacheConfig.encryptionKey"), description)
            XCTAssertTrue(description.contains("every byte is 0x00"), description)
        }
        configuration.cacheConfig.encryptionKey = Data(Self.goodKey)
        XCTAssertNoThrow(try MSALPublicClientApplication(configuration: configuration))
    }

    /// A credential file readable by its group or by others is used, with a warning naming it.
    func testACredentialReadableByOthersIsWarnedOf() throws {
        for (mode, warned) in [(0o644, true), (0o640, true), (0o604, true), (0o600, false), (0o400, false)] {
            lines.withLock { $0 = [] }
            let name = "msal-cache-key-\(String(mode, radix: 8))"
            try writeCredential(name, Array(Data(Self.goodKey).base64EncodedString().utf8), mode: mode_t(mode))
            let store = MSALSystemdCredentialKeyStore(credentialName: name, directory: folder.path)
            XCTAssertEqual(try store.loadKey(), Data(Self.goodKey))
            let warnings = lines.withLock { $0 }.filter { $0.0 == .warning }.map(\.1)
            XCTAssertEqual(
                warnings.contains { $0.contains(name) && $0.contains("readable") }, warned,
                "mode \(String(mode, radix: 8)): \(warnings)")
            XCTAssertEqual(store.exposureWarning() != nil, warned, "mode \(String(mode, radix: 8))")
        }
    }

    /// What sits at a credential's path when no regular file can be read there.
    func testTheCauseWhenNoCredentialFileCanBeRead() {
        let path = "/run/credentials/x.service/msal-cache-key"
        XCTAssertEqual(
            CredentialPathDecision.decide(path: path, kind: nil, linkTarget: nil, targetExists: false), .absent)
        XCTAssertEqual(
            CredentialPathDecision.decide(path: path, kind: .fifo, linkTarget: nil, targetExists: false),
            .refuse("the credential \(path) is a FIFO (named pipe), not a regular file"))
        XCTAssertEqual(
            CredentialPathDecision.decide(path: path, kind: .directory, linkTarget: nil, targetExists: false),
            .refuse("the credential \(path) is a directory, not a regular file"))
        XCTAssertEqual(
            CredentialPathDecision.decide(path: path, kind: .symbolicLink, linkTarget: "/gone", targetExists: false),
            .refuse("the credential \(path) is a symbolic link to /gone, which does not exist (a dangling link)"))
        XCTAssertEqual(
            CredentialPathDecision.decide(path: path, kind: .symbolicLink, linkTarget: "/etc/key", targetExists: true),
            .refuse(
                "the credential \(path) is a symbolic link to /etc/key; a credential is read from a regular file "
                    + "only, never through a link (systemd makes regular files)"))
    }

    /// A FIFO (which must not block the read) and a dangling link at the credential's path:
    /// errors naming the path and the cause, not "the service has no credential".
    func testAFIFOOrADanglingLinkAtTheCredentialIsNamedAsSuch() throws {
        let fifo = folder.appendingPathComponent("fifo").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let link = folder.appendingPathComponent("dangling").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: folder.path + "/gone")
        for (name, cause) in [
            ("fifo", "\(fifo) is a FIFO (named pipe), not a regular file"),
            ("dangling", "\(link) is a symbolic link to \(folder.path)/gone, which does not exist"),
        ] {
            let store = MSALSystemdCredentialKeyStore(credentialName: name, directory: folder.path)
            XCTAssertThrowsError(try store.loadKey(), name) { error in
                let description = (error as NSError).userInfo[MSALErrorDescriptionKey] as? String ?? ""
                XCTAssertTrue(description.contains(cause), description)
                XCTAssertFalse(description.contains("has no credential"), description)
            }
        }
    }

    private func writeCredential(_ name: String, _ contents: [UInt8], mode: mode_t = 0o400) throws {
        let path = folder.appendingPathComponent(name).path
        try Data(contents).write(to: URL(fileURLWithPath: path))
        XCTAssertEqual(chmod(path, mode), 0)
    }
}
