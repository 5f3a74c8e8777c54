import XCTest

@testable import msal_cli

final class CommandLineArgumentsTests: XCTestCase {
    private let specifications: [String: CommandLineArguments.Specification] = [
        "": .init(valueOptions: ["client-id"], flagOptions: ["verbose"]),
        "token": .init(valueOptions: ["client-id", "scopes", "account"], flagOptions: ["json", "force-refresh"]),
        "login": .init(valueOptions: ["client-id", "scopes"], flagOptions: ["device-code"]),
    ]

    private func parse(_ arguments: [String]) throws -> CommandLineArguments {
        try CommandLineArguments.parse(arguments, specifications: specifications)
    }

    func testCommandValuesAndFlags() throws {
        let parsed = try parse(["token", "--scopes", "a b", "--json", "--account=alice@contoso.com", "--force-refresh"])
        XCTAssertEqual(parsed.command, "token")
        XCTAssertEqual(parsed.values, ["scopes": "a b", "account": "alice@contoso.com"])
        XCTAssertEqual(parsed.flags, ["json", "force-refresh"])
    }

    func testEnvironmentFallbackAndPrecedence() throws {
        let environment = ["MSAL_CLIENT_ID": "from-env"]
        XCTAssertEqual(
            try parse(["token"]).value("client-id", environment: environment, variable: "MSAL_CLIENT_ID"), "from-env")
        XCTAssertEqual(
            try parse(["token", "--client-id", "flag"]).value(
                "client-id", environment: environment, variable: "MSAL_CLIENT_ID"),
            "flag")
        XCTAssertNil(
            try parse(["token"]).value("client-id", environment: ["MSAL_CLIENT_ID": ""], variable: "MSAL_CLIENT_ID"))
    }

    func testHelpAndDoubleDash() throws {
        XCTAssertTrue(try parse(["login", "--help"]).flag("help"))
        XCTAssertTrue(try parse(["-h"]).flag("help"))
        XCTAssertEqual(try parse(["token", "--", "--json"]).positional, ["--json"])
    }

    func testUsageErrors() {
        let cases: [([String], String)] = [
            (["frobnicate"], "unknown command 'frobnicate'"),
            (["token", "--nope"], "unknown option '--nope' for 'token'"),
            (["token", "--scopes"], "--scopes needs a value"),
            (["token", "--scopes", "--json"], "--scopes needs a value"),
            (["token", "--json=yes"], "--json takes no value"),
            (["token", "-x"], "unknown option '-x' (options start with --)"),
            (["login", "--json"], "unknown option '--json' for 'login'"),
        ]
        for (arguments, message) in cases {
            XCTAssertThrowsError(try parse(arguments), "\(arguments)") { error in
                XCTAssertEqual((error as? CommandLineArguments.UsageError)?.description, message)
            }
        }
    }
}

final class CommandLineArgumentsExtrasTests: XCTestCase {
    func testPositionalIntegerAndMergedSpecifications() throws {
        let specification = CommandLineArguments.Specification(valueOptions: ["port"], flagOptions: [])
            .adding(.init(valueOptions: ["scopes"], flagOptions: ["json"]))
        XCTAssertEqual(specification.valueOptions, ["port", "scopes"])
        XCTAssertEqual(specification.flagOptions, ["json"])
        let table = ["emulator": specification]
        let parsed = try CommandLineArguments.parse(["emulator", "--port", "8443"], specifications: table)
        XCTAssertEqual(try parsed.integer("port", in: 0...65535), 8443)
        XCTAssertNil(try parsed.integer("scopes", in: 0...1))
        let bad = try CommandLineArguments.parse(["emulator", "--port=x"], specifications: table)
        XCTAssertThrowsError(try bad.integer("port", in: 0...65535)) { error in
            XCTAssertEqual(
                (error as? CommandLineArguments.UsageError)?.description,
                "--port needs a number from 0 to 65535, not 'x'")
        }
        let extra = try CommandLineArguments.parse(["emulator", "more"], specifications: table)
        XCTAssertThrowsError(try extra.rejectingPositional())
        XCTAssertNoThrow(try parsed.rejectingPositional())
    }
}
