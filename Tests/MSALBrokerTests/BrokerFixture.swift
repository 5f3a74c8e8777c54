import Foundation
import MSALTestSupport
import XCTest

/// A private bus, an Entra emulator and an emulated broker on that bus, for one test.
final class BrokerFixture {
    let bus: PrivateDBus
    let emulator: EntraEmulator
    let broker: EmulatedBroker

    init() throws {
        guard FileManager.default.fileExists(atPath: "/usr/bin/dbus-daemon") else {
            if ProcessInfo.processInfo.environment["MSAL_REQUIRE_SECRET_SERVICE"] == "1" {
                throw TestSupportError("dbus-daemon is missing; MSAL_REQUIRE_SECRET_SERVICE=1 makes this a failure")
            }
            throw XCTSkip("dbus-daemon is not installed (Debian: dbus)")
        }
        bus = try PrivateDBus()
        emulator = try EntraEmulator()
        do {
            broker = try EmulatedBroker(emulator: emulator, busAddress: bus.address)
        } catch {
            emulator.stop()
            bus.stop()
            throw error
        }
    }

    func stop() {
        broker.stop()
        emulator.stop()
        bus.stop()
    }
}
