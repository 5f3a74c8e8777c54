public import Foundation
import MSALNative

/// Which token an individual claim request is for.
public enum MSALClaimsRequestTarget: Int, Sendable {
    /// The id token (`id_token`).
    case idToken = 0
    /// The access token (`access_token`).
    case accessToken = 1

    var key: String { self == .idToken ? "id_token" : "access_token" }
}

/// Details of an individual claim request (OpenID Connect Core §5.5.1): whether it is essential,
/// and a required value or set of values.
public final class MSALIndividualClaimRequestAdditionalInfo: @unchecked Sendable {
    // @unchecked: every stored property is behind `state`'s lock.
    private let state = Locked((essential: NSNumber?.none, value: JSONValue?.none, values: [JSONValue]?.none))

    public init() {}

    /// Whether the claim is essential (`true`/`false` as an `NSNumber`), or `nil` to leave it out.
    public var essential: NSNumber? {
        get { state.withLock { $0.essential } }
        set { state.withLock { $0.essential = newValue } }
    }

    /// A required value (a string, number or Boolean).
    public var value: Any? {
        get { state.withLock { $0.value?.foundationObject } }
        set { state.withLock { $0.value = newValue.flatMap(JSONValue.init(foundationObject:)) } }
    }

    /// Acceptable values.
    public var values: [Any]? {
        get { state.withLock { $0.values?.map(\.foundationObject) } }
        set { state.withLock { $0.values = newValue?.compactMap(JSONValue.init(foundationObject:)) } }
    }

    var json: JSONValue? {
        state.withLock { state in
            var object: [String: JSONValue] = [:]
            if let essential = state.essential { object["essential"] = .bool(essential.boolValue) }
            if let value = state.value { object["value"] = value }
            if let values = state.values { object["values"] = .array(values) }
            return object.isEmpty ? nil : .object(object)
        }
    }
}

/// One requested claim: its name and optional details.
public final class MSALIndividualClaimRequest: @unchecked Sendable {
    // @unchecked: `additionalInfo` is behind a lock.
    /// The claim name, e.g. `auth_time` or `xms_cc`.
    public let name: String
    private let info = Locked(MSALIndividualClaimRequestAdditionalInfo?.none)

    /// A request for the claim `name`.
    public init(name: String) {
        self.name = name
    }

    /// The details, or `nil` for a plain request (`"name": null`).
    public var additionalInfo: MSALIndividualClaimRequestAdditionalInfo? {
        get { info.withLock { $0 } }
        set { info.withLock { $0 = newValue } }
    }
}

/// A `claims` request parameter (OpenID Connect Core §5.5): claims an app asks to be put in the id
/// token or access token, or the claims challenge a resource returned (conditional access).
///
/// ```swift
/// let request = try MSALClaimsRequest(jsonString: challengeFromResource)
/// parameters.claimsRequest = request
/// ```
public final class MSALClaimsRequest: @unchecked Sendable, CustomStringConvertible {
    // @unchecked: the requests are behind a lock.
    private let requests = Locked([MSALClaimsRequestTarget: [MSALIndividualClaimRequest]]())

    /// An empty claims request.
    public init() {}

    /// Parses a claims JSON object such as `{"access_token":{"xms_cc":{"values":["cp1"]}}}`.
    ///
    /// - Throws: -50000 with internal -42000 when the string is not such an object.
    public convenience init(jsonString: String) throws {
        self.init()
        guard let root = (try? JSONValue(parsing: jsonString))?.objectValue else {
            throw MSALErrors.make(
                .internalErrorInvalidParameter, "The claims request is not a JSON object. Pass the claims JSON as sent."
            )
        }
        for (key, value) in root {
            guard let target = [MSALClaimsRequestTarget.idToken, .accessToken].first(where: { $0.key == key }) else {
                continue
            }
            guard let claims = value.objectValue else {
                throw MSALErrors.make(
                    .internalErrorInvalidParameter, "The claims request's \(key) member is not a JSON object.")
            }
            for name in claims.keys.sorted() {
                let request = MSALIndividualClaimRequest(name: name)
                if let details = claims[name]?.objectValue {
                    let info = MSALIndividualClaimRequestAdditionalInfo()
                    info.essential = details["essential"]?.boolValue.map { NSNumber(value: $0) }
                    info.value = details["value"]?.foundationObject
                    info.values = details["values"]?.arrayValue?.map(\.foundationObject)
                    request.additionalInfo = info
                }
                try requestClaim(request, for: target)
            }
        }
    }

    /// Adds (or replaces, by name) a claim request for `target`.
    public func requestClaim(_ request: MSALIndividualClaimRequest, for target: MSALClaimsRequestTarget) throws {
        guard !request.name.isEmpty else {
            throw MSALErrors.make(.internalErrorInvalidParameter, "A claim request needs a non-empty name.")
        }
        requests.withLock { all in
            var list = all[target, default: []].filter { $0.name != request.name }
            list.append(request)
            all[target] = list
        }
    }

    /// Removes the claim request named `name` for `target`.
    public func removeClaimRequest(withName name: String, target: MSALClaimsRequestTarget) throws {
        requests.withLock { all in all[target] = all[target]?.filter { $0.name != name } }
    }

    /// The claim requests for `target`.
    public func claimsRequests(for target: MSALClaimsRequestTarget) -> [MSALIndividualClaimRequest] {
        requests.withLock { $0[target] ?? [] }
    }

    /// The claims JSON, or `nil` when empty.
    public func jsonString() -> String? {
        json.map { $0.serializedString(options: .sortedKeys) }
    }

    /// The JSON text (safe to log: claims requests hold no secrets).
    public var description: String { jsonString() ?? "{}" }

    var json: JSONValue? {
        let snapshot = requests.withLock { $0 }
        var root: [String: JSONValue] = [:]
        for (target, list) in snapshot where !list.isEmpty {
            var claims: [String: JSONValue] = [:]
            for request in list { claims[request.name] = request.additionalInfo?.json ?? .null }
            root[target.key] = .object(claims)
        }
        return root.isEmpty ? nil : .object(root)
    }

    /// The claims to send: this request merged with the app's client capabilities, sent as
    /// `{"access_token":{"xms_cc":{"values":[...]}}}` (as MSAL does). `nil` when both are empty.
    static func merged(_ request: MSALClaimsRequest?, capabilities: [String]?) -> String? {
        var root = request?.json?.objectValue ?? [:]
        if let capabilities, !capabilities.isEmpty {
            var accessToken = root["access_token"]?.objectValue ?? [:]
            accessToken["xms_cc"] = .object(["values": .array(capabilities.map { .string($0) })])
            root["access_token"] = .object(accessToken)
        }
        return root.isEmpty ? nil : JSONValue.object(root).serializedString(options: .sortedKeys)
    }
}
