import Foundation
import XCTest

@testable import MSAL

/// ``ProtectedResourceMetadata`` (RFC 9728) and ``ResourceAccessDecision``: without sockets.
final class ProtectedResourceMetadataTests: XCTestCase {
    private func problem(_ json: String) -> ProtectedResourceMetadata.Problem? {
        do {
            _ = try ProtectedResourceMetadata(body: Data(json.utf8))
            return nil
        } catch {
            return error
        }
    }

    func testReadsTheMembersItUses() throws {
        let metadata = try ProtectedResourceMetadata(
            body: Data(
                #"""
                {"resource":"https://mcp.example.com/mcp","authorization_servers":["https://as.example.com"],
                 "scopes_supported":["files:read","files:write"],"bearer_methods_supported":["header"],
                 "resource_name":"Files","x":1e30,"y":{"z":[1e400,-0]}}
                """#.utf8))
        XCTAssertEqual(metadata.resource, "https://mcp.example.com/mcp")
        XCTAssertEqual(metadata.authorizationServers, ["https://as.example.com"])
        XCTAssertEqual(metadata.scopesSupported, ["files:read", "files:write"])
        XCTAssertEqual(
            try ProtectedResourceMetadata(body: Data(#"{"resource":"https://r"}"#.utf8)).authorizationServers, [])
    }

    func testRefusesWrongTypesAndSizes() {
        XCTAssertEqual(problem("[]"), .notAnObject)
        XCTAssertEqual(problem("not json"), .notAnObject)
        XCTAssertEqual(problem("{}"), .invalidMember("resource"))
        XCTAssertEqual(problem(#"{"resource":1e30}"#), .invalidMember("resource"))
        XCTAssertEqual(problem(#"{"resource":""}"#), .invalidMember("resource"))
        XCTAssertEqual(
            problem(#"{"resource":"https://r","authorization_servers":"https://as"}"#),
            .invalidMember("authorization_servers"))
        XCTAssertEqual(
            problem(#"{"resource":"https://r","authorization_servers":[1e30]}"#),
            .invalidMember("authorization_servers"))
        XCTAssertEqual(
            problem(#"{"resource":"https://r","scopes_supported":[null]}"#), .invalidMember("scopes_supported"))
        let many = "[" + Array(repeating: "\"s\"", count: 65).joined(separator: ",") + "]"
        XCTAssertEqual(
            problem(#"{"resource":"https://r","scopes_supported":\#(many)}"#), .invalidMember("scopes_supported"))
        let big = #"{"resource":"https://r","pad":""# + String(repeating: "x", count: 65_536) + "\"}"
        XCTAssertEqual(problem(big), .tooLarge(big.utf8.count))
    }

    func testWellKnownURLInsertsThePath() throws {
        func url(_ resource: String) throws -> String {
            try ProtectedResourceMetadata.metadataURL(forResource: XCTUnwrap(URL(string: resource))).absoluteString
        }
        XCTAssertEqual(
            try url("https://api.example.com"), "https://api.example.com/.well-known/oauth-protected-resource")
        XCTAssertEqual(
            try url("https://api.example.com/"), "https://api.example.com/.well-known/oauth-protected-resource")
        XCTAssertEqual(
            try url("https://api.example.com/mcp"), "https://api.example.com/.well-known/oauth-protected-resource/mcp")
        XCTAssertEqual(
            try url("https://api.example.com:8443/a/b?x=1"),
            "https://api.example.com:8443/.well-known/oauth-protected-resource/a/b?x=1")
        for refused in [
            "http://api.example.com/mcp", "https://api.example.com/#f", "https://u@api.example.com/", "/mcp",
        ] {
            XCTAssertThrowsError(try url(refused), refused) {
                XCTAssertEqual($0 as? ProtectedResourceMetadata.Problem, .invalidResourceIdentifier)
            }
        }
        let loopback = try XCTUnwrap(URL(string: "http://127.0.0.1:8080/mcp"))
        XCTAssertEqual(
            try ProtectedResourceMetadata.metadataURL(
                forResource: loopback, plainHTTPOrigins: [HTTPOrigin(scheme: "http", host: "127.0.0.1", port: 8080)]
            ).absoluteString, "http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp")
        XCTAssertThrowsError(
            try ProtectedResourceMetadata.metadataURL(
                forResource: loopback, plainHTTPOrigins: [HTTPOrigin(scheme: "http", host: "127.0.0.1", port: 8081)]),
            "another loopback port is not the allowed origin")
    }

    func testSameResourceIsExactUpToAnEmptyPath() throws {
        let resource = try XCTUnwrap(URL(string: "https://api.example.com/mcp"))
        XCTAssertTrue(ProtectedResourceMetadata.sameResource("https://api.example.com/mcp", resource))
        XCTAssertFalse(ProtectedResourceMetadata.sameResource("https://api.example.com/mcp/", resource))
        XCTAssertFalse(ProtectedResourceMetadata.sameResource("https://api.example.com", resource))
        XCTAssertFalse(ProtectedResourceMetadata.sameResource("https://evil.example.com/mcp", resource))
        XCTAssertFalse(ProtectedResourceMetadata.sameResource("HTTPS://api.example.com/mcp", resource))
        let origin = try XCTUnwrap(URL(string: "https://graph.example.com"))
        XCTAssertTrue(ProtectedResourceMetadata.sameResource("https://graph.example.com/", origin))
        XCTAssertTrue(ProtectedResourceMetadata.sameResource("https://graph.example.com", origin))
    }
}

final class ResourceAccessDecisionTests: XCTestCase {
    private let resource = URL(string: "https://api.example.com/mcp")!

    private func plan(
        _ servers: [String], resourceValue: String = "https://api.example.com/mcp", scopes: [String] = [],
        supported: [String] = [], configured: String = "https://login.microsoftonline.com/common",
        origins: Set<HTTPOrigin> = []
    ) throws -> ResourceAccessPlan {
        let configuredAuthority =
            configured.contains("login") || configured.hasSuffix("/common")
            ? try Authority.aad(configured) : try Authority.oidc(issuer: configured)
        return try ResourceAccessDecision.plan(
            metadata: ProtectedResourceMetadata(
                resource: resourceValue, authorizationServers: servers, scopesSupported: supported),
            resource: resource, challengeScopes: scopes, configured: configuredAuthority, plainHTTPOrigins: origins)
    }

    func testEntraIssuerGivesTheTenantAndDotDefault() throws {
        let entra = try plan(["https://login.microsoftonline.com/72f988bf-86f1-41af-91ab-2d7cd011db47/v2.0"])
        XCTAssertTrue(entra.isEntra)
        XCTAssertEqual(
            entra.authority.urlString, "https://login.microsoftonline.com/72f988bf-86f1-41af-91ab-2d7cd011db47")
        XCTAssertEqual(entra.authority.aadTenantType != nil, true)
        XCTAssertEqual(entra.scopes, ["https://api.example.com/mcp/.default"])
        XCTAssertNil(entra.resourceParameter, "Entra v2 rejects RFC 8707 resource")
        let sts = try plan(["https://sts.windows.net/contoso.onmicrosoft.com/"])
        XCTAssertEqual(sts.authority.urlString, "https://login.microsoftonline.com/contoso.onmicrosoft.com")
        XCTAssertEqual(try plan(["https://login.microsoftonline.us"]).authority.realm, "organizations")
    }

    func testTheConfiguredEntraHostCountsAsEntra() throws {
        let emulator = try plan(
            ["https://127.0.0.1:9443/tenant-a/v2.0"], configured: "https://127.0.0.1:9443/common")
        XCTAssertTrue(emulator.isEntra)
        XCTAssertEqual(emulator.authority.urlString, "https://127.0.0.1:9443/tenant-a")
        let other = try plan(["https://127.0.0.1:9444/tenant-a/v2.0"], configured: "https://127.0.0.1:9443/common")
        XCTAssertFalse(other.isEntra, "another port is another server")
    }

    func testOtherServersGetRFC8707ResourceAndScopes() throws {
        let generic = try plan(["https://as.example.com/realms/demo"], scopes: ["files:read"], supported: ["a", "b"])
        XCTAssertFalse(generic.isEntra)
        XCTAssertEqual(generic.authority.kind.name, try Authority.oidc(issuer: "https://x").kind.name)
        XCTAssertEqual(generic.authority.urlString, "https://as.example.com/realms/demo")
        XCTAssertEqual(generic.resourceParameter, "https://api.example.com/mcp")
        XCTAssertEqual(generic.scopes, ["files:read"], "the challenge's scope first")
        XCTAssertEqual(try plan(["https://as.example.com"], supported: ["a", "b"]).scopes, ["a", "b"])
    }

    func testServerChoice() throws {
        XCTAssertEqual(
            try plan([
                "http://as.example.com", "https://user@as2.example.com", "https://as3.example.com/?q=1",
                "https://as4.example.com",
            ]).authority.urlString, "https://as4.example.com",
            "plain http, user information and queries are skipped")
        XCTAssertEqual(
            try plan(["https://as.example.com", "https://login.microsoftonline.com/t/v2.0"]).authority.urlString,
            "https://login.microsoftonline.com/t", "the configured authority's host is preferred")
        XCTAssertEqual(
            try plan(
                ["http://127.0.0.1:8080/t"], configured: "https://as.example.com",
                origins: [HTTPOrigin(scheme: "http", host: "127.0.0.1", port: 8080)]
            ).authority.urlString,
            "http://127.0.0.1:8080/t", "a known loopback origin")
        for servers in [[], ["http://as.example.com"], ["not a url"], ["http://127.0.0.1:8080/t"]] {
            XCTAssertThrowsError(try plan(servers), "\(servers)") {
                XCTAssertEqual($0 as? ProtectedResourceMetadata.Problem, .noAuthorizationServer)
            }
        }
    }

    func testMismatchedResourceIsRefused() {
        for value in ["https://evil.example.com/mcp", "https://api.example.com/other", "https://api.example.com"] {
            XCTAssertThrowsError(try plan(["https://login.microsoftonline.com/t"], resourceValue: value)) {
                XCTAssertEqual($0 as? ProtectedResourceMetadata.Problem, .resourceMismatch)
            }
        }
    }

    func testDefaultScope() {
        XCTAssertEqual(
            ResourceAccessDecision.defaultScope(forResource: "https://management.core.windows.net/"),
            "https://management.core.windows.net//.default")
        XCTAssertEqual(
            ResourceAccessDecision.defaultScope(forResource: "https://graph.microsoft.com"),
            "https://graph.microsoft.com/.default")
        XCTAssertEqual(
            ResourceAccessDecision.defaultScope(forResource: "api://my-api/"), "api://my-api//.default",
            "an app id URI ending in / keeps it, as Entra expects")
        XCTAssertEqual(
            ResourceAccessDecision.defaultScope(forResource: "https://a.example.com/mcp"),
            "https://a.example.com/mcp/.default")
    }
}
