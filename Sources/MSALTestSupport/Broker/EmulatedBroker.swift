import Foundation
import MSALBrokerNative
import MSALNative

/// How an ``EmulatedBroker`` answers.
public enum EmulatedBrokerBehavior: Sendable, Equatable {
    /// As a broker does: tokens from the emulator, its accounts, its version.
    case normal
    /// Token calls answer the broker's interaction-required error (status `InteractionRequired`).
    case interactionRequired
    /// The interactive sign-in answers that the user cancelled it (status `UserCanceled`).
    case userCanceled
    /// The interactive sign-in waits until `cancelInteractiveFlow` is called, then answers that
    /// it was cancelled; other methods answer normally.
    case waitForCancel
    /// Every method answers a string that is not JSON.
    case garbage
    /// No method is ever answered: callers wait for their deadline.
    case never
    /// Every method answers this D-Bus error.
    case dbusError(name: String, message: String)
    /// As ``normal``, with the token replies in the other shapes brokers use: `grantedScopes` an
    /// array of strings, `expiresOn` and `extendedExpiresOn` strings of epoch milliseconds.
    case alternateShapes
    /// Every method answers this text as it is (JSON of the wrong types, echoes, ...).
    case reply(String)
}

/// One method call an ``EmulatedBroker`` received.
public struct EmulatedBrokerRequest: Sendable, Equatable {
    /// The method (`acquireTokenSilently`, ...).
    public let method: String
    /// The first argument: the protocol version the client sent.
    public let protocolVersion: String
    /// The second argument: the correlation id.
    public let correlationId: String
    /// The third argument: the JSON request, as sent.
    public let json: String

    /// ``json`` decoded, or `nil` when it is not a JSON object.
    public var object: [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any]
    }
}

/// The Microsoft identity broker of Linux desktops, emulated for tests: it owns
/// `com.microsoft.identity.broker1` on a bus the test started (``PrivateDBus``), serves the
/// broker's interface (`acquireTokenInteractively`, `acquireTokenSilently`, `getAccounts`,
/// `removeAccount`, `cancelInteractiveFlow`, `getLinuxBrokerVersion`), and mints its tokens with
/// an ``EntraEmulator``, so the id token, client info and account agree with what the emulator
/// issues to the library's own flows.
///
/// ```swift
/// let bus = try PrivateDBus()
/// let broker = try EmulatedBroker(emulator: emulator, busAddress: bus.address)
/// defer { broker.stop(); bus.stop() }
/// broker.behavior = .interactionRequired
/// ```
///
/// Interactive sign-in signs in the emulator's default user (or the request's `username`, when
/// the emulator has such a user). Every request is recorded (``requests``).
public final class EmulatedBroker: Sendable {
    /// The version ``EmulatedBroker`` reports from `getLinuxBrokerVersion`.
    public static let version = "2.0.4-emulated"

    private let emulator: EntraEmulator
    private let state = Locked(State())
    private let finished = DispatchSemaphore(value: 0)

    private struct State {
        var behavior = EmulatedBrokerBehavior.normal
        var requests: [EmulatedBrokerRequest] = []
        var accounts: [String: [String: Any]] = [:]  // by home account id
        var accountOrder: [String] = []
        var stopped = false
    }

    /// How it answers from now on.
    public var behavior: EmulatedBrokerBehavior {
        get { state.withLock { $0.behavior } }
        set { state.withLock { $0.behavior = newValue } }
    }

    /// The requests received so far, oldest first.
    public var requests: [EmulatedBrokerRequest] { state.withLock { $0.requests } }

    /// The usernames signed in to the broker, in the order they signed in.
    public var signedInUsernames: [String] {
        state.withLock { state in state.accountOrder.compactMap { state.accounts[$0]?["username"] as? String } }
    }

    /// Starts serving on the bus at `busAddress`, with tokens from `emulator`.
    ///
    /// - Throws: ``TestSupportError`` when libsystemd cannot be loaded, the bus cannot be
    ///   reached, or another connection owns the name.
    public init(emulator: EntraEmulator, busAddress: String) throws {
        self.emulator = emulator
        let ready = Locked<Result<Void, TestSupportError>?>(nil)
        let started = DispatchSemaphore(value: 0)
        Thread { [self] in
            let server: BrokerBusServer
            do {
                server = try BrokerBusServer(address: busAddress, name: "com.microsoft.identity.broker1")
            } catch {
                ready.withLock { $0 = .failure(TestSupportError("the emulated broker cannot serve: \(error)")) }
                started.signal()
                finished.signal()
                return
            }
            ready.withLock { $0 = .success(()) }
            started.signal()
            serve(server)
            finished.signal()
        }.start()
        started.wait()
        if case .failure(let error)? = ready.withLock({ $0 }) { throw error }
    }

