import Foundation
import MSALNative

/// The running part of an ``EntraEmulator``: state, signing key, and the request handler the
/// loopback server calls on its connection threads. The server's handler retains the engine,
/// never the public emulator, so releasing the emulator stops the server.
final class EmulatorEngine: Sendable {
    let state: Locked<EmulatorState>
    let clouds: [EmulatorCloud]
    let deviceVerificationURI: String
    let signingKey: EmulatorSigningKey
    /// ``EntraEmulator/Configuration/offersFormPost``.
    let offersFormPost: Bool

    init(configuration: EntraEmulator.Configuration) throws {
        state = Locked(EmulatorState(configuration: configuration))
        clouds = configuration.clouds
        deviceVerificationURI = configuration.deviceVerificationURI
        signingKey = try configuration.signingKey ?? EmulatorSigningKey()
        offersFormPost = configuration.offersFormPost
    }

    var now: Date { state.withLock { $0.now } }

    /// Handles one request: route, record, apply an injected fault, answer.
    func handle(_ request: HTTPServerRequest) -> HTTPServerAction {
        let route = EmulatorRoute.parse(path: request.path) { segment in
            state.withLock { $0.tenant(named: segment)?.kind == .b2c }
        }
        let context = EmulatorRequestContext(request: request, route: route, clouds: clouds, now: now)
        let grantType = route.endpoint == .token ? context.parameters["grant_type"] : nil
        let fault = state.withLock { state -> EmulatorFault? in
            record(context, grantType: grantType, in: &state)
            return state.takeFault(for: route.endpoint, grantType: grantType)
        }
        var directive = FaultDirective()
        switch fault {
        case .response(let status, let body, let headers)?:
            var fields = HTTPServerHeaders(headers.sorted { $0.key < $1.key })
            if !fields.contains("Content-Type"), body.first == UInt8(ascii: "{") {
                fields.add("Content-Type", "application/json; charset=utf-8")
            }
            return .respond(decorate(HTTPServerResponse(status: status, headers: fields, body: body), context))
        case .throttled(let status, let retryAfter)?:
            let error = EntraErrorResponse(
                error: "temporarily_unavailable", code: 50196,
                message: "The server is throttling this client; retry after the Retry-After interval.",
                status: status)
            var response = context.errorResponse(error)
            response.headers.add("Retry-After", retryAfter.headerValue)
            return .respond(decorate(response, context))
        case .dropConnection?:
            return .closeConnection
        case .oauthError(let error)? where route.endpoint != .authorize:
            return .respond(decorate(context.errorResponse(error), context))
        case .oauthError(let error)?:
            directive.error = error
        case .declineScopes(let scopes)?:
            directive.declinedScopes = scopes
        case .alterIDToken(let alteration)?:
            directive.idTokenAlteration = alteration
        case .rewriteFields(let members)?:
            directive.fieldRewrites = members
        case .delay, .truncatedResponse, nil:
            break
        case .endlessBody?, .oversizedBody?, .stallMidHeaders?, .endlessHeaders?:
            return fault.flatMap { transportMisbehaviour($0, context) } ?? .closeConnection
        }
        var answered = answer(context, directive: directive)
        if let members = directive.fieldRewrites { answered.body = EmulatorRawJSON.rewrite(answered.body, members) }
        let response = decorate(answered, context)
        switch fault {
        case .delay(let seconds)?:
            return .respondAfter(seconds: seconds, response)
        case .truncatedResponse?:
            return .respondPartially(response, bytes: max(1, response.serialized().count / 2))
        default:
            return .respond(response)
        }
    }

    /// The server action of a transport fault (``EmulatorFault/endlessBody`` and the others of
    /// its group), with the headers every Entra answer carries; `nil` for any other fault.
    private func transportMisbehaviour(_ fault: EmulatorFault, _ context: EmulatorRequestContext) -> HTTPServerAction? {
        let headers = decorate(.json(data: Data()), context).headers
        switch fault {
        case .endlessBody:
            return .respondEndlessBody(headers: headers)
        case .oversizedBody(let bytes, let chunked):
            return .respondOversizedBody(bytes: bytes, chunked: chunked, headers: headers)
        case .stallMidHeaders:
            return .stallMidHead(headers: headers)
        case .endlessHeaders:
            return .respondEndlessHead()
        default:
            return nil
        }
    }

    private func answer(_ context: EmulatorRequestContext, directive: FaultDirective) -> HTTPServerResponse {
        switch context.route.endpoint {
        case .instanceDiscovery: return instanceDiscovery(context)
        case .openIDConfiguration: return openIDConfiguration(context)
        case .keys: return keys(context)
        case .authorize: return authorize(context, directive: directive)
        case .token: return token(context, directive: directive)
        case .deviceCode: return deviceCode(context)
        case .logout: return logout(context)
        case .unknown:
            return .json(
                status: 404,
                ["error": "not_found", "error_description": "The emulator does not serve \(context.request.path)."])
        }
    }

    /// Adds the headers every Entra answer carries, and echoes `client-request-id` when asked to.
    /// `date` as an IMF-fixdate (RFC 9110 §5.6.7): `Sun, 06 Nov 1994 08:49:37 GMT`.
    static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }

    private func decorate(_ response: HTTPServerResponse, _ context: EmulatorRequestContext) -> HTTPServerResponse {
        var response = response
        response.headers["x-ms-request-id"] = context.traceId
        if response.headers["Cache-Control"] == nil { response.headers["Cache-Control"] = "no-store, no-cache" }
        // The emulator's clock (moved by advanceClock), as Entra ID sends its own on every answer.
        if response.headers["Date"] == nil { response.headers["Date"] = Self.httpDate(context.now) }
        if context.request.header("return-client-request-id")?.lowercased() == "true",
            let id = context.request.header("client-request-id")
        {
            response.headers["client-request-id"] = id
        }
        return response
    }

    private func record(_ context: EmulatorRequestContext, grantType: String?, in state: inout EmulatorState) {
        state.endpointCounts[context.route.endpoint, default: 0] += 1
        if let grantType { state.grantCounts[grantType, default: 0] += 1 }
        let request = context.request
        let isForm =
            request.header("Content-Type")?.lowercased().hasPrefix("application/x-www-form-urlencoded") ?? false
        state.requestLog.append(
            EmulatorRequestRecord(
                method: request.method, host: context.host, path: request.path, endpoint: context.route.endpoint,
                queryItems: request.queryItems, formItems: isForm ? request.formItems : [], headers: request.headers,
                connectionNumber: request.connectionNumber, receivedAt: context.now))
        if state.requestLog.count > EmulatorState.requestLogLimit {
            state.requestLog.removeFirst(state.requestLog.count - EmulatorState.requestLogLimit)
        }
    }

    /// A random opaque value (codes, refresh tokens), base64url.
    func randomToken(bytes: Int = 32, prefix: String = "") -> String {
        let random = (try? SecureRandom.bytes(bytes)) ?? Array(UUID().uuidString.utf8)
        return prefix + Base64URL.encode(random)
    }
}

/// What an injected fault changes in a normal answer.
struct FaultDirective {
    /// An error to send instead (at the authorize endpoint: as an error redirect).
    var error: EntraErrorResponse?
    /// Scopes to leave out of what is granted.
    var declinedScopes: [String] = []
    /// A change that makes the id token one the client must reject.
    var idTokenAlteration: EmulatorFault.IDTokenAlteration?
    /// Members of the answer's JSON body to replace with raw JSON text (`nil` removes one).
    var fieldRewrites: [String: String?]?
}
