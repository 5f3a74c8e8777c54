import MSAL
import XCTest

@testable import MSALRedisCache

/// When a storage asks for the write turn, and when it lets go of it: without Redis.
/// And what an error reply of Redis means.
final class RedisWriteTurnTests: XCTestCase {
    func testTheTurnIsAskedForFromTheSecondConflictInARow() {
        var turn = RedisWriteTurn()
        XCTAssertFalse(turn.wantsTurn)
        turn.record(.conflict)
        XCTAssertFalse(turn.wantsTurn, "one conflict is the usual stale read")
        turn.record(.conflict)
        XCTAssertTrue(turn.wantsTurn)
        turn.token = "mine"
        XCTAssertFalse(turn.wantsTurn, "held: not asked for again")
        turn.record(.conflict)
        XCTAssertEqual(turn.token, "mine", "a conflict while holding it keeps it: the next save wins")
        turn.record(.saved(version: 9))
        XCTAssertEqual(turn, RedisWriteTurn(), "a save gives it back and ends the run")
    }

    func testATurnAnotherHoldsIsForgottenAndAskedForAgain() {
        var turn = RedisWriteTurn(conflictsInARow: 3, token: "expired")
        turn.record(.turnHeldByAnother)
        XCTAssertNil(turn.token)
        XCTAssertTrue(turn.wantsTurn)
        XCTAssertEqual(RedisWriteTurn.Answer.turnHeldByAnother.outcome, .conflict, "the library reloads and retries")
    }

    func testAFencedChangeEndsTheRun() {
        var turn = RedisWriteTurn(conflictsInARow: 5, token: "mine")
        turn.record(.fenced)
        XCTAssertEqual(turn, RedisWriteTurn())
        XCTAssertEqual(RedisWriteTurn.Answer.fenced.outcome, .fenced)
    }

    func testErrorRepliesThatMeanTheACLRefusedAreAuthenticationFailures() {
        XCTAssertEqual(
            RedisErrorReply.classify("NOPERM User msal has no permissions to run the 'hset' command"), .refused)
        XCTAssertEqual(RedisErrorReply.classify("WRONGPASS invalid username-password pair"), .refused)
        XCTAssertEqual(RedisErrorReply.classify("NOAUTH Authentication required."), .refused)
        XCTAssertEqual(
            RedisErrorReply.classify(
                "ERR The user executing the script can't run this command or subcommand script: 85e8, on @user_script:11."
            ),
            .refused)
        XCTAssertEqual(RedisErrorReply.classify("OOM command not allowed when used memory > 'maxmemory'."), .server)
        XCTAssertEqual(RedisErrorReply.classify("LOADING Redis is loading the dataset in memory"), .server)
        XCTAssertEqual(RedisErrorReply.classify("ERR unknown command"), .server)
    }
}