    /// Stops serving and leaves the bus (calls waiting for an answer then fail).
    public func stop() {
        let first = state.withLock { state -> Bool in
            defer { state.stopped = true }
            return !state.stopped
        }
        if first { finished.wait() }
    }

    deinit { stop() }

    /// The serving loop, on its own thread: the only user of `server`.
    private func serve(_ server: BrokerBusServer) {
        var waitingForCancel: [BrokerBusServer.IncomingCall] = []
        var unanswered: [BrokerBusServer.IncomingCall] = []
        while !state.withLock({ $0.stopped }) {
            guard let call = try? server.nextCall(timeout: 0.05) else { continue }
            guard call.path == "/com/microsoft/identity/broker1", call.interface == "com.microsoft.identity.Broker1"
            else {
                call.replyError(name: "org.freedesktop.DBus.Error.UnknownMethod", message: "no such method")
                continue
            }
            guard let (version, correlationId, json) = call.arguments else {
                call.replyError(name: "org.freedesktop.DBus.Error.InvalidArgs", message: "expected (sss)")
                continue
            }
            let behavior = state.withLock { state in
                state.requests.append(
                    EmulatedBrokerRequest(
                        method: call.member, protocolVersion: version, correlationId: correlationId, json: json))
                return state.behavior
            }
            switch behavior {
            case .never:
                unanswered.append(call)
                continue
            case .garbage:
                call.reply("<html>not json")
                continue
            case .dbusError(let name, let message):
                call.replyError(name: name, message: message)
                continue
            case .reply(let text):
                call.reply(text)
                continue
            default: break
            }
            let request = (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any] ?? [:]
            switch call.member {
            case "getLinuxBrokerVersion":
                call.reply(Self.encode(["linuxBrokerVersion": Self.version]))
            case "getAccounts":
                let accounts = state.withLock { state in state.accountOrder.compactMap { state.accounts[$0] } }
                call.reply(Self.encode(["accounts": accounts]))
            case "removeAccount":
                let account = request["account"] as? [String: Any]
                if let id = account?["homeAccountId"] as? String {
                    state.withLock { state in
                        state.accounts[id] = nil
                        state.accountOrder.removeAll { $0 == id }
                    }
                }
                call.reply("{}")
            case "cancelInteractiveFlow":
                for waiting in waitingForCancel {
                    waiting.reply(Self.tokenError(status: "UserCanceled", context: "cancelled by the application"))
                }
                waitingForCancel.removeAll()
                call.reply("{}")
            case "acquireTokenInteractively":
                switch behavior {
                case .waitForCancel: waitingForCancel.append(call)
                case .userCanceled: call.reply(Self.tokenError(status: "UserCanceled", context: "the user cancelled"))
                case .interactionRequired:
                    call.reply(Self.tokenError(status: "InteractionRequired", context: "AADSTS50076"))
                default: call.reply(acquire(request, interactive: true, alternateShapes: behavior == .alternateShapes))
                }
            case "acquireTokenSilently":
                if behavior == .interactionRequired {
                    call.reply(Self.tokenError(status: "InteractionRequired", context: "AADSTS50076"))
                } else {
                    call.reply(acquire(request, interactive: false, alternateShapes: behavior == .alternateShapes))
                }
            default:
                call.replyError(name: "org.freedesktop.DBus.Error.UnknownMethod", message: "no method \(call.member)")
            }
        }
        _ = unanswered
    }

