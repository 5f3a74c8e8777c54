import Foundation
import MSALNative
import MSALTestSupport
import XCTest

@testable import MSAL

/// Load with failures: 10,000 silent calls from 64 tasks while time runs fast and 1% of the calls
/// inject a fault into the next token request. Every call must end, in a token or an error the
/// fault explains; the refreshes stay within what the clock and the faults can justify (shared,
/// not one per waiting call); and the cache is consistent afterwards.
final class FaultLoadTests: FaultSuiteCase {
    /// A small deterministic generator (SplitMix64), so a failing run can be replayed by its seed.
    fileprivate struct SplitMix64 {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
    }

    fileprivate struct Tally: Sendable {
        var tokens = 0
        var expectedErrors = 0
        var unexpected: [String] = []
        var forced = 0
        var injected = 0
        var ticks = 0
    }

    /// The errors a call may end in when a fault hit its request: an HTTP error answer (a 5xx or 429,
    /// sent or answered from the throttling cache), or the connection lost mid-response.
    fileprivate static func isExplained(_ error: NSError) -> Bool {
        switch error.domain {
        case MSALErrorDomain:
            return error.code == MSALError.internal.rawValue
                && error.userInfo[MSALInternalErrorCodeKey] as? Int == -42007
        case NSURLErrorDomain:
            return error.code == URLError.Code.networkConnectionLost.rawValue
        default:
            return false
        }
    }

    fileprivate static let faults: [(EmulatorFault, Int)] = [
        (.serverError(status: 500), 1),  // retried: the call succeeds
        (.serverError(status: 503), 2),  // the retry fails too
        (.throttled(retryAfter: .seconds(5)), 1),
        (.dropConnection, 1),
        (.truncatedResponse, 2),
        (.delay(seconds: 0.2), 1),
    ]

    /// One task's share of the calls.
    private struct Load: Sendable {
        let application: MSALPublicClientApplication
        let emulator: EntraEmulator
        let accounts: [MSALAccount]
        let scopeSets: [[String]]
        let tally: Locked<Tally>

        func run(count: Int, seed: UInt64) async {
            var random = SplitMix64(state: seed)
            for _ in 0..<count {
                if random.below(100) == 0 {
                    let (fault, uses) = FaultLoadTests.faults[random.below(FaultLoadTests.faults.count)]
                    emulator.inject(fault, at: .token, count: uses, grantType: .refreshToken)
                    tally.withLock { $0.injected += uses }
                }
                let parameters = MSALSilentTokenParameters(
                    scopes: scopeSets[random.below(scopeSets.count)], account: accounts[random.below(accounts.count)])
                parameters.forceRefresh = random.below(100) < 3
                if parameters.forceRefresh { tally.withLock { $0.forced += 1 } }
                do {
                    _ = try await application.acquireTokenSilent(with: parameters)
                    tally.withLock { $0.tokens += 1 }
                } catch let error as NSError {
                    tally.withLock { tally in
                        if FaultLoadTests.isExplained(error) {
                            tally.expectedErrors += 1
                        } else {
                            tally.unexpected.append(tally.unexpected.count < 5 ? "\(error)" : "...")
                        }
                    }
                }
            }
        }
    }

