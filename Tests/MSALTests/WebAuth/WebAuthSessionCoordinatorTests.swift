import Foundation
import XCTest

@testable import MSAL

final class WebAuthSessionCoordinatorTests: XCTestCase {
    private let coordinator = WebAuthSessionCoordinator()
    private let redirect = try! RedirectURI(validating: "myapp://auth", customWebview: true)

    func testOneSessionAtATime() throws {
        let first = try coordinator.begin(redirectURI: redirect, correlationId: nil)
        assertMSALFailure(
            try coordinator.begin(redirectURI: redirect, correlationId: nil), internalCode: -42402)
        first.end()
        let second = try coordinator.begin(redirectURI: redirect, correlationId: nil)
        second.end()
        first.end()
        XCTAssertNil(coordinator.currentSession, "ending an old session does not release a newer one")
    }

    func testCancelCurrent() async throws {
        XCTAssertFalse(coordinator.cancelCurrent(), "nothing running")
        let session = try coordinator.begin(redirectURI: redirect, correlationId: nil)
        defer { session.end() }
        let started = expectation(description: "user agent started")
        let task = Task {
            await session.run {
                started.fulfill()
                do {
                    try await Task.sleep(for: .seconds(30))
                    return .success(URL(string: "myapp://auth?code=late")!)
                } catch {
                    return .failure(NSError(domain: "test", code: 1))
                }
            }
        }
        await fulfillment(of: [started], timeout: 5)
        XCTAssertTrue(coordinator.cancelCurrent())
        let result = await task.value
        guard case .failure(let error) = result else { return XCTFail("expected a failure") }
        XCTAssertEqual(error.code, MSALError.userCanceled.rawValue)
        XCTAssertTrue(error.localizedDescription.contains("cancelCurrentWebAuthSession"))
    }

    func testCancelBeforeRunning() async throws {
        let session = try coordinator.begin(redirectURI: redirect, correlationId: nil)
        defer { session.end() }
        XCTAssertTrue(coordinator.cancelCurrent())
        let result = await session.run {
            XCTFail("the user agent must not start")
            return .success(URL(string: "myapp://auth")!)
        }
        guard case .failure(let error) = result else { return XCTFail("expected a failure") }
        XCTAssertEqual(error.code, -50005)
    }

    func testHandleURLCompletesThePendingSession() async throws {
        XCTAssertFalse(coordinator.handle(url: URL(string: "myapp://auth?code=1")!), "nothing pending")
        let session = try coordinator.begin(redirectURI: redirect, correlationId: nil)
        defer { session.end() }
        let started = expectation(description: "user agent started")
        let userAgentEnded = expectation(description: "user agent cancelled")
        let task = Task {
            await session.run {
                started.fulfill()
                defer { userAgentEnded.fulfill() }
                do {
                    try await Task.sleep(for: .seconds(30))
                } catch {}
                return .failure(NSError(domain: "test", code: 1))
            }
        }
        await fulfillment(of: [started], timeout: 5)
        XCTAssertFalse(coordinator.handle(url: URL(string: "otherapp://auth?code=1")!))
        XCTAssertFalse(coordinator.handle(url: URL(string: "myapp://elsewhere?code=1")!))
        XCTAssertTrue(coordinator.handle(url: URL(string: "myapp://auth?code=1")!))
        XCTAssertFalse(coordinator.handle(url: URL(string: "myapp://auth?code=2")!), "taken once")
        let result = await task.value
        await fulfillment(of: [userAgentEnded], timeout: 5)
        XCTAssertEqual(try result.get().absoluteString, "myapp://auth?code=1")
    }

    func testTaskCancellationEndsTheSession() async throws {
        let session = try coordinator.begin(redirectURI: redirect, correlationId: nil)
        defer { session.end() }
        let task = Task {
            await session.run {
                do {
                    try await Task.sleep(for: .seconds(30))
                } catch {}
                return .failure(NSError(domain: "test", code: 1))
            }
        }
        task.cancel()
        let result = await task.value
        guard case .failure(let error) = result else { return XCTFail("expected a failure") }
        XCTAssertEqual(error.code, -50005)
    }
}