    /// A token for `request`: the signed-in account's (silent), or a new sign-in's (interactive).
    private func acquire(_ request: [String: Any], interactive: Bool, alternateShapes: Bool) -> String {
        let parameters = request["authParameters"] as? [String: Any] ?? [:]
        let clientId = parameters["clientId"] as? String ?? ""
        let scopes = Self.scopes(parameters["requestedScopes"])
        let authority = parameters["authority"] as? String ?? "https://login.microsoftonline.com/common"
        let tenant = URL(string: authority)?.pathComponents.dropFirst().first ?? "common"
        let username: String
        if interactive {
            let hinted = (parameters["username"] as? String).flatMap { $0.isEmpty ? nil : $0 }
            guard let chosen = hinted ?? emulator.defaultUsername else {
                return Self.tokenError(status: "InteractionRequired", context: "no user signs in")
            }
            username = chosen
        } else {
            let account = (request["account"] as? [String: Any]) ?? (parameters["account"] as? [String: Any])
            let id = account?["homeAccountId"] as? String ?? ""
            guard let known = state.withLock({ $0.accounts[id]?["username"] as? String }) else {
                return Self.tokenError(status: "AccountNotFound", context: "the account is not signed in to the broker")
            }
            username = known
        }
        guard let password = emulator.engine.state.withLock({ $0.user(named: username)?.password }) else {
            return Self.tokenError(status: "AccountNotFound", context: "no such user")
        }
        var form = URLComponents()
        form.queryItems = [
            .init(name: "grant_type", value: "password"), .init(name: "client_id", value: clientId),
            .init(name: "username", value: username), .init(name: "password", value: password),
            .init(name: "scope", value: (scopes + ["openid", "profile", "offline_access"]).joined(separator: " ")),
            .init(name: "client_info", value: "1"),
        ]
        let body = (form.percentEncodedQuery ?? "").replacingOccurrences(of: "+", with: "%2B")
        let action = emulator.engine.handle(
            HTTPServerRequest(
                method: "POST", target: "/\(tenant)/oauth2/v2.0/token",
                headers: HTTPServerHeaders([
                    ("Host", "login.microsoftonline.com"), ("Content-Type", "application/x-www-form-urlencoded"),
                ]),
                body: Data(body.utf8)))
        guard case .respond(let response) = action,
            let answer = (try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any]
        else {
            return Self.tokenError(status: "Unexpected", context: "the emulator did not answer")
        }
        guard response.status == 200, let accessToken = answer["access_token"] as? String,
            let idToken = answer["id_token"] as? String, let clientInfo = answer["client_info"] as? String
        else {
            let status = (answer["error"] as? String) == "invalid_grant" ? "InteractionRequired" : "Unexpected"
            return Self.tokenError(status: status, context: answer["error_description"] as? String ?? "")
        }
        let account = Self.account(idToken: idToken, clientInfo: clientInfo)
        if let id = account["homeAccountId"] as? String {
            state.withLock { state in
                if state.accounts[id] == nil { state.accountOrder.append(id) }
                state.accounts[id] = account
            }
        }
        let now = emulator.now.timeIntervalSince1970
        let expiresIn = answer["expires_in"] as? Int ?? 3600
        let extendedIn = answer["ext_expires_in"] as? Int ?? expiresIn
        let expiresOn = Int64((now + Double(expiresIn)) * 1000)
        let extendedExpiresOn = Int64((now + Double(extendedIn)) * 1000)
        let granted = answer["scope"] as? String ?? scopes.joined(separator: " ")
        let reply: [String: Any] = [
            "brokerTokenResponse": [
                "accessToken": accessToken, "accessTokenType": "Bearer", "account": account,
                "clientInfo": clientInfo, "idToken": idToken,
                "expiresOn": alternateShapes ? String(expiresOn) as Any : expiresOn,
                "extendedExpiresOn": alternateShapes ? String(extendedExpiresOn) as Any : extendedExpiresOn,
                "grantedScopes": alternateShapes ? granted.split(separator: " ").map(String.init) as Any : granted,
            ]
        ]
        return Self.encode(reply)
    }

    /// The broker's account for an id token and client info the emulator issued.
    static func account(idToken: String, clientInfo: String) -> [String: Any] {
        let parts = idToken.split(separator: ".", omittingEmptySubsequences: false)
        let claims =
            parts.count > 1
            ? Base64URL.decode(String(parts[1])).flatMap {
                (try? JSONSerialization.jsonObject(with: Data($0))) as? [String: Any]
            } ?? [:] : [:]
        let info =
            Base64URL.decode(clientInfo).flatMap {
                (try? JSONSerialization.jsonObject(with: Data($0))) as? [String: String]
            } ?? [:]
        let name = claims["name"] as? String ?? ""
        let words = name.split(separator: " ").map(String.init)
        return [
            "homeAccountId": "\(info["uid"] ?? "").\(info["utid"] ?? "")",
            "localAccountId": claims["oid"] as? String ?? "",
            "environment": "login.microsoftonline.com",
            "realm": claims["tid"] as? String ?? "",
            "username": claims["preferred_username"] as? String ?? "",
            "name": name, "givenName": words.first ?? "", "familyName": words.dropFirst().joined(separator: " "),
            "clientInfo": clientInfo,
        ]
    }

    static func scopes(_ value: Any?) -> [String] {
        if let list = value as? [String] { return list }
        if let text = value as? String { return text.split(separator: " ").map(String.init) }
        return []
    }

    static func tokenError(status: String, context: String) -> String {
        encode([
            "brokerTokenResponse": ["error": ["status": status, "context": context, "subStatus": 0] as [String: Any]]
        ])
    }

    static func encode(_ object: [String: Any]) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
