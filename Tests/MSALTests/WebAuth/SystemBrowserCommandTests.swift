import Foundation
import XCTest

@testable import MSAL

final class SystemBrowserCommandTests: XCTestCase {
    func testCommandSources() {
        XCTAssertEqual(SystemBrowser(browserCommand: nil, environment: [:]).commands, [["xdg-open"]])
        XCTAssertEqual(SystemBrowser(browserCommand: nil, environment: ["BROWSER": "  "]).commands, [["xdg-open"]])
        XCTAssertEqual(
            SystemBrowser(browserCommand: nil, environment: ["BROWSER": "firefox:chromium --new-window"]).commands,
            [["firefox"], ["chromium", "--new-window"]])
        XCTAssertEqual(
            SystemBrowser(browserCommand: "w3m", environment: ["BROWSER": "firefox"]).commands, [["w3m"]],
            "the app's command wins over $BROWSER")
    }

    func testWordSplittingDoesNotExpandAnything() {
        let table: [(String, [String])] = [
            ("firefox", ["firefox"]),
            ("  a   b\tc ", ["a", "b", "c"]),
            (#"'/opt/My Browser/run' --flag"#, ["/opt/My Browser/run", "--flag"]),
            (#""a \"q\" b" c"#, [#"a "q" b"#, "c"]),
            (#"a\ b"#, ["a b"]),
            ("$HOME/bin/browser `id` $(id) ;rm", ["$HOME/bin/browser", "`id`", "$(id)", ";rm"]),
            ("''", [""]),
        ]
        for (text, words) in table {
            XCTAssertEqual(SystemBrowser.words(text), words, text)
        }
    }

    func testURLSubstitution() {
        let url = "https://login.example/authorize?a=1&b=%20"
        let table: [([String], [String])] = [
            (["firefox"], ["firefox", url]),
            (["browser", "--url=%s", "--x"], ["browser", "--url=" + url, "--x"]),
            (["browser", "%s", "%s"], ["browser", url, url]),
            (["browser", "100%%", "%s"], ["browser", "100%", url]),
            (["browser", "%d", "50%"], ["browser", "%d", "50%", url]),
        ]
        for (command, arguments) in table {
            XCTAssertEqual(SystemBrowser.arguments(command, url: url), arguments, "\(command)")
        }
    }

    func testExecutableLookup() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("msal-path-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let tool = directory.appendingPathComponent("mybrowser").path
        _ = FileManager.default.createFile(
            atPath: tool, contents: Data("#!/bin/sh\n".utf8), attributes: [.posixPermissions: 0o755])
        let browser = SystemBrowser(browserCommand: nil, environment: ["PATH": "/nonexistent:" + directory.path])
        XCTAssertEqual(browser.executable("mybrowser"), tool)
        XCTAssertEqual(browser.executable(tool), tool)
        XCTAssertNil(browser.executable("surely-not-a-browser-\(UUID().uuidString)"))
    }

    func testOnlyHTTPURLsAreOpened() async {
        let browser = SystemBrowser(browserCommand: "true", environment: ["PATH": "/usr/bin:/bin"])
        do {
            try await browser.open(fixtureURL("file:///etc/passwd"), correlationId: nil)
            XCTFail("expected a failure")
        } catch {
            let error = error as NSError
            XCTAssertEqual(error.domain, MSALErrorDomain)
            XCTAssertEqual(error.code, MSALError.internal.rawValue)
            XCTAssertEqual(error.userInfo[MSALInternalErrorCodeKey] as? Int, -42000)
        }
    }

    func testLaunchFailureNamesTheCommands() async {
        let browser = SystemBrowser(
            browserCommand: "no-such-browser-xyz:false", environment: ["PATH": "/usr/bin:/bin"])
        do {
            try await browser.open(fixtureURL("https://login.example/authorize"), correlationId: nil)
            XCTFail("expected a failure")
        } catch {
            let error = error as NSError
            XCTAssertEqual(error.code, -50000)
            let message = error.localizedDescription
            XCTAssertTrue(message.contains("'no-such-browser-xyz' was not found"), message)
            XCTAssertTrue(message.contains("'false' exited with status 1"), message)
            XCTAssertTrue(message.contains("browserCommand"), message)
        }
    }

    func testFirstCommandThatStartsWins() async throws {
        let browser = SystemBrowser(browserCommand: "false:true:no-such", environment: ["PATH": "/usr/bin:/bin"])
        try await browser.open(fixtureURL("https://login.example/authorize"), correlationId: nil)
    }
}
