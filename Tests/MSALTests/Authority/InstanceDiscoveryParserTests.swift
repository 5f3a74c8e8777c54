import Foundation
import XCTest

@testable import MSAL

final class InstanceDiscoveryParserTests: XCTestCase {
    private let endpoint = "https://login.microsoftonline.com/common/v2.0/.well-known/openid-configuration"

    private func parse(_ json: String, environment: String = "login.microsoftonline.com") throws
        -> InstanceDiscoveryMetadata
    {
        try InstanceDiscoveryParser.parse(Data(json.utf8), requestedEnvironment: environment)
    }

    /// Whether the typed failure of `json` is the `invalid_instance` answer.
    private func isInvalidInstance(_ json: String) -> Bool {
        do {
            _ = try InstanceDiscoveryParser.read(Data(json.utf8), requestedEnvironment: "login.microsoftonline.com")
            return false
        } catch {
            return InstanceDiscoveryParser.isInvalidInstance(error)
        }
    }

    func testPublicCloudAliases() throws {
        let metadata = try parse(
            """
            {"tenant_discovery_endpoint": "\(endpoint)", "api-version": "1.1",
             "metadata": [
              {"preferred_network": "login.microsoftonline.com", "preferred_cache": "login.windows.net",
               "aliases": ["login.microsoftonline.com", "login.windows.net", "login.microsoft.com", "sts.windows.net"]},
              {"preferred_network": "login.partner.microsoftonline.cn", "preferred_cache": "login.partner.microsoftonline.cn",
               "aliases": ["login.partner.microsoftonline.cn", "login.chinacloudapi.cn"]}]}
            """)
        XCTAssertEqual(metadata.tenantDiscoveryEndpoint.absoluteString, endpoint)
        XCTAssertEqual(metadata.records.count, 6)
        for alias in ["login.microsoftonline.com", "login.windows.net", "login.microsoft.com", "sts.windows.net"] {
            XCTAssertEqual(metadata.preferredNetwork(for: alias), "login.microsoftonline.com")
            XCTAssertEqual(metadata.preferredCache(for: alias.uppercased()), "login.windows.net")
        }
        XCTAssertEqual(metadata.preferredNetwork(for: "login.chinacloudapi.cn"), "login.partner.microsoftonline.cn")
        XCTAssertEqual(
            metadata.cacheLookupEnvironments(for: "login.microsoftonline.com"),
            ["login.windows.net", "login.microsoftonline.com", "login.microsoft.com", "sts.windows.net"])
        XCTAssertEqual(
            metadata.cacheLookupEnvironments(for: "login.windows.net"),
            ["login.windows.net", "login.microsoftonline.com", "login.microsoft.com", "sts.windows.net"])
        XCTAssertEqual(
            metadata.cacheLookupEnvironments(for: "sts.windows.net"),
            ["login.windows.net", "sts.windows.net", "login.microsoftonline.com", "login.microsoft.com"])
        XCTAssertEqual(metadata.cacheLookupEnvironments(for: "unknown.example.com"), ["unknown.example.com"])
        XCTAssertEqual(metadata.aliases(of: "login.microsoft.com").count, 4)
    }

    func testRequestedEnvironmentIsAddedWhenNotListed() throws {
        for json in [
            #"{"tenant_discovery_endpoint": "https://login.contoso.com/t/v2.0/.well-known/openid-configuration"}"#,
            #"{"tenant_discovery_endpoint": "https://login.contoso.com/t/v2.0/.well-known/openid-configuration", "metadata": null}"#,
            #"{"tenant_discovery_endpoint": "https://login.contoso.com/t/v2.0/.well-known/openid-configuration", "metadata": []}"#,
            #"{"tenant_discovery_endpoint": "https://login.contoso.com/t/v2.0/.well-known/openid-configuration", "metadata": [{"preferred_network": "a.com", "preferred_cache": "b.com", "aliases": ["a.com", "b.com"]}]}"#,
        ] {
            let metadata = try parse(json, environment: "Login.Contoso.com:8443")
            XCTAssertEqual(
                metadata.record(for: "login.contoso.com:8443"),
                AuthorityAliasRecord(
                    preferredNetwork: "login.contoso.com:8443", preferredCache: "login.contoso.com:8443",
                    aliases: ["login.contoso.com:8443"]), json)
            XCTAssertEqual(metadata.preferredNetwork(for: "login.contoso.com:8443"), "login.contoso.com:8443")
        }
    }

    func testHostsAreLowercasedAndPortsKept() throws {
        let metadata = try parse(
            #"{"tenant_discovery_endpoint": "https://localhost:8443/t/v2.0/.well-known/openid-configuration", "metadata": [{"preferred_network": "LOCALHOST:8443", "preferred_cache": "[::1]:8443", "aliases": ["localhost:8443", "[::1]:8443", "localhost:8443"]}]}"#,
            environment: "localhost:8443")
        let record = try XCTUnwrap(metadata.record(for: "localhost:8443"))
        XCTAssertEqual(record.preferredNetwork, "localhost:8443")
        XCTAssertEqual(record.preferredCache, "[::1]:8443")
        XCTAssertEqual(record.aliases, ["localhost:8443", "[::1]:8443"])
    }

