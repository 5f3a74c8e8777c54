import Foundation
import MSAL
import MSALTestSupport

extension DemoStep {
    static let throttled = DemoStep(
        title: "Throttling (HTTP 429)",
        expected: "the token endpoint answers 429 with Retry-After: 30; MSAL reports it, and answers the identical "
            + "request again itself (MSALThrottlingCacheHitKey) without sending it"
    ) { session in
        let alice = try session.aliceAccount()
        session.emulator.inject(.throttled(retryAfter: .seconds(30)), at: .token, grantType: .refreshToken)
        let first = try await session.expectError {
            _ = try await session.silent(["User.Read"], alice, forceRefresh: true)
        }
        session.note("first request: \(DemoSession.describe(first))")
        try session.check(MSALErrorInfo(first).httpStatusCode == 429, "HTTP 429 reported")
        let before = session.tokenRequests
        let second = try await session.expectError {
            _ = try await session.silent(["User.Read"], alice, forceRefresh: true)
        }
        session.note("identical request: \(DemoSession.describe(second)), throttled by the client")
        try session.check(MSALErrorInfo(second).isThrottled, "MSALThrottlingCacheHitKey is set")
        try session.check(session.tokenRequests == before, "the emulator received no request")
    }

    static let signOut = DemoStep(
        title: "Sign-out",
        expected: "signout removes Alice's tokens: she disappears from the accounts and a silent request needs "
            + "interaction (-50002)"
    ) { session in
        let alice = try session.aliceAccount()
        try await session.application.signout(with: alice, signoutParameters: MSALSignoutParameters())
        let remaining = try session.application.allAccounts()
        session.note("accounts left: \(remaining.compactMap(\.username).joined(separator: ", "))")
        try session.check(!remaining.contains { $0.identifier == alice.identifier }, "Alice is gone")
        let error = try await session.expectError { _ = try await session.silent(["User.Read"], alice) }
        session.note("silent: \(DemoSession.describe(error))")
        try session.check(MSALErrorInfo(error).msalError == .interactionRequired, "-50002 interactionRequired")
    }
}
