import Foundation
import Glibc
import MSALTestSupport
import XCTest

/// `MSAL_CACHE` / `--cache` naming a file that is not a token cache, through a symbolic link or
/// not (issue 33, item 1): `msal` never renames, replaces or writes it, and says why.
final class AdversarialCLICacheLinkTests: XCTestCase {
    private var environment: CLITestEnvironment!

    override func setUpWithError() throws {
        environment = try CLITestEnvironment()
    }

    override func tearDown() {
        environment?.tearDown()
    }

    /// `/tmp/msal_cache.json -> ~/.bashrc`: `msal login` used to move the shell script aside
    /// (`.bashrc.corrupt-<time>`), make `.bashrc.lock` beside it and write tokens in its place
    /// (new inode, mode 0600), and `login` and `token` both exited 0.
    func testALinkToAShellScriptIsNeverRenamedReplacedOrWritten() throws {
        let home = environment.directory.appendingPathComponent("home")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        let bashrc = home.appendingPathComponent(".bashrc").path
        let script = "# ~/.bashrc\nexport PATH=\"$HOME/bin:$PATH\"\nalias ll='ls -l'\n"
        XCTAssertTrue(
            FileManager.default.createFile(
                atPath: bashrc, contents: Data(script.utf8), attributes: [.posixPermissions: 0o644]))
        try FileManager.default.createSymbolicLink(atPath: environment.cacheFile, withDestinationPath: bashrc)
        let before = Self.identity(bashrc)

        let login = try environment.deviceCodeLogin(as: EmulatorUser.alice.username)
        XCTAssertNotEqual(login.status, 0, "login refuses: \(login.errorOutput)")
        XCTAssertTrue(login.errorOutput.contains("not a token cache"), login.errorOutput)
        XCTAssertTrue(
            login.errorOutput.contains(environment.cacheFile) || login.errorOutput.contains(bashrc),
            "the error names the path: \(login.errorOutput)")

        let token = try environment.run(["token", "--scopes", "User.Read"])
        XCTAssertNotEqual(token.status, 0, token.output)
        XCTAssertEqual(token.output, "")
        XCTAssertTrue(token.errorOutput.contains("not a token cache"), "the same reason: \(token.errorOutput)")

        XCTAssertEqual(try String(contentsOfFile: bashrc, encoding: .utf8), script, "the script is unchanged")
        XCTAssertEqual(Self.identity(bashrc), before, "same inode, same mode")
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: home.path), [".bashrc"],
            "no .corrupt-*, .lock or temporary file beside the link's target")
        XCTAssertEqual(
            try FileManager.default.destinationOfSymbolicLink(atPath: environment.cacheFile), bashrc, "still the link")
    }

    /// `msal doctor` says that the cache path is a symbolic link, and where it points.
    func testDoctorSaysTheCachePathIsALink() throws {
        let target = environment.directory.appendingPathComponent("dotfiles-cache.json").path
        try Data("{}".utf8).write(to: URL(fileURLWithPath: target))
        try FileManager.default.createSymbolicLink(atPath: environment.cacheFile, withDestinationPath: target)
        let doctor = try environment.run(["doctor", "-o", "text"])
        XCTAssertTrue(doctor.output.contains("symbolic link"), doctor.output)
        XCTAssertTrue(doctor.output.contains(target), doctor.output)
    }

    /// (inode, mode) of `path`, following links.
    static func identity(_ path: String) -> [UInt64] {
        var info = stat()
        guard stat(path, &info) == 0 else { return [] }
        return [UInt64(info.st_ino), UInt64(info.st_mode & 0o7777)]
    }
}
