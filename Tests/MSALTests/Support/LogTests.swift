import Foundation
import XCTest

@testable import MSAL

/// A value shared between threads, guarded by an NSLock (visible to ThreadSanitizer).
private final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<T>(_ body: (inout Value) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}

/// Collects what the log callback receives.
private final class LogCapture: Sendable {
    struct Line: Sendable {
        var level: MSALLogLevel
        var message: String
        var containsPII: Bool
    }

    private let storage = Locked<[Line]>([])

    var lines: [Line] { storage.withLock { $0 } }
    var messages: [String] { lines.map(\.message) }

    /// Installs this capture as the global log callback with the given settings.
    func install(level: MSALLogLevel = .verbose, masking: MSALLogMaskingLevel = .maskAllPII, pii: Bool = false) {
        let config = MSALGlobalConfig.loggerConfig
        config.logLevel = level
        config.logMaskingLevel = masking
        config.piiEnabled = pii
        config.setLogCallback { [self] level, message, containsPII in
            storage.withLock { $0.append(Line(level: level, message: message ?? "", containsPII: containsPII)) }
        }
    }

    /// Puts the global logger back to its defaults (no callback).
    static func restoreDefaults() {
        let config = MSALGlobalConfig.loggerConfig
        config.removeLogCallback()
        config.logLevel = .info
        config.logMaskingLevel = .maskAllPII
        config.piiEnabled = false
    }
}

final class LogTests: XCTestCase {
    private let capture = LogCapture()
    private let correlationId = UUID(uuidString: "0D7E1A52-5E3B-4C1A-9F00-2B6F3E4D5C6B")!
    private let refreshToken = "0.AAAAtopsecretrefreshtokenvalue"
    private let accessToken = "eyJ0eXAiOiJKV1QifQ.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl"

    override func setUp() {
        super.setUp()
        LogCapture.restoreDefaults()
    }

    override func tearDown() {
        LogCapture.restoreDefaults()
        super.tearDown()
    }

    func testDefaults() {
        let config = MSALGlobalConfig.loggerConfig
        XCTAssertEqual(config.logLevel, .info)
        XCTAssertEqual(config.logMaskingLevel, .maskAllPII)
        XCTAssertFalse(config.piiEnabled)
        XCTAssertNil(config.callback)
    }

    func testNothingIsBuiltOrLoggedWithoutCallback() {
        var built = 0
        func expensive() -> String {
            built += 1
            return "value"
        }
        MSALGlobalConfig.loggerConfig.logLevel = .verbose
        Log.error("\(expensive())")
        Log.verbose("\(expensive())")
        XCTAssertEqual(built, 0)

        capture.install(level: .warning)
        Log.info("\(expensive())")
        XCTAssertEqual(built, 0, "a filtered level does not build the message")
        Log.warning("\(expensive())")
        XCTAssertEqual(built, 1)
    }

    func testLevelFiltering() {
        let levels: [MSALLogLevel] = [.nothing, .error, .warning, .info, .verbose]
        for configured in levels {
            let capture = LogCapture()
            capture.install(level: configured)
            Log.error("e")
            Log.warning("w")
            Log.info("i")
            Log.verbose("v")
            let expected = ["e", "w", "i", "v"].prefix(configured.rawValue)
            XCTAssertEqual(capture.messages, Array(expected), "level \(configured)")
            XCTAssertEqual(
                capture.lines.map(\.level), Array([.error, .warning, .info, .verbose].prefix(configured.rawValue)))
        }
    }

    func testCorrelationIdPrefix() async {
        capture.install()
        Log.info("explicit", correlationId: correlationId)
        Log.info("none")
        await Log.$currentCorrelationId.withValue(correlationId) {
            Log.info("from task")
            await Task { Log.info("child task") }.value
            Log.info("explicit wins", correlationId: UUID(uuidString: "00000000-0000-0000-0000-000000000001")!)
        }
        let prefix = "[\(correlationId.uuidString)] "
        XCTAssertEqual(
            capture.messages,
            [
                prefix + "explicit", "none", prefix + "from task", prefix + "child task",
                "[00000000-0000-0000-0000-000000000001] explicit wins",
            ])
    }

    private func logEverything() {
        let tenant = "72f988bf-86f1-41af-91ab-2d7cd011db47"
        let url = "https://login.example/token?code=authcode123&state=s1"
        Log.info(
            "tenant \(pii: tenant) user \(euii: "alice@contoso.com") rt \(secret: refreshToken) url \(redacting: url)",
            correlationId: correlationId)
    }

    func testDefaultMaskingLeaksNothing() {
        capture.install()
        logEverything()
        let line = capture.lines[0]
        XCTAssertFalse(line.containsPII)
        for value in ["72f988bf", "alice", "contoso", refreshToken, "authcode123"] {
            XCTAssertFalse(line.message.contains(value), "\(value) leaked: \(line.message)")
        }
        XCTAssertTrue(line.message.contains("state=s1"), line.message)
        XCTAssertTrue(line.message.contains("(secret, \(refreshToken.utf8.count) bytes)"), line.message)
    }

