import Foundation
import MSAL
import MSALTestSupport

extension DemoStep {
    static let declinedScopes = DemoStep(
        title: "Declined scopes",
        expected: "the user consents to User.Read but declines Mail.Read: MSAL fails with -50003 "
            + "(serverDeclinedScopes) carrying the granted and declined scopes; the granted token is usable"
    ) { session in
        let alice = try session.aliceAccount()
        let username = EmulatorUser.alice.username
        session.emulator.signInDecision = { _ in .signIn(username: username, declinedScopes: ["Mail.Read"]) }
        defer {
            session.emulator.signInDecision = nil
            session.emulator.resetConsent(username: username, clientId: session.clientId)
        }
        let parameters = session.interactive(["User.Read", "Mail.Read"])
        parameters.account = alice
        let error = try await session.expectError { _ = try await session.application.acquireToken(with: parameters) }
        let info = MSALErrorInfo(error)
        session.note("MSAL error \(DemoSession.describe(error))")
        session.note("granted: \(info.grantedScopes?.joined(separator: " ") ?? "-")")
        session.note("declined: \(info.declinedScopes?.joined(separator: " ") ?? "-")")
        try session.check(info.msalError == .serverDeclinedScopes, "-50003 serverDeclinedScopes")
        try session.check(info.declinedScopes == ["Mail.Read"], "Mail.Read declined")
        try session.check(info.grantedScopes?.contains("User.Read") == true, "User.Read granted")
        let invalid = error.userInfo[MSALInvalidResultKey] as? MSALResult
        try session.check(invalid != nil, "the rejected result is attached (MSALInvalidResultKey)")
        let granted = try await session.silent(["User.Read"], alice)
        try session.check(granted.accessToken == invalid?.accessToken, "a silent request for User.Read gets that token")
    }

    static let claimsChallenge = DemoStep(
        title: "Claims challenge (conditional access)",
        expected: "the token endpoint answers interaction_required with a claims challenge: silent fails with "
            + "-50002; an interactive sign-in with an MSALClaimsRequest built from the challenge JSON succeeds and "
            + "sends the claims"
    ) { session in
        let alice = try session.aliceAccount()
        let challenge = #"{"access_token":{"acrs":{"essential":true,"value":"c1"}}}"#
        session.emulator.inject(.claimsChallenge(challenge), at: .token, grantType: .refreshToken)
        let error = try await session.expectError {
            _ = try await session.silent(["User.Read"], alice, forceRefresh: true)
        }
        session.note("silent: \(DemoSession.describe(error))")
        try session.check(
            error.domain == MSALErrorDomain && error.code == MSALError.interactionRequired.rawValue, "-50002")
        session.note(
            "the app takes the challenge JSON (from the resource's WWW-Authenticate header in production): \(challenge)"
        )
        let parameters = session.interactive(["User.Read"])
        parameters.account = alice
        parameters.claimsRequest = try MSALClaimsRequest(jsonString: challenge)
        let result = try await session.application.acquireToken(with: parameters)
        session.note("signed in again; access token \(DemoTranscript.short(result.accessToken))")
        let sent = session.emulator.recentRequests(to: .authorize).last?.queryValue("claims")
        session.note("claims sent to /authorize: \(sent ?? "none")")
        try session.check(sent?.contains("\"acrs\"") == true, "the authorize request carried the claims")
        try session.check(result.account.identifier == alice.identifier, "the same account")
    }
}
