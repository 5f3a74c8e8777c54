import Foundation
import MSAL
import MSALTestSupport

extension DemoStep {
    static let interactiveSignIn = DemoStep(
        title: "Interactive sign-in (authorization code + PKCE) with the scripted browser",
        expected: "the browser follows the emulator's redirect to the loopback redirect URI; MSAL redeems the "
            + "code and caches Alice's account and tokens"
    ) { session in
        let result = try await session.application.acquireToken(with: session.interactive(["User.Read"]))
        session.alice = result.account
        session.firstResult = result
        session.note("signed in as \(result.account.username ?? "?") in tenant \(result.tenantProfile.tenantId ?? "?")")
        session.note(
            "access token \(DemoTranscript.short(result.accessToken)), scopes \(result.scopes.joined(separator: " "))")
        session.note(
            "the browser visited: \(session.browser.visitedURLs.map { $0.host ?? "?" }.joined(separator: ", "))")
        try session.check(result.account.username == EmulatorUser.alice.username, "Alice signed in")
        try session.check(
            session.emulator.tokenRequestCount(grantType: .authorizationCode) == 1, "one authorization_code redemption")
        let sent = session.emulator.recentRequests(to: .token).last
        try session.check(sent?.formValue("code_verifier") != nil, "the code was redeemed with a PKCE code_verifier")
        try session.check(try session.application.allAccounts().count == 1, "one account in the cache")
    }

    static let silentFromCache = DemoStep(
        title: "Silent token from the cache",
        expected: "acquireTokenSilent returns the cached access token without any request to the token endpoint"
    ) { session in
        let alice = try session.aliceAccount()
        let before = session.tokenRequests
        let result = try await session.silent(["User.Read"], alice)
        session.note("access token \(DemoTranscript.short(result.accessToken))")
        try session.check(result.accessToken == session.firstResult?.accessToken, "the same access token as step 1")
        try session.check(session.tokenRequests == before, "the emulator received no token request")
    }

    static let refreshAfterExpiry = DemoStep(
        title: "Refresh after expiry",
        expected: "once the cached access token counts as expired, acquireTokenSilent redeems the refresh token "
            + "(one refresh_token request) and returns a new access token"
    ) { session in
        let alice = try session.aliceAccount()
        guard let expiresOn = session.firstResult?.expiresOn else { throw DemoFailure("step 1 gave no expiry") }
        // The application tells time by the emulator's clock (DemoSession): moving it is how the
        // token ages. MSAL compares whole seconds: the token is expired once `expires_on < now + 300`.
        let expiredFrom = expiresOn.addingTimeInterval(-299)
        let wait = max(0, expiredFrom.timeIntervalSince(session.emulator.now) + 0.1)
        session.note(
            "the emulator issued access tokens living \(DemoSession.shortAccessTokenLifetime) s, and MSAL treats a "
                + "token as expired when less than 300 s are left (tokenExpirationBuffer): moving the clock the "
                + "app and the emulator share \(DemoTranscript.format(wait)) forward")
        session.emulator.advanceClock(by: wait)
        session.emulator.lifetimes = EmulatorTokenLifetimes()
        let refreshesBefore = session.emulator.tokenRequestCount(grantType: .refreshToken)
        let result = try await session.silent(["User.Read"], alice)
        session.note("new access token \(DemoTranscript.short(result.accessToken)), now living 3599 s")
        try session.check(result.accessToken != session.firstResult?.accessToken, "a different access token")
        try session.check(
            session.emulator.tokenRequestCount(grantType: .refreshToken) == refreshesBefore + 1,
            "exactly one refresh_token request")
        let again = try await session.silent(["User.Read"], alice)
        try session.check(again.accessToken == result.accessToken, "the new token is served from the cache next")
    }
}