    func testPIIEnabledAloneDoesNotRevealSecretsOrPII() {
        capture.install(masking: .maskAllPII, pii: true)
        logEverything()
        let line = capture.lines[0]
        XCTAssertFalse(line.containsPII)
        XCTAssertFalse(line.message.contains("alice"))
        XCTAssertFalse(line.message.contains(refreshToken))
    }

    func testMaskEUIIOnlyShowsOrganisationIdentifiers() {
        capture.install(masking: .maskEUIIOnly)
        logEverything()
        let line = capture.lines[0]
        XCTAssertTrue(line.containsPII)
        XCTAssertTrue(line.message.contains("72f988bf-86f1-41af-91ab-2d7cd011db47"))
        XCTAssertFalse(line.message.contains("alice"))
        XCTAssertFalse(line.message.contains(refreshToken))
        XCTAssertFalse(line.message.contains("authcode123"))
    }

    func testMaskSecretsOnlyShowsPersonalDataButNoSecrets() {
        capture.install(masking: .maskSecretsOnly)
        logEverything()
        let line = capture.lines[0]
        XCTAssertTrue(line.containsPII)
        XCTAssertTrue(line.message.contains("72f988bf-86f1-41af-91ab-2d7cd011db47"))
        XCTAssertTrue(line.message.contains("alice@contoso.com"))
        XCTAssertFalse(line.message.contains(refreshToken))
        XCTAssertFalse(line.message.contains("authcode123"))
    }

    func testFullPIILoggingShowsSecrets() {
        capture.install(masking: .maskSecretsOnly, pii: true)
        logEverything()
        let line = capture.lines[0]
        XCTAssertTrue(line.containsPII)
        XCTAssertTrue(line.message.contains(refreshToken))
        XCTAssertTrue(line.message.contains("code=authcode123"))
    }

    func testRedactedFreeTextFollowsTheMaskingLevel() {
        let body = "grant_type=refresh_token&refresh_token=\(refreshToken)&login_hint=bob%40contoso.com&client_id=app"
        let masks: [(MSALLogMaskingLevel, Bool, showsUser: Bool, showsToken: Bool)] = [
            (.maskAllPII, false, false, false),
            (.maskEUIIOnly, false, false, false),
            (.maskSecretsOnly, false, true, false),
            (.maskSecretsOnly, true, true, true),
        ]
        for (masking, pii, showsUser, showsToken) in masks {
            let capture = LogCapture()
            capture.install(masking: masking, pii: pii)
            Log.verbose("POST body \(redacting: body)")
            let message = capture.messages.first ?? ""
            XCTAssertEqual(message.contains("bob%40contoso.com"), showsUser, message)
            XCTAssertEqual(message.contains(refreshToken), showsToken, message)
            XCTAssertTrue(message.contains("client_id=app"))
            XCTAssertTrue(message.contains("grant_type=refresh_token"))
        }
    }

    func testJWTInPlainInterpolationIsNotSpecialButRedactingCatchesIt() {
        // Plain interpolation is for values known not to be sensitive; redacting catches JWTs.
        capture.install()
        Log.info("header Authorization: \(redacting: "Bearer \(accessToken)")")
        Log.info(
            "response \(redacting: #"{"access_token":"\#(accessToken)","token_type":"Bearer","expires_in":3599}"#)")
        for message in capture.messages {
            XCTAssertFalse(message.contains("c2lnbmF0dXJl"), message)
            XCTAssertFalse(message.contains("eyJ0eXAi"), message)
        }
        XCTAssertTrue(capture.messages[1].contains(#""token_type":"Bearer""#), capture.messages[1])
    }

    func testNilValues() {
        capture.install(masking: .maskSecretsOnly, pii: true)
        let missing: String? = nil
        Log.info("a \(pii: missing) b \(euii: missing) c \(secret: missing) d \(redacting: missing)")
        XCTAssertEqual(capture.messages, ["a (nil) b (nil) c (nil) d (nil)"])
        XCTAssertFalse(capture.lines[0].containsPII)
    }

    func testReplacingAndRemovingTheCallback() {
        let first = LogCapture()
        let second = LogCapture()
        first.install()
        Log.info("one")
        second.install()
        Log.info("two")
        MSALGlobalConfig.loggerConfig.removeLogCallback()
        Log.error("three")
        XCTAssertEqual(first.messages, ["one"])
        XCTAssertEqual(second.messages, ["two"])
    }

    func testConcurrentLoggingWhileTheCallbackIsReplaced() {
        let delivered = Locked(0)
        let install: @Sendable () -> Void = {
            MSALGlobalConfig.loggerConfig.setLogCallback { _, message, _ in
                precondition(message?.hasPrefix("[") == true)
                delivered.withLock { $0 += 1 }
            }
        }
        MSALGlobalConfig.loggerConfig.logLevel = .verbose
        install()
        let iterations = 4000
        let correlationId = self.correlationId
        DispatchQueue.concurrentPerform(iterations: iterations) { index in
            if index % 50 == 0 {
                install()
                MSALGlobalConfig.loggerConfig.logMaskingLevel = index % 100 == 0 ? .maskAllPII : .maskEUIIOnly
            }
            Log.verbose("message \(index) for \(euii: "user\(index)")", correlationId: correlationId)
        }
        XCTAssertEqual(delivered.withLock { $0 }, iterations)
    }
}
