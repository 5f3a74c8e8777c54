import Foundation
import MSAL
import XCTest

@testable import msal_cli

/// The tool's decisions as values: the browser plan, the progress style, the nearest spelling,
/// the account used without `--account`, and the options Azure CLI users type.
final class CLIDecisionTests: XCTestCase {
    func testBrowserPlan() {
        typealias Plan = BrowserSignIn.Plan
        let cases: [([String: String], Bool, Plan)] = [
            (["BROWSER": "firefox"], false, .browser),
            (["DISPLAY": ":0"], false, .browser),
            (["WAYLAND_DISPLAY": "wayland-0"], true, .browser),
            ([:], true, .printAddress),
            (["BROWSER": "", "DISPLAY": ""], true, .printAddress),
            ([:], false, .fail),
            (["DISPLAY": "", "WAYLAND_DISPLAY": ""], false, .fail),
        ]
        for (environment, terminal, plan) in cases {
            XCTAssertEqual(
                BrowserSignIn.plan(environment: environment, standardErrorIsTerminal: terminal), plan,
                "\(environment) terminal \(terminal)")
        }
        let url = URL(
            string: "https://login.microsoftonline.com/common/oauth2/v2.0/authorize?client_id=x&"
                + "redirect_uri=http%3A%2F%2Flocalhost%3A53117&state=s")!
        XCTAssertEqual(BrowserSignIn.redirectPort(url), 53117)
        let message = BrowserSignIn.addressMessage(url, reason: "no $BROWSER and no display")
        XCTAssertTrue(message.contains("ssh -L 53117:localhost:53117"), message)
        XCTAssertTrue(message.contains("\n  \(url.absoluteString)\n"), message)
    }

    func testProgressAnimatesOnlyOnACapableTerminal() {
        XCTAssertTrue(DeviceCodeProgress.animates(standardErrorIsTerminal: true, term: "xterm-256color"))
        XCTAssertFalse(DeviceCodeProgress.animates(standardErrorIsTerminal: true, term: "dumb"))
        XCTAssertFalse(DeviceCodeProgress.animates(standardErrorIsTerminal: true, term: nil))
        XCTAssertFalse(DeviceCodeProgress.animates(standardErrorIsTerminal: true, term: ""))
        XCTAssertFalse(DeviceCodeProgress.animates(standardErrorIsTerminal: false, term: "xterm"))
    }

    func testNearestSpelling() {
        let names: Set = ["scopes", "account", "force-refresh", "output", "resource", "tenant"]
        XCTAssertEqual(CommandLineArguments.nearest(to: "scops", among: names), "scopes")
        XCTAssertEqual(CommandLineArguments.nearest(to: "acount", among: names), "account")
        XCTAssertEqual(CommandLineArguments.nearest(to: "force", among: names), "force-refresh")
        XCTAssertEqual(CommandLineArguments.nearest(to: "tennat", among: names), "tenant")
        XCTAssertEqual(CommandLineArguments.nearest(to: "ouptut", among: names), "output")
        XCTAssertNil(CommandLineArguments.nearest(to: "subscription", among: names))
        XCTAssertEqual(CommandLineArguments.editDistance("kitten", "sitting"), 3)
        XCTAssertEqual(CommandLineArguments.editDistance("ab", "ba"), 1)
        XCTAssertEqual(CommandLineArguments.editDistance("", "abc"), 3)
    }

    func testAResourceIndicatorIsAnAbsoluteHTTPSURIWithoutFragment() {
        for good in [
            "https://api.example.com", "https://api.example.com/", "https://mcp.example.com/mcp",
            "https://127.0.0.1:8443/api?v=2", "HTTPS://API.EXAMPLE.COM/x",
        ] {
            XCTAssertNil(TokenTarget.indicatorProblem(good), good)
        }
        for (bad, problem) in [
            ("", "is empty"), ("api.example.com/x", "is not an absolute URI"), ("/relative", "is not an absolute URI"),
            ("http://api.example.com", "is not an https URI"), ("api://4f3c-guid", "is not an https URI"),
            ("urn:example:api", "is not an https URI"), ("https:///path", "has no host"),
            ("https://api.example.com/x#part", "has a fragment"), ("https://api.example.com/#", "has a fragment"),
            ("https://api.example.com/a b", "holds a space"), ("https://api.example.com/\u{1B}[2J", "control"),
        ] {
            XCTAssertTrue(TokenTarget.indicatorProblem(bad)?.contains(problem) == true, "\(bad): \(problem)")
        }
    }

