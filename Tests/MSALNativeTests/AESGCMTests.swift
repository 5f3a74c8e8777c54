import XCTest

@testable import MSALNative

final class AESGCMTests: XCTestCase {
    /// McGrew & Viega, "The Galois/Counter Mode of Operation", Test Case 16 (AES-256, 96-bit IV,
    /// 60-byte plaintext, 20-byte associated data), also in NIST's GCM validation examples.
    func testKnownAnswerTestCase16() throws {
        let key = SecureBytes(Hex.bytes("feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308"))
        let nonce = Hex.bytes("cafebabefacedbaddecaf888")
        let plaintext = Hex.bytes(
            """
            d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72
            1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39
            """)
        let associatedData = Hex.bytes("feedfacedeadbeeffeedfacedeadbeefabaddad2")
        let ciphertext = Hex.bytes(
            """
            522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa
            8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662
            """)
        let tag = Hex.bytes("76fc6ece0f4e1768cddf8853bb2d551b")

        let sealed = try AESGCM.seal(plaintext, key: key, nonce: nonce, associatedData: associatedData)
        XCTAssertEqual(Hex.string(sealed), Hex.string(nonce + ciphertext + tag))
        XCTAssertEqual(try AESGCM.open(sealed, key: key, associatedData: associatedData), plaintext)
    }

    /// Test Case 14: AES-256, zero key and nonce, one zero block, no associated data.
    func testKnownAnswerTestCase14() throws {
        let key = SecureBytes([UInt8](repeating: 0, count: 32))
        let sealed = try AESGCM.seal(
            [UInt8](repeating: 0, count: 16), key: key, nonce: [UInt8](repeating: 0, count: 12), associatedData: [])
        XCTAssertEqual(
            Hex.string(sealed.dropFirst(12)), "cea7403d4d606b6e074ec5d3baf39d18d0d1c8a799996bf0265b98b5d48ab919")
    }

    func testRoundTrips() throws {
        let key = try SecureBytes(randomCount: 32)
        for length in [0, 1, 15, 16, 17, 1000] {
            let plaintext = try SecureRandom.bytes(length)
            let sealed = try AESGCM.seal(plaintext, key: key, associatedData: Array("cache v1".utf8))
            XCTAssertEqual(sealed.count, length + 28)
            XCTAssertEqual(try AESGCM.open(sealed, key: key, associatedData: Array("cache v1".utf8)), plaintext)
        }
        XCTAssertEqual(try AESGCM.open(AESGCM.seal([7], key: key), key: key), [7])
    }

    func testNoncesAreFresh() throws {
        let key = try SecureBytes(randomCount: 32)
        let first = try AESGCM.seal([1, 2, 3], key: key)
        let second = try AESGCM.seal([1, 2, 3], key: key)
        XCTAssertNotEqual(first.prefix(12), second.prefix(12))
        XCTAssertNotEqual(first, second)
    }

    func testEveryTamperedByteFailsAuthentication() throws {
        let key = try SecureBytes(randomCount: 32)
        let associatedData = Array("header".utf8)
        let sealed = try AESGCM.seal(Array("secret refresh token".utf8), key: key, associatedData: associatedData)
        // Each position: nonce (0..<12), ciphertext, tag (last 16).
        for index in sealed.indices {
            var tampered = sealed
            tampered[index] ^= 0x01
            assertAuthenticationFails(try AESGCM.open(tampered, key: key, associatedData: associatedData))
        }
    }

    func testWrongKeyOrAssociatedDataFailsAuthentication() throws {
        let key = try SecureBytes(randomCount: 32)
        let sealed = try AESGCM.seal(Array("data".utf8), key: key, associatedData: [1])
        assertAuthenticationFails(try AESGCM.open(sealed, key: SecureBytes(randomCount: 32), associatedData: [1]))
        assertAuthenticationFails(try AESGCM.open(sealed, key: key, associatedData: [2]))
        assertAuthenticationFails(try AESGCM.open(sealed, key: key, associatedData: []))
    }

    func testTruncatedOrExtendedInputFailsAuthentication() throws {
        let key = try SecureBytes(randomCount: 32)
        let sealed = try AESGCM.seal(Array("data".utf8), key: key)
        for length in 0..<sealed.count {
            assertAuthenticationFails(try AESGCM.open(Array(sealed.prefix(length)), key: key))
        }
        assertAuthenticationFails(try AESGCM.open(sealed + [0], key: key))
    }

    func testKeyMustBe32Bytes() throws {
        for count in [0, 16, 24, 31, 33] {
            let key = SecureBytes([UInt8](repeating: 1, count: count))
            XCTAssertThrowsError(try AESGCM.seal([1], key: key)) { error in
                XCTAssertTrue(String(describing: error).contains("must be 32 bytes"), "\(error)")
            }
            XCTAssertThrowsError(try AESGCM.open([UInt8](repeating: 0, count: 40), key: key)) { error in
                XCTAssertTrue(String(describing: error).contains("must be 32 bytes"), "\(error)")
            }
        }
        XCTAssertThrowsError(
            try AESGCM.seal([1], key: SecureBytes(randomCount: 32), nonce: [1, 2, 3], associatedData: []))
    }

    private func assertAuthenticationFails(
        _ expression: @autoclosure () throws -> [UInt8], file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertThrowsError(try expression(), file: file, line: line) { error in
            XCTAssertTrue(
                String(describing: error).contains("authentication failed"), "\(error)", file: file, line: line)
        }
    }
}
