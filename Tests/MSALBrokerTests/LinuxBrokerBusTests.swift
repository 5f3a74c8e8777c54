import Foundation
import MSAL
import MSALBroker
import MSALTestSupport
import XCTest

/// `MSALLinuxBroker` over a private bus: a broker that answers, one that is absent, one that
/// hangs, answers garbage or a D-Bus error, and an interactive call cancelled by its task.
final class LinuxBrokerBusTests: XCTestCase {
    func testTheVersionComesFromTheBrokerOnTheGivenBus() async throws {
        let fixture = try BrokerFixture()
        defer { fixture.stop() }
        let broker = MSALLinuxBroker(busAddress: fixture.bus.address, timeout: 5)
        let version = try await broker.version()
        XCTAssertEqual(version, EmulatedBroker.version)
        let request = try XCTUnwrap(fixture.broker.requests.last)
        XCTAssertEqual(request.method, "getLinuxBrokerVersion")
        XCTAssertEqual(request.protocolVersion, "0.0")
        XCTAssertNotNil(UUID(uuidString: request.correlationId), request.correlationId)
    }

    func testNoBrokerOnTheBusIsUnavailableAtOnce() async throws {
        let bus = try PrivateDBus()
        defer { bus.stop() }
        let broker = MSALLinuxBroker(busAddress: bus.address, timeout: 20)
        let started = Date()
        await assertThrows(try await broker.version()) { error in
            guard case .unavailable(let why) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(why.contains("ServiceUnknown") || why.contains("NameHasNoOwner"), why)
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)
    }

    func testNoBusIsUnavailable() async throws {
        let broker = MSALLinuxBroker(busAddress: "unix:path=/tmp/msal-no-such-bus-\(UUID().uuidString)", timeout: 5)
        await assertThrows(try await broker.version()) { error in
            guard case .unavailable = error else { return XCTFail("\(error)") }
        }
    }

    func testAHangingBrokerFailsAtItsDeadline() async throws {
        let fixture = try BrokerFixture()
        defer { fixture.stop() }
        fixture.broker.behavior = .never
        let broker = MSALLinuxBroker(busAddress: fixture.bus.address, timeout: 0.5)
        let started = Date()
        await assertThrows(try await broker.version()) { error in
            XCTAssertEqual(error, .timedOut(0.5))
        }
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertGreaterThanOrEqual(elapsed, 0.45)
        XCTAssertLessThan(elapsed, 3)
    }

    func testAHangingBusFailsAtTheDeadlineToo() async throws {
        let fixture = try BrokerFixture()
        defer {
            fixture.bus.resume()
            fixture.stop()
        }
        fixture.bus.suspend()
        let broker = MSALLinuxBroker(busAddress: fixture.bus.address, timeout: 0.5)
        let started = Date()
        await assertThrows(try await broker.version()) { error in
            XCTAssertEqual(error, .timedOut(0.5))
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 3)
    }

    func testGarbageIsAMalformedReply() async throws {
        let fixture = try BrokerFixture()
        defer { fixture.stop() }
        fixture.broker.behavior = .garbage
        let broker = MSALLinuxBroker(busAddress: fixture.bus.address, timeout: 5)
        await assertThrows(try await broker.version()) { error in
            guard case .failed(let name, _) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(name, "malformed-reply")
        }
    }

    func testADBusErrorIsPassedOn() async throws {
        let fixture = try BrokerFixture()
        defer { fixture.stop() }
        fixture.broker.behavior = .dbusError(name: "com.microsoft.identity.Broker1.Error", message: "broken")
        let broker = MSALLinuxBroker(busAddress: fixture.bus.address, timeout: 5)
        await assertThrows(try await broker.version()) { error in
            XCTAssertEqual(error, .failed(name: "com.microsoft.identity.Broker1.Error", message: "broken"))
        }
    }

    func testCancellingAnInteractiveCallTellsTheBroker() async throws {
        let fixture = try BrokerFixture()
        defer { fixture.stop() }
        fixture.broker.behavior = .waitForCancel
        let broker = MSALLinuxBroker(busAddress: fixture.bus.address, timeout: 5)
        let correlationId = UUID()
        let task = Task {
            try await broker.call(
                method: "acquireTokenInteractively", correlationId: correlationId, request: "{}", interactive: true)
        }
        // Cancelled once the broker holds the call.
        let deadline = Date().addingTimeInterval(10)
        while !fixture.broker.requests.contains(where: { $0.method == "acquireTokenInteractively" }) {
            XCTAssertLessThan(Date(), deadline, "the interactive call never reached the broker")
            if Date() >= deadline { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        task.cancel()
        do {
            _ = try await task.value
            XCTFail("a cancelled interactive call returned")
        } catch let error as MSALBrokerConnectionError {
            XCTAssertEqual(error, .cancelled)
        }
        while !fixture.broker.requests.contains(where: { $0.method == "cancelInteractiveFlow" }) {
            guard Date() < deadline else { return XCTFail("cancelInteractiveFlow never reached the broker") }
            try await Task.sleep(for: .milliseconds(10))
        }
        let cancel = try XCTUnwrap(fixture.broker.requests.first { $0.method == "cancelInteractiveFlow" })
        XCTAssertEqual(cancel.correlationId, correlationId.uuidString.lowercased())
    }

    private func assertThrows(
        _ body: @autoclosure () async throws -> some Any, file: StaticString = #filePath, line: UInt = #line,
        _ check: (MSALBrokerConnectionError) -> Void
    ) async {
        do {
            _ = try await body()
            XCTFail("no error", file: file, line: line)
        } catch let error as MSALBrokerConnectionError {
            check(error)
        } catch {
            XCTFail("\(error)", file: file, line: line)
        }
    }
}
