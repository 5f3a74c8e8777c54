import Foundation
import XCTest

@testable import MSAL

/// The ASCII fast paths give exactly what Foundation's functions give.
final class ASCIITests: XCTestCase {
    func testTrimmedMatchesFoundation() {
        let cases = [
            "", " ", "User.Read", " User.Read", "User.Read\n", "\t a b \r\n", "\u{00A0}User.Read", "User.Read\u{2003}",
            "é", " é ", "\u{000B}x\u{000C}", "x\u{0085}", "abc\u{200B}",
        ]
        for text in cases {
            let expected = text.trimmingCharacters(in: .whitespacesAndNewlines)
            XCTAssertEqual(ASCII.trimmed(text), expected, "\(text.debugDescription)")
            let padded = "|\(text)|".dropFirst().dropLast()
            XCTAssertEqual(ASCII.trimmed(padded), expected, "substring \(text.debugDescription)")
        }
    }

    func testPercentDecodedMatchesFoundation() {
        for text in ["common", "contoso.com", "a%20b", "%E2%82%AC", "bad%zz", "%", "50%", "caf%C3%A9", ""] {
            XCTAssertEqual(ASCII.percentDecoded(text), text.removingPercentEncoding ?? text, text)
        }
    }

    func testPercentEncodingMatchesFoundationForASCII() {
        var unreserved = CharacterSet.alphanumerics
        unreserved.insert(charactersIn: "-._~")
        let ascii = String(decoding: Array(UInt8(0)..<UInt8(0x80)), as: UTF8.self)
        for text in ["https://login.microsoftonline.com/common/oauth2/v2.0/authorize", "a b/c?d=e&f#g%", ascii, ""] {
            XCTAssertEqual(
                ASCII.percentEncodedExceptUnreserved(text),
                text.addingPercentEncoding(withAllowedCharacters: unreserved))
        }
        XCTAssertNil(ASCII.percentEncodedExceptUnreserved("https://exämple.com"))
    }

    func testHostAsWrittenMatchesFoundation() throws {
        let hosts = [
            "login.microsoftonline.com", "LOGIN.MicrosoftOnline.COM", "127.0.0.1", "a..b", "-a.b", "ab--cd.com", "a.",
            "xn--bcher-kva.ch", "XN--BCHER-KVA.ch", "axn--b.com", "a.xn--.com", "xn--", "bücher.ch", "[::1]",
            "ex%41mple.com", "under_score.com", "",
        ]
        for host in hosts {
            let components = try XCTUnwrap(URLComponents(string: "https://\(host):8443/common"), host)
            XCTAssertEqual(components.hostAsWritten, components.percentEncodedHost, host)
        }
    }

    func testUnreservedIsExactlyRFC3986s() {
        let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
        for byte in UInt8.min...UInt8.max {
            XCTAssertEqual(ASCII.isUnreserved(byte), unreserved.contains(byte), "\(byte)")
        }
    }

    func testEqualsIgnoringCaseOnlyFoldsASCIILetters() {
        XCTAssertTrue(ASCII.equalsIgnoringCase("Content-Type", "content-type"))
        XCTAssertTrue(ASCII.equalsIgnoringCase("", ""))
        XCTAssertFalse(ASCII.equalsIgnoringCase("Accept", "Accept-Encoding"))
        XCTAssertFalse(ASCII.equalsIgnoringCase("[", "{"), "'[' and '{' differ by the case bit but are not letters")
        XCTAssertFalse(ASCII.equalsIgnoringCase("É", "é"))
    }

    func testClientInfoWithOrWithoutPadding() throws {
        let json = Data(#"{"uid":"U1","utid":"T1"}"#.utf8).base64EncodedString()
        let unpadded = json.replacingOccurrences(of: "=", with: "")
        for raw in [json, unpadded, unpadded + "===", "=" + unpadded] {
            let info = try ClientInfo(raw: raw)
            XCTAssertEqual(info.homeAccountId, "u1.t1", raw)
        }
        XCTAssertThrowsError(try ClientInfo(raw: "==="))
    }
}
