import Foundation
import MSALNative

/// The control endpoint of a standalone emulator (``EntraEmulator/Configuration/controlToken``):
/// what a test in a shell or another language does through ``EntraEmulator``'s API, over HTTPS on
/// the emulator's own port, under `/.emulator/`.
///
/// Every request needs `Authorization: Bearer <control token>`; arguments are form fields (or
/// query items); answers are JSON.
///
/// | Request | Does |
/// |---|---|
/// | `GET /.emulator/state` | `now` (the clock, Unix seconds), `pending_user_codes`, `users`, `default_username`, `request_counts` |
/// | `POST /.emulator/clock` `advance=SECONDS` | ``EntraEmulator/advanceClock(by:)`` |
/// | `POST /.emulator/device-codes/approve` `user_code`, `username`?, `declined_scopes`? | ``EntraEmulator/approveDeviceCode(userCode:as:declinedScopes:)`` (`user_code` may be omitted: the oldest pending) |
/// | `POST /.emulator/device-codes/decline` `user_code`? | ``EntraEmulator/declineDeviceCode(userCode:)`` |
/// | `POST /.emulator/faults` `endpoint`, `fault`, `count`?, `grant_type`?, ... | ``EntraEmulator/inject(_:at:count:grantType:)`` |
/// | `POST /.emulator/faults/clear` | ``EntraEmulator/clearFaults()`` |
/// | `POST /.emulator/default-user` `username` | ``EntraEmulator/defaultUsername`` |
/// | `POST /.emulator/consent` `username`, `client_id`, `scopes` | ``EntraEmulator/grantConsent(username:clientId:scopes:)`` |
/// | `POST /.emulator/refresh-tokens/revoke` `username` | ``EntraEmulator/revokeRefreshTokens(for:)`` |
///
/// Faults by name: `server_error` (`status`), `throttled` (`status`, `retry_after` seconds),
/// `drop_connection`, `truncated_response`, `delay` (`seconds`), `invalid_grant` (`suberror`),
/// `interaction_required` (`suberror`), `oauth_error` (`error`, `code`, `message`, `suberror`),
/// `decline_scopes` (`scopes`).
final class EmulatorControl: Sendable {
    /// The path prefix.
    static let prefix = "/.emulator/"

    private let token: String
    private let emulator = Locked<WeakEmulator>(WeakEmulator())

    private struct WeakEmulator {
        weak var value: EntraEmulator?
    }

    init(token: String) {
        self.token = token
    }

    /// Connects the control to the emulator it drives (held weakly: the server must not keep the
    /// emulator alive).
    func attach(_ emulator: EntraEmulator) {
        self.emulator.withLock { $0.value = emulator }
    }

    /// The answer to a control request, or `nil` when `request` is not one.
    func handle(_ request: HTTPServerRequest) -> HTTPServerResponse? {
        guard request.path.hasPrefix(Self.prefix) else { return nil }
        guard let authorization = request.headers["Authorization"],
            ConstantTime.equals(authorization, "Bearer \(token)")
        else {
            return Self.failure(401, "the control endpoint needs Authorization: Bearer <control token>")
        }
        guard let emulator = emulator.withLock({ $0.value }) else {
            return Self.failure(503, "the emulator is stopping")
        }
        var arguments: [String: String] = [:]
        for item in request.queryItems + request.formItems { arguments[item.name] = item.value ?? "" }
        let command = String(request.path.dropFirst(Self.prefix.count))
        do {
            switch (request.method, command) {
            case ("GET", "state"):
                return .json(Self.state(of: emulator))
            case ("POST", "clock"):
                guard let seconds = Double(arguments["advance"] ?? ""), seconds.isFinite else {
                    throw ControlError("advance=SECONDS is required")
                }
                emulator.advanceClock(by: seconds)
                return .json(["now": emulator.now.timeIntervalSince1970])
            case ("POST", "device-codes/approve"):
                let userCode = try Self.userCode(arguments, emulator)
                let username = arguments["username"] ?? emulator.defaultUsername ?? EmulatorUser.alice.username
                try emulator.approveDeviceCode(
                    userCode: userCode, as: username, declinedScopes: Self.list(arguments["declined_scopes"]))
                return .json(["user_code": userCode, "username": username])
            case ("POST", "device-codes/decline"):
                let userCode = try Self.userCode(arguments, emulator)
                try emulator.declineDeviceCode(userCode: userCode)
                return .json(["user_code": userCode])
            case ("POST", "faults"):
                guard let endpoint = EmulatorEndpoint(rawValue: Self.camelCase(arguments["endpoint"] ?? "")) else {
                    throw ControlError("endpoint= must be one of \(EmulatorEndpoint.allCases.map(\.rawValue))")
                }
                let grantType = try arguments["grant_type"].map { name in
                    guard let type = EmulatorGrantType(rawValue: name) else {
                        throw ControlError("grant_type=\(name) is not a grant type the emulator knows")
                    }
                    return type
                }
                let count = Int(arguments["count"] ?? "1") ?? 1
                emulator.inject(try Self.fault(arguments), at: endpoint, count: count, grantType: grantType)
                return .json(["pending_faults": emulator.pendingFaultCount])
            case ("POST", "faults/clear"):
                emulator.clearFaults()
                return .json(["pending_faults": 0])
            case ("POST", "default-user"):
                guard let username = arguments["username"],
                    emulator.users.contains(where: {
                        $0.username.lowercased() == username.lowercased()
                    })
                else {
                    throw ControlError("username= must name a user of the emulator")
                }
                emulator.defaultUsername = username
                return .json(["default_username": username])
            case ("POST", "consent"):
                guard let username = arguments["username"], let clientId = arguments["client_id"] else {
                    throw ControlError("username= and client_id= are required")
                }
                emulator.grantConsent(username: username, clientId: clientId, scopes: Self.list(arguments["scopes"]))
                return .json(["consented": emulator.consentedScopes(username: username, clientId: clientId)])
            case ("POST", "refresh-tokens/revoke"):
                guard let username = arguments["username"] else { throw ControlError("username= is required") }
                return .json(["revoked": emulator.revokeRefreshTokens(for: username)])
            default:
                return Self.failure(404, "no control command \(request.method) \(request.path)")
            }
        } catch let error as ControlError {
            return Self.failure(400, error.message)
        } catch {
            return Self.failure(409, "\(error)")
        }
    }

