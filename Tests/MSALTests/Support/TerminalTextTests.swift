import Foundation
import MSALNative
import XCTest

@testable import MSAL

/// Server text is data: nothing in it can act on a terminal or forge a log line.
final class TerminalTextTests: XCTestCase {
    func testControlCharactersAreEscaped() {
        let hostile = "AADSTS1: bad\u{1B}[2J\u{1B}]0;owned\u{07} \u{9B}31m \u{202E}gnp.exe\u{8}\u{7F}\u{0}\r end"
        let escaped = TerminalText.escaped(hostile)
        XCTAssertEqual(
            escaped,
            "AADSTS1: bad\\u{1B}[2J\\u{1B}]0;owned\\u{7} \\u{9B}31m \\u{202E}gnp.exe\\u{8}\\u{7F}\\u{0}\\u{D} end")
        XCTAssertFalse(escaped.unicodeScalars.contains(where: TerminalText.isControl))
    }

    func testLineFeedsAreEscapedInLinesAndKeptInMessages() {
        let text = "line one\r\nTrace ID: 1\nforged [msal error]\r"
        XCTAssertEqual(TerminalText.escaped(text), "line one\\u{D}\\u{A}Trace ID: 1\\u{A}forged [msal error]\\u{D}")
        XCTAssertEqual(
            TerminalText.escaped(text, keepingLineFeeds: true), "line one\nTrace ID: 1\nforged [msal error]\\u{D}")
    }

    func testPrintableTextIsUnchanged() {
        for text in ["", "plain ASCII ~!@#$%^&*()_+{}|:\"<>?\\", "Zoë Çelik 東京 😀 مرحبا", "\t-tab"] {
            let expected = text.replacingOccurrences(of: "\t", with: "\\u{9}")
            XCTAssertEqual(TerminalText.escaped(text), expected)
        }
    }

    func testQuotedCutsLongText() {
        XCTAssertEqual(TerminalText.quoted(String(repeating: "a", count: 10), limit: 4), "aaaa...")
        XCTAssertEqual(TerminalText.quoted("ab\u{1B}", limit: 20), "ab\\u{1B}")
    }

    func testErrorsEscapeTheirDescriptionAndKeepTheRawText() {
        let error = MSALErrors.make(.internalErrorInvalidResponse, "server said: \u{1B}[2Jgone\r\nnext line")
        XCTAssertEqual(error.localizedDescription, "server said: \\u{1B}[2Jgone\nnext line")
        XCTAssertEqual(error.userInfo[MSALErrorDescriptionKey] as? String, "server said: \u{1B}[2Jgone\r\nnext line")
    }

    func testLogLinesAreOneLineOfData() {
        let lines = Locked<[String]>([])
        MSALGlobalConfig.loggerConfig.logLevel = .verbose
        MSALGlobalConfig.loggerConfig.setLogCallback { _, message, _ in lines.withLock { $0.append(message ?? "") } }
        defer {
            MSALGlobalConfig.loggerConfig.removeLogCallback()
            MSALGlobalConfig.loggerConfig.logLevel = .info
        }
        let description = "denied\n[msal error] forged\u{1B}[1A"
        Log.warning("The server said \(description)")
        XCTAssertEqual(lines.withLock { $0 }, ["The server said denied\\u{A}[msal error] forged\\u{1B}[1A"])
    }
}