    func testTenThousandSilentCallsFromSixtyFourTasksWithOnePercentFailures() async throws {
        let users = (0..<8).map { index in
            EmulatorUser(
                username: "load\(index)@contoso.onmicrosoft.com", displayName: "Load \(index)",
                objectId: String(format: "00000000-0000-4000-8000-%012d", index),
                homeTenantId: EmulatorTenant.contoso.id)
        }
        var signedIn: [MSALAccount] = []
        for user in users {
            emulator.add(user: user)
            signedIn.append(try await signIn(user.username).account)
        }
        let accounts = signedIn
        let scopeSets = [["User.Read"], ["Mail.Read"]]
        let seed = UInt64(Date().timeIntervalSince1970)
        print("FaultLoadTests seed \(seed)")

        let tally = Locked(Tally())
        let finished = Locked(false)
        let application = app.application
        let emulator = self.emulator!
        let clockedApp = app!
        let refreshesBefore = emulator.tokenRequestCount(grantType: .refreshToken)
        let calls = 10_000
        let tasks = 64
        let started = Date()
        // Time runs fast: 15 minutes every 50 ms, so each token needs refreshing every few ticks.
        let clock = Task.detached {
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(50))
                clockedApp.advance(by: 900)
                tally.withLock { $0.ticks += 1 }
            }
        }
        let work = Task.detached {
            await withTaskGroup(of: Void.self) { group in
                for taskIndex in 0..<tasks {
                    let count = calls / tasks + (taskIndex < calls % tasks ? 1 : 0)
                    let load = Load(
                        application: application, emulator: emulator, accounts: accounts, scopeSets: scopeSets,
                        tally: tally)
                    group.addTask { await load.run(count: count, seed: seed &+ UInt64(taskIndex)) }
                }
            }
            finished.withLock { $0 = true }
        }

        // A deadlock shows as calls that never end: give up after five minutes rather than hang CI.
        let deadline = Date().addingTimeInterval(300)
        while !finished.withLock({ $0 }) && Date() < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        clock.cancel()
        _ = await clock.value
        let result = tally.withLock { $0 }
        guard finished.withLock({ $0 }) else {
            XCTFail("calls still running after 300 s (deadlock?): \(result)")
            work.cancel()
            return
        }
        let elapsed = Date().timeIntervalSince(started)
        let refreshes = emulator.tokenRequestCount(grantType: .refreshToken) - refreshesBefore
        print(
            "FaultLoadTests: \(calls) calls in \(String(format: "%.1f", elapsed)) s, \(result.tokens) tokens, "
                + "\(result.expectedErrors) explained errors, \(result.injected) fault uses injected, "
                + "\(result.forced) forced, \(result.ticks) clock ticks, \(refreshes) refresh requests")

        XCTAssertEqual(result.tokens + result.expectedErrors + result.unexpected.count, calls, "every call ended")
        XCTAssertEqual(result.unexpected, [], "errors no fault explains")
        XCTAssertLessThanOrEqual(result.expectedErrors, result.injected * 2 + calls / 100, "errors stay rare")
        // Each (account, scopes) pair needs at most one refresh per tick; calls waiting for the same
        // refresh share it. Forced calls, failed calls and injected faults (a retry each, or curl's
        // resend of a dropped request) may add one request each.
        let keys = accounts.count * scopeSets.count
        let bound = (result.ticks + 1) * keys + result.forced + result.expectedErrors + 2 * result.injected
        XCTAssertGreaterThan(refreshes, keys, "time ran: tokens were refreshed")
        XCTAssertLessThanOrEqual(refreshes, bound, "refreshes are shared, not one per waiting call")

        // Afterwards: the file parses, every account is there with one access token per scope set
        // (none with intersecting scopes), and each answers from the cache or one refresh.
        emulator.clearFaults()
        app.advance(by: 7200)
        for account in accounts {
            for scopes in scopeSets {
                remember(try await application.acquireTokenSilent(with: silent(account, scopes)))
            }
        }
        let snapshot = CacheSnapshot.read(cacheFile)
        XCTAssertTrue(snapshot.parsed)
        XCTAssertEqual(snapshot.count("Account"), accounts.count)
        XCTAssertEqual(try application.allAccounts().count, accounts.count)
        var targets: [String: [Set<String>]] = [:]
        for token in snapshot.objects("AccessToken") {
            let owner = "\(token["home_account_id"] ?? "")|\(token["realm"] ?? "")|\(token["client_id"] ?? "")"
            let scopes = Set(((token["target"] as? String) ?? "").lowercased().split(separator: " ").map(String.init))
            for other in targets[owner, default: []] {
                XCTAssertTrue(other.isDisjoint(with: scopes), "access tokens with intersecting scopes for \(owner)")
            }
            targets[owner, default: []].append(scopes)
        }
        XCTAssertEqual(targets.count, accounts.count)
        XCTAssertEqual(
            snapshot.objects("RefreshToken").map { $0["home_account_id"] as? String ?? "" }.count, accounts.count)
    }
}
