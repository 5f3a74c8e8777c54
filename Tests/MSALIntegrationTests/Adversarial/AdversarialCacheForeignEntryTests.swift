import Foundation
import MSAL
import MSALTestSupport
import XCTest

/// Entries of other apps and other MSALs that we do not understand, and sections whose shape or
/// spelling we do not expect: a save through our library keeps the first byte for byte and
/// never writes a member name twice.
final class AdversarialCacheForeignEntryTests: AdversarialCacheCase {
    /// Entries as other programs wrote them, key and value exactly as on disk (odd spacing,
    /// escapes and member order included, so a re-serialization would not match).
    private static let foreign: [(section: String, key: String, value: String)] = [
        // MSAL for Python, confidential client: no account.
        (
            "AccessToken",
            "-login.microsoftonline.com-accesstoken-6f1c2d3e-0000-4000-8000-00000000c0de-contoso-https://graph.microsoft.com/.default",
            #"{ "home_account_id" : null, "environment": "login.microsoftonline.com", "credential_type": "AccessToken", "client_id": "6f1c2d3e-0000-4000-8000-00000000c0de", "secret": "conf\u0069dential-at", "realm": "contoso", "target": "https://graph.microsoft.com/.default", "token_type": "Bearer", "cached_at": "1796000000", "expires_on": "2796003600", "extended_expires_on": "2796003600"}"#
        ),
        // Another app's refresh token whose target is a JSON array.
        (
            "RefreshToken",
            "uid.utid-login.microsoftonline.com-refreshtoken-7a8b9c0d-0000-4000-8000-00000000beef--",
            #"{"credential_type":"RefreshToken","secret":"other-app-rt","home_account_id":"uid.utid","environment":"login.microsoftonline.com","client_id":"7a8b9c0d-0000-4000-8000-00000000beef","target":["User.Read",  "Mail.Read"],"last_modification_time":"1796000000"}"#
        ),
        // Entries that are not objects.
        ("AccessToken", "not-an-object", #"[1, 2,3]"#),
        ("IdToken", "a-string", #""just a string\n""#),
    ]

    /// The document: the foreign entries and nothing of ours.
    private static var document: String {
        let sections = Dictionary(grouping: foreign, by: \.section)
        let body = sections.keys.sorted().map { section in
            let entries = sections[section]!.map { "    \(quoted($0.key)) :  \($0.value)" }.joined(separator: ",\n")
            return "  \(quoted(section)): {\n\(entries)\n  }"
        }
        return "{\n" + body.joined(separator: ",\n") + "\n}\n"
    }

    private static func quoted(_ text: String) -> String {
        "\"" + text + "\""
    }

    func testEntriesWeDoNotUnderstandSurviveASaveByteForByte() async throws {
        try Data(Self.document.utf8).write(to: cacheFile)
        let result = try await signIn()

        let written = try String(contentsOf: cacheFile, encoding: .utf8)
        XCTAssertTrue(written.contains(result.account.identifier ?? "?"), "the file was rewritten with our sign-in")
        for entry in Self.foreign {
            // The key and the value exactly as written; only the separator between them may differ.
            let pattern =
                NSRegularExpression.escapedPattern(for: Self.quoted(entry.key)) + #"\s*:\s*"#
                + NSRegularExpression.escapedPattern(for: entry.value)
            let found = written.range(of: pattern, options: .regularExpression) != nil
            XCTAssertTrue(found, "\(entry.section) \(entry.key) kept byte for byte: \(entry.value)\nin:\n\(written)")
        }
    }

    /// `"AccessToken": []` (a section of the wrong type): our save must not add a second
    /// `AccessToken` member, and MSAL for Python reads our token.
    func testSectionOfTheWrongTypeIsNotWrittenTwice() async throws {
        let python = try MSALPython.require()
        try Data(#"{"AccessToken": [], "Account": {}}"#.utf8).write(to: cacheFile)
        let result = try await signIn()

        let inspected = try inspect(python)
        XCTAssertEqual(inspected["duplicates"] as? [String], [], "no member name twice in one object")
        XCTAssertNil(inspected["error"] as? String, "the file is JSON")
        XCTAssertNil(inspected["msal_error"] as? String, "MSAL for Python reads it")
        let tokens = (inspected["access_tokens"] as? [String: [String]]) ?? [:]
        XCTAssertEqual(tokens[result.account.identifier ?? ""], [result.accessToken], "MSAL for Python reads our token")
    }

    /// A section name written with an escape (`"App\u004detadata"` is `AppMetadata`): our save
    /// must not write `AppMetadata` a second time; MSAL for Python finds both apps' metadata in it.
    func testSectionNameWrittenWithAnEscapeIsNotWrittenTwice() async throws {
        let python = try MSALPython.require()
        let otherApp = "appmetadata-login.microsoftonline.com-7a8b9c0d-0000-4000-8000-00000000beef"
        try Data(
            (#"{"App\u004detadata": {""# + otherApp
                + #"": {"client_id": "7a8b9c0d-0000-4000-8000-00000000beef", "environment": "login.microsoftonline.com", "family_id": ""}}}"#)
                .utf8
        ).write(to: cacheFile)
        try await signIn()

        let inspected = try inspect(python)
        XCTAssertEqual(inspected["duplicates"] as? [String], [], "no member name twice in one object")
        XCTAssertNil(inspected["error"] as? String, "the file is JSON")
        XCTAssertNil(inspected["msal_error"] as? String, "MSAL for Python reads it")
        let sections = (inspected["sections"] as? [String: Any]) ?? [:]
        let metadata = (sections["AppMetadata"] as? [String]) ?? []
        XCTAssertTrue(metadata.contains(otherApp), "the other app's metadata is in AppMetadata: \(sections)")
        XCTAssertTrue(
            metadata.contains { $0.hasSuffix(EmulatorClient.sample.clientId) }, "ours is in it too: \(sections)")
    }

    private func inspect(_ python: MSALPython) throws -> [String: Any] {
        let script = MSALPython.packageRoot.appendingPathComponent("Tests/Interop/msal_extensions_soak.py")
        return try python.runScript(script, ["inspect", "--cache", cacheFile.path])
    }
}
