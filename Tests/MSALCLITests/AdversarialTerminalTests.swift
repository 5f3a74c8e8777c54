import Foundation
import MSALTestSupport
import XCTest

/// Server text reaches the terminal as data: an `error_description`, a suberror or a device code
/// message with escape sequences (clear the screen, retitle the window, ring the bell) is printed
/// with those characters escaped, never as terminal control.
final class AdversarialTerminalTests: XCTestCase {
    private var environment: CLITestEnvironment!
    /// Clears the screen, sets the window title, rings the bell, colours red and reverses the text.
    private static let hostile = "\u{1B}[2J\u{1B}]0;owned\u{07}\u{9B}31m\u{202E}evil\r\n[msal] forged"

    override func setUpWithError() throws {
        environment = try CLITestEnvironment()
    }

    override func tearDown() {
        environment?.tearDown()
    }

    /// No byte of `text` is a control character other than a line feed.
    private func assertNoControl(_ text: String, _ what: String, line: UInt = #line) {
        let controls = text.unicodeScalars.filter {
            $0 != "\n" && ($0.value < 0x20 || (0x7F...0x9F).contains($0.value) || (0x202A...0x202E).contains($0.value))
        }
        XCTAssertTrue(
            controls.isEmpty, "\(what) holds control characters \(controls.map(\.value)): \(text)", line: line)
    }

    func testTheDeviceCodeMessageIsEscaped() throws {
        environment.emulator.inject(
            .rewriteFields(["message": EmulatorFault.jsonString("To sign in, \(Self.hostile) enter the code X1")]),
            at: .deviceCode)
        let login = try environment.start(["login", "--device-code", "--scopes", "User.Read"])
        XCTAssertNotNil(try login.waitForOutput("enter the code X1", inErrorOutput: true), login.currentErrorOutput)
        login.send(SIGINT)
        let result = login.finish(timeout: 10)
        assertNoControl(result.output, "standard output")
        assertNoControl(result.errorOutput, "standard error")
        XCTAssertTrue(
            result.errorOutput.contains("To sign in, \\u{1B}[2J\\u{1B}]0;owned\\u{7}\\u{9B}31m\\u{202E}evil"),
            result.errorOutput)
        XCTAssertTrue(result.errorOutput.contains("evil\n[msal] forged"), "line feeds are kept: \(result.errorOutput)")
        XCTAssertEqual(result.output, "", "the device code message is no result: standard error only")
    }

    func testErrorDescriptionAndSuberrorAreEscaped() throws {
        environment.emulator.inject(
            .oauthError(
                EntraErrorResponse(
                    error: "invalid_request", code: 90014, message: "Request refused. \(Self.hostile)",
                    suberror: "bad_token\u{1B}[8m")),
            at: .deviceCode)
        let result = try environment.run(["login", "--device-code", "--scopes", "User.Read"])
        XCTAssertNotEqual(result.status, 0, result.errorOutput)
        assertNoControl(result.output, "standard output")
        assertNoControl(result.errorOutput, "standard error")
        XCTAssertTrue(result.errorOutput.contains("Request refused. \\u{1B}[2J\\u{1B}]0;owned"), result.errorOutput)
        XCTAssertTrue(result.errorOutput.contains("suberror: bad_token\\u{1B}[8m"), result.errorOutput)
    }
}