    private struct ControlError: Error {
        let message: String
        init(_ message: String) { self.message = message }
    }

    private static func failure(_ status: Int, _ message: String) -> HTTPServerResponse {
        .json(status: status, ["error": message])
    }

    private static func state(of emulator: EntraEmulator) -> [String: Any] {
        var counts: [String: Int] = [:]
        for endpoint in EmulatorEndpoint.allCases where endpoint != .unknown {
            counts[endpoint.rawValue] = emulator.requestCount(endpoint)
        }
        return [
            "now": emulator.now.timeIntervalSince1970,
            "pending_user_codes": emulator.pendingUserCodes,
            "users": emulator.users.map(\.username),
            "default_username": emulator.defaultUsername ?? NSNull(),
            "request_counts": counts,
            "pending_faults": emulator.pendingFaultCount,
        ]
    }

    /// `user_code`, or the oldest pending one.
    private static func userCode(_ arguments: [String: String], _ emulator: EntraEmulator) throws -> String {
        if let code = arguments["user_code"], !code.isEmpty { return code }
        guard let oldest = emulator.pendingUserCodes.first else { throw ControlError("no device code is pending") }
        return oldest
    }

    /// Space- or comma-separated values.
    private static func list(_ text: String?) -> [String] {
        (text ?? "").split { $0 == " " || $0 == "," }.map(String.init)
    }

    /// `device_code` → `deviceCode`, `openid_configuration` → `openIDConfiguration`.
    private static func camelCase(_ name: String) -> String {
        let parts = name.split { $0 == "_" || $0 == "-" }.map(String.init)
        guard let first = parts.first else { return name }
        let rest = parts.dropFirst().map { part in part == "id" ? "ID" : part.prefix(1).uppercased() + part.dropFirst()
        }
        return ([first] + rest).joined().replacingOccurrences(of: "openidConfiguration", with: "openIDConfiguration")
    }

    private static func fault(_ arguments: [String: String]) throws -> EmulatorFault {
        func number(_ name: String, _ fallback: Int) throws -> Int {
            guard let text = arguments[name] else { return fallback }
            guard let value = Int(text) else { throw ControlError("\(name)=\(text) is not a number") }
            return value
        }
        switch arguments["fault"] ?? "" {
        case "server_error": return .serverError(status: try number("status", 500))
        case "throttled":
            return .throttled(status: try number("status", 429), retryAfter: .seconds(try number("retry_after", 30)))
        case "drop_connection": return .dropConnection
        case "truncated_response": return .truncatedResponse
        case "delay":
            guard let seconds = Double(arguments["seconds"] ?? ""), seconds >= 0, seconds <= 600 else {
                throw ControlError("delay needs seconds= from 0 to 600")
            }
            return .delay(seconds: seconds)
        case "invalid_grant": return .invalidGrant(suberror: arguments["suberror"])
        case "interaction_required": return .interactionRequired(suberror: arguments["suberror"])
        case "decline_scopes": return .declineScopes(list(arguments["scopes"]))
        case "oauth_error":
            guard let error = arguments["error"] else { throw ControlError("oauth_error needs error=") }
            return .oauthError(
                EntraErrorResponse(
                    error: error, code: try number("code", 90000), message: arguments["message"] ?? "Injected error.",
                    suberror: arguments["suberror"]))
        case let other:
            throw ControlError(
                "fault=\(other) is not one of server_error, throttled, drop_connection, truncated_response, delay, "
                    + "invalid_grant, interaction_required, decline_scopes, oauth_error")
        }
    }
}