    func testAResourceIsTheDefaultScopeForEntraAndAnIndicatorElsewhere() throws {
        let specifications = Tool.specifications
        func target(_ arguments: [String], _ authority: String?, required: Bool = true) throws -> TokenTarget {
            let parsed = try CommandLineArguments.parse(arguments, specifications: specifications)
            let authority = try authority.map { try MSALAuthority.authority(with: URL(string: $0)!) }
            return try TokenTarget.parse(parsed, authority: authority, scopesRequired: required)
        }
        let adfs = "https://adfs.contoso.com/adfs"
        let oidc = "https://idp.example.com"
        for entra in [nil, "https://login.microsoftonline.com/contoso.com", "https://contoso.ciamlogin.com"] {
            XCTAssertEqual(
                try target(["login", "--resource", "https://api.example.com"], entra, required: false),
                .init(scopes: ["https://api.example.com/.default"]))
            XCTAssertEqual(
                try target(["token", "--resource", "api://4f3c"], entra), .init(scopes: ["api://4f3c/.default"]))
        }
        XCTAssertEqual(
            try target(["token", "--resource", "https://api.example.com", "--scopes", "api.read"], adfs),
            .init(scopes: ["api.read"], resourceIndicator: "https://api.example.com"))
        XCTAssertEqual(
            try target(["login", "--device-code", "--resource", "https://api.example.com"], oidc, required: false),
            .init(scopes: [], resourceIndicator: "https://api.example.com"))
        XCTAssertEqual(try target(["login"], adfs, required: false), .init(scopes: []))

        let refusals: [([String], String?, String)] = [
            (["token", "--resource", "api://4f3c"], adfs, "is not an https URI"),
            (["login", "--resource", "https://api.example.com/#x"], oidc, "has a fragment"),
            (
                ["token", "--resource", "https://a.example", "--resource", "https://b.example"], oidc,
                "give one --resource"
            ),
            (["token", "--resource", "https://a.example", "--scopes", "x"], nil, "not both"),
            (["token"], adfs, "--scopes (or --resource) is required"),
        ]
        for (arguments, authority, message) in refusals {
            XCTAssertThrowsError(try target(arguments, authority, required: arguments[0] == "token"), "\(arguments)") {
                XCTAssertTrue("\($0)".contains(message), "\(arguments): \($0)")
            }
        }
    }

    func testAzureCLISpellingsAndOutputFormats() throws {
        let specifications = Tool.specifications
        let scope = try CommandLineArguments.parse(["token", "--scope", "a b"], specifications: specifications)
        XCTAssertEqual(try TokenTarget.parse(scope, authority: nil, scopesRequired: true), .init(scopes: ["a", "b"]))
        for (resource, expected) in [
            ("https://management.azure.com", "https://management.azure.com/.default"),
            ("https://management.core.windows.net/", "https://management.core.windows.net/.default"),
        ] {
            let parsed = try CommandLineArguments.parse(
                ["token", "--resource", resource], specifications: specifications)
            XCTAssertEqual(
                try TokenTarget.parse(parsed, authority: nil, scopesRequired: true), .init(scopes: [expected]))
        }
        let json = try CommandLineArguments.parse(["-o", "JSON", "accounts"], specifications: specifications)
        XCTAssertEqual(try OutputFormat(json), .json)
        let legacy = try CommandLineArguments.parse(["accounts", "--json"], specifications: specifications)
        XCTAssertEqual(try OutputFormat(legacy), .json)
        let both = try CommandLineArguments.parse(["accounts", "--json", "-o", "tsv"], specifications: specifications)
        XCTAssertThrowsError(try OutputFormat(both))
        XCTAssertEqual(
            try ApplicationOptions.tenantAuthority("contoso.onmicrosoft.com", in: nil),
            "https://login.microsoftonline.com/contoso.onmicrosoft.com")
        let usGov = try MSALAuthority.authority(with: URL(string: "https://login.microsoftonline.us/common")!)
        XCTAssertEqual(try ApplicationOptions.tenantAuthority("t", in: usGov), "https://login.microsoftonline.us/t")
        let b2c = try MSALAuthority.authority(
            with: URL(string: "https://contoso.b2clogin.com/tfp/contoso.onmicrosoft.com/B2C_1_x")!)
        XCTAssertThrowsError(try ApplicationOptions.tenantAuthority("t", in: b2c))
        XCTAssertThrowsError(try ApplicationOptions.tenantAuthority("a/b", in: nil))
        XCTAssertThrowsError(try ApplicationOptions.tenantAuthority("cöntoso.com", in: nil))
        XCTAssertEqual(
            try ApplicationOptions.tenantAuthority("8d2f5e1a-3b4c-4d6e-9f70-a1b2c3d4e5f6", in: nil),
            "https://login.microsoftonline.com/8d2f5e1a-3b4c-4d6e-9f70-a1b2c3d4e5f6")
    }