    func testErrorBodiesAreValidationFailures() throws {
        let invalidInstance =
            #"{"error": "invalid_instance", "error_description": "AADSTS50049: Unknown or invalid instance.", "error_codes": [50049]}"#
        assertMSALFailure(
            try parse(invalidInstance), internalCode: -42_010,
            message: "Instance discovery rejected the authority (invalid_instance: AADSTS50049: Unknown or invalid "
                + "instance.). Check the authority URL, or list the authority in knownAuthorities when it is a host you trust."
        )
        do {
            _ = try parse(invalidInstance)
        } catch {
            XCTAssertEqual((error as NSError).userInfo[MSALOAuthErrorKey] as? String, "invalid_instance")
        }
        XCTAssertTrue(isInvalidInstance(invalidInstance))
        for json in [
            #"{"error": "server_error"}"#, #"{"error": 42, "tenant_discovery_endpoint": "https://a.com/x"}"#,
            #"{"error": "invalid_request", "error_description": "bad"}"#,
        ] {
            assertMSALFailure(try parse(json), internalCode: -42_010, json)
            XCTAssertFalse(isInvalidInstance(json), json)
        }
        XCTAssertNoThrow(try parse(#"{"error": null, "tenant_discovery_endpoint": "https://a.com/x"}"#))
    }

    func testInvalidResponses() {
        let good = #""tenant_discovery_endpoint": "https://a.com/x""#
        let table: [String] = [
            "", "not json", "[]", #"["tenant_discovery_endpoint"]"#, "\"text\"", "42", "null", "{}",
            #"{"tenant_discovery_endpoint": 42}"#, #"{"tenant_discovery_endpoint": true}"#,
            #"{"tenant_discovery_endpoint": ["https://a.com"]}"#,
            #"{"tenant_discovery_endpoint": "http://a.com/x"}"#,
            #"{"tenant_discovery_endpoint": "not a url"}"#,
            #"{"tenant_discovery_endpoint": "/relative/path"}"#,
            "{\(good), \"metadata\": {}}", "{\(good), \"metadata\": \"x\"}", "{\(good), \"metadata\": [1]}",
            "{\(good), \"metadata\": [{}]}",
            "{\(good), \"metadata\": [{\"preferred_network\": \"a.com\", \"preferred_cache\": \"a.com\"}]}",
            "{\(good), \"metadata\": [{\"preferred_network\": \"a.com\", \"preferred_cache\": \"a.com\", \"aliases\": \"a.com\"}]}",
            "{\(good), \"metadata\": [{\"preferred_network\": \"a.com\", \"preferred_cache\": \"a.com\", \"aliases\": [1]}]}",
            "{\(good), \"metadata\": [{\"preferred_network\": 1, \"preferred_cache\": \"a.com\", \"aliases\": []}]}",
            "{\(good), \"metadata\": [{\"preferred_network\": \"a.com\", \"preferred_cache\": true, \"aliases\": []}]}",
        ]
        for json in table {
            assertMSALFailure(try parse(json), internalCode: -42_600, json)
        }
    }

    func testBadHostsRejectEverything() {
        let badHosts = [
            "", " ", "a com", "a.com/path", "https://a.com", "a.com:", "a.com:0", "a.com:65536", "a.com:12a",
            "a.com:1:2", "-a.com", "a-.com", "a..com", ".a.com", "a.com?x", "a.com#x", "user@a.com", "[::1",
            "[zz::1]", "[::1]x", "[]", "ä.com", "a.com:٣", String(repeating: "a", count: 64) + ".com",
        ]
        for host in badHosts {
            for field in ["preferred_network", "preferred_cache", "aliases"] {
                var entry: [String: Any] = [
                    "preferred_network": "a.com", "preferred_cache": "a.com", "aliases": ["a.com"],
                ]
                entry[field] = field == "aliases" ? ["a.com", host] : host
                let object: [String: Any] = ["tenant_discovery_endpoint": "https://a.com/x", "metadata": [entry]]
                let data = try! JSONSerialization.data(withJSONObject: object)
                assertMSALFailure(
                    try InstanceDiscoveryParser.parse(data, requestedEnvironment: "a.com"), internalCode: -42_600,
                    "\(field)=\(host)")
            }
        }
        for host in ["a.com", "A.COM", "a.com:1", "a.com:65535", "[::1]", "[::1]:443", "[fe80::1]", "127.0.0.1:8443"] {
            XCTAssertEqual(DiscoveryHost.normalized(host), host.lowercased(), host)
        }
    }
}
