import Foundation
import MSALNative
import XCTest

@testable import MSAL

/// Reading a cache document in two parts at once (``DocumentSplit``) must give exactly what
/// reading it whole gives, wherever the split is guessed, right or wrong.
final class CacheSplitReadTests: XCTestCase {
    private var folder: URL!

    override func setUp() {
        folder = CacheFixtures.temporaryFolder()
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: folder)
    }

    // MARK: - Reader level: every offset, every section

    func testAnySplitReadsTheSameAsTheWhole() throws {
        let bytes = Array(Self.documentWithEverySection.utf8)
        let whole = try CacheDocumentCodec.decode(bytes)
        var handovers = 0
        for offset in 0...bytes.count {
            for section in CacheSection.allCases {
                let split = DocumentSplit(offset: offset, section: section)
                let (contents, handedOver) = try Self.readInTwo(bytes, at: split)
                if handedOver { handovers += 1 }
                Self.assertSame(contents, whole, "split \(split)")
            }
        }
        // Right after each entry of each section (and never anywhere else).
        XCTAssertEqual(handovers, 9)
    }

    func testAnErrorAfterTheSplitIsTheErrorOfTheWhole() throws {
        var bytes = Array(Self.documentWithEverySection.utf8)
        let splits = Self.entryEnds(bytes)
        let last = try XCTUnwrap(splits.last)
        // Garble a byte inside the last entry, after every split.
        let target = try XCTUnwrap(bytes[..<last.offset].lastIndex(of: UInt8(ascii: ":")))
        bytes[target] = UInt8(ascii: ";")
        var wholeError: CacheDocumentCodec.Corrupt?
        XCTAssertThrowsError(try CacheDocumentCodec.decode(bytes)) { wholeError = $0 as? CacheDocumentCodec.Corrupt }
        for split in splits.dropLast() {
            XCTAssertThrowsError(try Self.readInTwo(bytes, at: split), "split \(split)") { error in
                let corrupt = error as? CacheDocumentCodec.Corrupt
                XCTAssertEqual(corrupt?.offset, wholeError?.offset)
                XCTAssertEqual(corrupt?.reason, wholeError?.reason)
            }
        }
    }

    func testFindsTheNextEntryAndItsSection() throws {
        let bytes = Array(Self.documentWithEverySection.utf8)
        let ends = Self.entryEnds(bytes)
        for start in stride(from: 0, to: bytes.count, by: 17) {
            let found = bytes.withUnsafeBytes {
                DocumentSplit.find(in: UnsafeRawBufferPointer(rebasing: $0[start...]), origin: start)
            }
            // The first entry end after `start` that another well-formed entry follows.
            let expected = ends.first { end in
                let next = String(decoding: bytes[end.offset...], as: UTF8.self)
                    .drop { $0 == " " || $0 == "\n" }
                return end.offset > start && next.hasPrefix(",")
                    && !next.dropFirst().drop { $0 == " " || $0 == "\n" }.hasPrefix("\"bad\"")
            }
            XCTAssertEqual(found, expected, "from \(start)")
        }
    }

    func testAppendingByMovingKeepsEveryEntityAndEmptiesTheSource() {
        func token(_ index: Int) -> CacheAccessToken {
            CacheAccessToken(
                homeAccountId: "home-account-\(index)-of-a-length-on-the-heap", environment: "login.example.com",
                clientId: "client", realm: "realm", target: "scope \(index)", secret: "secret \(index)")
        }
        // The shorter side moved after the longer one, and in front of it.
        for split in [997, 3] {
            var first = (0..<split).map(token)
            var second = (split..<1000).map(token)
            first.appendMoving(&second)
            XCTAssertEqual(first, (0..<1000).map(token), "split at \(split)")
            XCTAssertTrue(second.isEmpty)
        }
        var first = (0..<1000).map(token)
        var empty: [CacheAccessToken] = []
        first.appendMoving(&empty)
        XCTAssertEqual(first.count, 1000)
    }

    // MARK: - File level: two threads

    func testALargeFileReadOnTwoThreadsHoldsWhatItHoldsReadOnOne() throws {
        let path = folder.appendingPathComponent("cache.json").path
        try CacheBenchmarkHooks.writePythonShapedFile(path: path, accounts: 60)
        let split = try load(path, splitFrom: 0)
        let whole = try load(path, splitFrom: .max)
        XCTAssertEqual(split.accessTokens.count, 60)
        Self.assertSame(split, whole, "file")
        // Secrets of both parts are read from the file.
        XCTAssertEqual(split.accessTokens.map(\.secret), whole.accessTokens.map(\.secret))
        XCTAssertEqual(split.refreshTokens.last?.secret.count, 1000)
    }

    func testAWrongGuessInTheMiddleIsNoticedAndTheFileReadWhole() throws {
        // The first `}` after the middle closes an object inside an access token, and what
        // follows looks like an id token entry: the second thread's guess is wrong.
        let head = """
            {"AccessToken": {"k": {"credential_type": "AccessToken", "home_account_id": "h", "environment": "e", \
            "client_id": "c", "realm": "r", "target": "s", "secret": "t", "pad": "
            """
        let tail = """
            ", "ext": {"a": "b"}, "more": {"credential_type": "IdToken"}}}}
            """
        let padding = String(repeating: "x", count: 60)
        let text = head + padding + tail
        let middle = text.utf8.count / 2
        let brace = try XCTUnwrap(text.utf8.indices.first { text.utf8[$0] == UInt8(ascii: "}") })
        XCTAssertLessThan(middle, text.utf8.distance(from: text.utf8.startIndex, to: brace))
        let path = folder.appendingPathComponent("cache.json").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        let bytes = Array(text.utf8)
        let guess = bytes.withUnsafeBytes {
            DocumentSplit.find(in: UnsafeRawBufferPointer(rebasing: $0[middle...]), origin: middle)
        }
        XCTAssertEqual(guess?.section, .idToken, "the guess is made, and is wrong")
        let contents = try load(path, splitFrom: 0)
        XCTAssertEqual(contents.accessTokens.count, 1)
        XCTAssertEqual(contents.idTokens.count, 0)
        XCTAssertEqual(
            contents.accessTokens.first?.unknown, try load(path, splitFrom: .max).accessTokens.first?.unknown)
    }

    func testTheThreadDoneFirstTakesOverTheEndOfTheOthersPart() throws {
        // One reader is slow (the first, then the second): the other reads its half, then parts
        // of the slow one's, each ending where the one after it starts.
        let path = folder.appendingPathComponent("cache.json").path
        try CacheBenchmarkHooks.writePythonShapedFile(path: path, accounts: 40)
        let whole = try load(path, splitFrom: .max)
        XCTAssertEqual(whole.accessTokens.count, 40)
        for slow in [0, 1] {
            let parts = Locked<[Int]>([])
            let split = try load(path, tuning: Self.slowReader(slow, recordingIn: parts))
            Self.assertSame(split, whole, "thread \(slow) slow")
            XCTAssertEqual(split.accessTokens.map(\.secret), whole.accessTokens.map(\.secret))
            XCTAssertEqual(split.refreshTokens.map(\.secret), whole.refreshTokens.map(\.secret))
            XCTAssertGreaterThanOrEqual(
                try XCTUnwrap(parts.withLock { $0.first }), 4, "both parts and two taken over, thread \(slow) slow")
        }
    }

    func testThreadsOfChangingSpeedsTakeOverBothWaysAndReadWhatOneReads() throws {
        // Each window of either thread waits a random while, so each thread takes over the other's
        // part now and then, in any order.
        let path = folder.appendingPathComponent("cache.json").path
        try CacheBenchmarkHooks.writePythonShapedFile(path: path, accounts: 30)
        let whole = try load(path, splitFrom: .max)
        let parts = Locked<[Int]>([])
        for seed in 0..<12 {
            // Waits of 0 to 3 ms, from a multiplicative sequence seeded by the run's number.
            let state = Locked(UInt64(seed + 1))
            let tuning = SplitReadTuning(
                from: 0, windowBytes: 1024, stealAtLeast: 1024,
                beforeWindow: { _ in
                    let value = state.withLock { state in
                        state = state &* 0x5851_F42D_4C95_7F2D &+ 1_442_695_040_888_963_407
                        return state >> 33
                    }
                    usleep(UInt32(value % 3000))
                },
                partsJoined: { count in parts.withLock { $0.append(count) } })
            Self.assertSame(try load(path, tuning: tuning), whole, "seed \(seed)")
        }
        XCTAssertEqual(parts.withLock { $0.count }, 12)
        XCTAssertGreaterThan(parts.withLock { $0.max() ?? 0 }, 3, "parts were taken over")
    }

    func testATakenOverPartStartingAtAWrongGuessIsDropped() throws {
        // Every access token holds an object followed by one that looks like an id token entry,
        // and has no `credential_type` (the section says what it is), so its own end is never
        // taken for a split: every place found among access tokens, where a thread takes over, is
        // a wrong guess. The guess in the middle, among refresh tokens, is right.
        for accessTokensFirst in [true, false] {
            let text = Self.documentWithWrongGuesses(accessTokensFirst: accessTokensFirst)
            let path = folder.appendingPathComponent("cache.json").path
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            let bytes = Array(text.utf8)
            let firstAccessToken = try XCTUnwrap(text.range(of: "a1\""))
            let inAccessTokens = text.utf8.distance(from: text.utf8.startIndex, to: firstAccessToken.lowerBound)
            let guess = bytes.withUnsafeBytes {
                DocumentSplit.find(in: UnsafeRawBufferPointer(rebasing: $0[inAccessTokens...]), origin: inAccessTokens)
            }
            XCTAssertEqual(guess?.section, .idToken, "guesses among access tokens are made, and are wrong")
            let middle = bytes.withUnsafeBytes {
                DocumentSplit.find(
                    in: UnsafeRawBufferPointer(rebasing: $0[(bytes.count / 2)...]), origin: bytes.count / 2)
            }
            XCTAssertEqual(middle?.section, .refreshToken, "the guess in the middle is right")

            // The thread whose part holds the access tokens is slow, so the other takes over there.
            let parts = Locked<[Int]>([])
            let split = try load(path, tuning: Self.slowReader(accessTokensFirst ? 0 : 1, recordingIn: parts))
            let whole = try load(path, splitFrom: .max)
            XCTAssertEqual(whole.accessTokens.count, 60)
            XCTAssertEqual(whole.refreshTokens.count, accessTokensFirst ? 120 : 200)
            Self.assertSame(split, whole, "wrong guesses taken over")
            if accessTokensFirst {
                XCTAssertEqual(parts.withLock { $0 }, [1], "the first reader passed the wrong guess and read on alone")
            } else {
                // The second reader passed a wrong guess and read on alone, after one or two
                // right guesses among refresh tokens.
                XCTAssertEqual(parts.withLock { $0.count }, 1)
                XCTAssertGreaterThanOrEqual(parts.withLock { $0.first ?? 0 }, 2)
            }
        }
    }

    /// Sixty access tokens each holding objects that look like the end of an entry and an id
    /// token entry, and refresh tokens (120 after them, or 200 before them: more than half the
    /// document either way).
    private static func documentWithWrongGuesses(accessTokensFirst: Bool) -> String {
        let trap =
            #""ext": {"a": "b"}, "more": {"credential_type": "IdToken", "home_account_id": "h", "#
            + #""environment": "e", "client_id": "c", "realm": "r", "secret": "s"}"#
        var accessTokens = #""AccessToken": {"#
        for index in 0..<60 {
            accessTokens += index > 0 ? ",\n" : "\n"
            accessTokens +=
                #""a\#(index)": {"home_account_id": "u\#(index).t", "#
                + #""environment": "e", "client_id": "c", "realm": "t", "target": "s", "secret": "at\#(index)", "#
                + trap + "}"
        }
        accessTokens += "\n}"
        var refreshTokens = #""RefreshToken": {"#
        let padding = String(repeating: "x", count: 100)
        for index in 0..<(accessTokensFirst ? 120 : 200) {
            refreshTokens += index > 0 ? ",\n" : "\n"
            refreshTokens +=
                #""r\#(index)": {"credential_type": "RefreshToken", "home_account_id": "u\#(index).t", "#
                + #""environment": "e", "client_id": "c", "secret": "rt\#(index)\#(padding)"}"#
        }
        refreshTokens += "\n}"
        let sections = accessTokensFirst ? [accessTokens, refreshTokens] : [refreshTokens, accessTokens]
        return "{" + sections.joined(separator: ", ") + "}\n"
    }

    func testCorruptOrTruncatedSecondPartsAreQuarantined() throws {
        let source = folder.appendingPathComponent("source.json").path
        try CacheBenchmarkHooks.writePythonShapedFile(path: source, accounts: 40)
        let good = try Data(contentsOf: URL(fileURLWithPath: source))
        var garbled = good
        let colon = try XCTUnwrap(good[(good.count * 3 / 4)...].firstIndex(of: UInt8(ascii: ":")))
        garbled[colon] = UInt8(ascii: ";")
        for (index, bad) in [garbled, good.prefix(good.count * 3 / 4)].enumerated() {
            let path = folder.appendingPathComponent("cache\(index).json").path
            try bad.write(to: URL(fileURLWithPath: path))
            XCTAssertEqual(try load(path, splitFrom: 0).accessTokens.count, 0)
            let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            let moved = try XCTUnwrap(names.first { $0.hasPrefix("cache\(index).json.corrupt-") })
            XCTAssertEqual(try Data(contentsOf: folder.appendingPathComponent(moved)), bad)
        }
    }

    // MARK: - Helpers

    private func load(_ path: String, splitFrom: Int) throws -> CacheContents {
        try load(path, tuning: SplitReadTuning(from: splitFrom))
    }

    private func load(_ path: String, tuning: SplitReadTuning) throws -> CacheContents {
        let cache = TokenCache(
            settings: CacheSettings(location: .file(path: path, isDefault: false), splitRead: tuning))
        return try cache.read { $0.contents }
    }

    /// Split-read settings for small files: 2 KiB windows, taking over stretches of 4 KiB or more,
    /// and the number of parts joined recorded in `parts`. The slow thread (0, the caller, or 1)
    /// waits 300 ms before its first window, so the other has read its part and taken over the
    /// middle of the slow one's by then however slow the machine (a sanitizer build), then 5 ms
    /// before each window.
    private static func slowReader(_ slow: Int = 0, recordingIn parts: Locked<[Int]>) -> SplitReadTuning {
        let windows = Locked(0)
        return SplitReadTuning(
            from: 0, windowBytes: 2048, stealAtLeast: 2048,
            beforeWindow: { thread in
                guard thread == slow else { return }
                let first = windows.withLock { count in
                    defer { count += 1 }
                    return count == 0
                }
                usleep(first ? 300_000 : 5000)
            },
            partsJoined: { count in parts.withLock { $0.append(count) } })
    }

    /// Reads `bytes` as two readers would: the first handing over at `split`, the second reading
    /// the rest from there.
    private static func readInTwo(_ bytes: [UInt8], at split: DocumentSplit) throws -> (CacheContents, Bool) {
        try bytes.withUnsafeBytes { whole in
            var first = CacheDocumentReader(handover: split)
            try consumeAll(&first, whole, origin: 0)
            guard first.handedOver else { return (first.contents, false) }
            var rest = CacheDocumentReader(snapshot: nil, resumingAt: split)
            try consumeAll(&rest, UnsafeRawBufferPointer(rebasing: whole[split.offset...]), origin: split.offset)
            var contents = first.contents
            contents.append(rest.contents)
            return (contents, true)
        }
    }

    private static func consumeAll(
        _ reader: inout CacheDocumentReader, _ bytes: UnsafeRawBufferPointer, origin: Int
    ) throws(CacheDocumentCodec.Corrupt) {
        do {
            _ = try reader.consume(bytes, origin: origin, isFinal: true)
        } catch .malformed(let reason, let offset) {
            throw CacheDocumentCodec.Corrupt(reason: reason, offset: offset)
        } catch {
            throw CacheDocumentCodec.Corrupt(reason: "needed more at the end", offset: origin + bytes.count)
        }
    }

    /// Every place right after an entry, with its section, found by reading the whole document.
    private static func entryEnds(_ bytes: [UInt8]) -> [DocumentSplit] {
        var ends: [DocumentSplit] = []
        for offset in 0...bytes.count {
            for section in CacheSection.allCases
            where (try? readInTwo(bytes, at: DocumentSplit(offset: offset, section: section)))?.1 == true {
                ends.append(DocumentSplit(offset: offset, section: section))
            }
        }
        return ends
    }

    private static func assertSame(
        _ a: CacheContents, _ b: CacheContents, _ message: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(a.accessTokens, b.accessTokens, message, file: file, line: line)
        XCTAssertEqual(a.refreshTokens, b.refreshTokens, message, file: file, line: line)
        XCTAssertEqual(a.idTokens, b.idTokens, message, file: file, line: line)
        XCTAssertEqual(a.accounts, b.accounts, message, file: file, line: line)
        XCTAssertEqual(a.appMetadata, b.appMetadata, message, file: file, line: line)
        XCTAssertEqual(a.accountMetadata, b.accountMetadata, message, file: file, line: line)
        XCTAssertEqual(a.accountMetadataUnknown, b.accountMetadataUnknown, message, file: file, line: line)
        XCTAssertEqual(
            a.unknownSections.map { "\($0.name)=\($0.rawValue)" },
            b.unknownSections.map { "\($0.name)=\($0.rawValue)" }, message, file: file, line: line)
        XCTAssertEqual(a.skipped, b.skipped, message, file: file, line: line)
    }

    /// Two entries in each credential section, an account, app metadata, account metadata, an
    /// unknown section and a malformed entry.
    static let documentWithEverySection = """
        {"AccessToken": {
          "a1": {"credential_type": "AccessToken", "secret": "at1", "home_account_id": "u1.t", "environment": "e", "client_id": "c", "realm": "t", "target": "s1", "expires_on": "2000000000"},
          "a2": {"credential_type": "AccessToken", "secret": "at2", "home_account_id": "u2.t", "environment": "e", "client_id": "c", "realm": "t", "target": "s2", "x-unknown": {"n": [1, 2]}}
        },
        "Future": {"anything": [true, null]},
        "RefreshToken": {
          "r1": {"credential_type": "RefreshToken", "secret": "rt1", "home_account_id": "u1.t", "environment": "e", "client_id": "c", "family_id": "1"},
          "r2": {"credential_type": "RefreshToken", "secret": "rt2", "home_account_id": "u2.t", "environment": "e", "client_id": "c"},
          "bad": {"credential_type": "RefreshToken", "secret": 7}
        },
        "IdToken": {"i1": {"credential_type": "IdToken", "secret": "it1", "home_account_id": "u1.t", "environment": "e", "client_id": "c", "realm": "t"}},
        "Account": {"u1.t-e-t": {"home_account_id": "u1.t", "environment": "e", "realm": "t", "local_account_id": "u1", "username": "one@x", "authority_type": "MSSTS"}},
        "AppMetadata": {"appmetadata-e-c": {"client_id": "c", "environment": "e", "family_id": "1"}},
        "AccountMetadata": {"c": {"client_id": "c", "account_metadata_map": {"u1.t": {"sign_in_state": "SignedOut"}}}}
        }
        """
}