    func testRepeatedOptionsKeepEveryValue() throws {
        let parsed = try CommandLineArguments.parse(
            ["token", "--known-authority", "https://a.example/t", "--known-authority=https://b.example/t"],
            specifications: Tool.specifications)
        XCTAssertEqual(parsed.allValues["known-authority"], ["https://a.example/t", "https://b.example/t"])
        let options = try ApplicationOptions(parsed, environment: ["MSAL_CLIENT_ID": "id"])
        XCTAssertEqual(options.knownAuthorities.map(\.url.host), ["a.example", "b.example"])
        let fromEnvironment = try ApplicationOptions(
            try CommandLineArguments.parse(["token", "--no-instance-discovery"], specifications: Tool.specifications),
            environment: ["MSAL_CLIENT_ID": "id", "MSAL_KNOWN_AUTHORITIES": "https://c.example/t, https://d.example/t"])
        XCTAssertEqual(
            fromEnvironment.knownAuthorities.map(\.url.host),
            ["c.example", "d.example", "login.microsoftonline.com"], "the authority in use is trusted too")
    }

    func testDefaultsDocumentOfTheRightShapeOnly() throws {
        let full = try XCTUnwrap(
            DefaultAccount.Document(
                json: Array(
                    #"{"default_accounts":{"c1":"a.b"},"cache_backend":"kernel-keyring","plaintext_warning_shown":true}"#
                        .utf8)))
        XCTAssertEqual(full.defaultAccounts, ["c1": "a.b"])
        XCTAssertEqual(full.cacheBackend, "kernel-keyring")
        XCTAssertEqual(full.plaintextWarningShown, true)
        let bare = try XCTUnwrap(
            DefaultAccount.Document(json: Array(#"{"default_accounts":{},"cache_backend":null}"#.utf8)))
        XCTAssertNil(bare.cacheBackend)
        XCTAssertNil(bare.plaintextWarningShown)
        for malformed in [
            "", "[]", "{}", #"{"default_accounts":[]}"#, #"{"default_accounts":{"c1":1}}"#,
            #"{"default_accounts":{},"cache_backend":1}"#, #"{"default_accounts":{},"plaintext_warning_shown":1}"#,
            #"{"default_accounts":{}} x"#,
        ] {
            XCTAssertNil(DefaultAccount.Document(json: Array(malformed.utf8)), malformed)
        }
    }

    func testDefaultsFileBesideTheCache() {
        XCTAssertEqual(
            DefaultAccount.file(cacheFile: "/x/y/msal_cache.json", environment: [:]).path, "/x/y/msal_cli_defaults.json"
        )
        XCTAssertEqual(
            DefaultAccount.file(cacheFile: nil, environment: ["XDG_DATA_HOME": "/d", "HOME": "/h"]).path,
            "/d/msal/com.microsoft.identity.universalstorage/msal_cli_defaults.json")
        XCTAssertEqual(
            DefaultAccount.file(cacheFile: nil, environment: ["XDG_DATA_HOME": "relative", "HOME": "/h"]).path,
            "/h/.local/share/msal/com.microsoft.identity.universalstorage/msal_cli_defaults.json")
        XCTAssertEqual(
            DefaultAccount.file(cacheFile: nil, environment: ["XDG_DATA_HOME": "/d/"]).path,
            "/d/msal/com.microsoft.identity.universalstorage/msal_cli_defaults.json")
        XCTAssertEqual(DefaultAccount.file(cacheFile: "/c.json", environment: [:]).path, "/msal_cli_defaults.json")
        XCTAssertEqual(
            DefaultAccount.file(cacheFile: "c.json", environment: [:]).path,
            FileManager.default.currentDirectoryPath + "/msal_cli_defaults.json")
    }
}
