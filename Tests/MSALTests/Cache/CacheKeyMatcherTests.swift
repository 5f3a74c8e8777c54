import XCTest

@testable import MSAL

/// The key matcher decides whether an entry's key can be written back as read; its fast path
/// (a word-wise comparison, then ``ASCII/isASCIIWithoutUppercase(_:)``) must agree with building the key.
final class CacheKeyMatcherTests: XCTestCase {
    private static let dash: [UInt8] = [UInt8(ascii: "-")]

    private func matches(_ key: String, _ components: [String?], lowercase: Bool = true) -> Bool {
        var matcher = CacheKeyMatcher(Array(key.utf8))
        for (index, component) in components.enumerated() {
            if index > 0 { matcher.add(literal: Self.dash.span) }
            matcher.add(component, lowercase: lowercase)
        }
        return matcher.matchedAll
    }

    /// ``matches(_:_:lowercase:)`` through the members' bytes as written in a window, as the
    /// document reader matches keys (components beyond the first five go as strings).
    private func matchesWritten(_ key: String, _ components: [String?], lowercase: Bool = true) -> Bool {
        let members = 5
        var window: [UInt8] = []
        var memberBytes = CacheMemberBytes()
        for (index, component) in components.enumerated() where index < members {
            guard let component else { continue }
            memberBytes.record(index, window.count, window.count + component.utf8.count)
            window += Array(component.utf8)
        }
        window.append(0)
        // The key lies in the same window, after the members' values, as in a document.
        let keyStart = window.count
        window += Array(key.utf8)
        var matcher = CacheKeyMatcher(window: window, key: keyStart..<window.count, memberBytes: memberBytes)
        for (index, component) in components.enumerated() {
            if index > 0 { matcher.add(literal: Self.dash.span) }
            if index < members, matcher.addRecorded(member: index, lowercase: lowercase) { continue }
            matcher.add(component, lowercase: lowercase)
        }
        return matcher.matchedAll
    }

    private func built(_ components: [String?], lowercase: Bool = true) -> String {
        var builder = CacheKeyBuilder()
        for (index, component) in components.enumerated() {
            if index > 0 { builder.add(literal: Self.dash.span) }
            builder.add(component, lowercase: lowercase)
        }
        return builder.string
    }

    func testMatcherAgreesWithTheBuilder() {
        let componentSets: [[String?]] = [
            ["uid.utid", "login.microsoftonline.com", "client", "https://graph.microsoft.com/user.read openid"],
            ["UID.UTID", "Login.MicrosoftOnline.com", "client", "openid"],
            ["uid", "ÉTÉ.example", "client"],
            ["a-very-long-component-without-any-upper-case-letters-0123456789", "x"],
            ["a-very-long-component-with-one-Upper-case-letter-far-into-it-0123", "x"],
            ["", "empty-first"],
            ["@[`{", "punctuation-around-letters"],
        ]
        for components in componentSets {
            for lowercase in [true, false] {
                let key = built(components, lowercase: lowercase)
                XCTAssertTrue(matches(key, components, lowercase: lowercase), "\(components) \(lowercase)")
                // The key as the components spell it matches only if building changes nothing.
                let verbatim = built(components, lowercase: false)
                XCTAssertEqual(
                    matches(verbatim, components, lowercase: lowercase), verbatim == key, "\(components) \(lowercase)")
                XCTAssertFalse(matches(key + "x", components, lowercase: lowercase))
                XCTAssertFalse(matches(String(key.dropLast()), components, lowercase: lowercase))
                // Through the bytes as written, the answers are the same.
                for candidate in [key, verbatim, key + "x", String(key.dropLast()), key.uppercased()] {
                    XCTAssertEqual(
                        matchesWritten(candidate, components, lowercase: lowercase),
                        matches(candidate, components, lowercase: lowercase), "\(candidate) \(lowercase)")
                }
            }
        }
    }
}
