import Foundation

/// Everything an emulator remembers, behind one lock (``EmulatorEngine/state``).
struct EmulatorState {
    var tenants: [EmulatorTenant]
    var users: [EmulatorUser]
    var clients: [EmulatorClient]
    var defaultUsername: String?
    var lifetimes: EmulatorTokenLifetimes
    var rotation: EmulatorRefreshTokenRotation
    var deviceCodeInterval: Int
    var clockOffset: TimeInterval = 0
    var signInDecision: (@Sendable (EmulatorSignInRequest) -> EmulatorSignInDecision)?
    /// The browser session: who signed in last, until logout.
    var sessionUsername: String?

    var codes: [String: AuthorizationCodeGrant] = [:]
    var refreshTokens: [String: RefreshTokenGrant] = [:]
    var deviceCodes: [String: DeviceCodeGrant] = [:]
    var faults: [PendingFault] = []
    /// Scopes a user declined for an app (key `username|clientId`, lowercased normalized scopes).
    var declinedConsents: [String: Set<String>] = [:]
    /// Scopes a user consented to for an app (same keys and scope form).
    var grantedConsents: [String: Set<String>] = [:]
    /// ``EntraEmulator/Configuration/acceptsUnregisteredScopes``.
    var acceptsUnregisteredScopes: Bool
    /// ``EntraEmulator/Configuration/requiresConsent``.
    var requiresConsent: Bool

    var endpointCounts: [EmulatorEndpoint: Int] = [:]
    var grantCounts: [String: Int] = [:]
    var requestLog: [EmulatorRequestRecord] = []
    var signIns: [EmulatorSignInRecord] = []

    /// The most requests ``requestLog`` keeps.
    static let requestLogLimit = 1000

    init(configuration: EntraEmulator.Configuration) {
        tenants = configuration.tenants
        users = configuration.users
        clients = configuration.clients
        defaultUsername = configuration.defaultUsername
        lifetimes = configuration.lifetimes
        rotation = configuration.refreshTokenRotation
        deviceCodeInterval = configuration.deviceCodeInterval
        acceptsUnregisteredScopes = configuration.acceptsUnregisteredScopes
        requiresConsent = configuration.requiresConsent
    }

    /// `invalid_scope` for the first of `requested` that `client` did not register, unless
    /// unregistered scopes are accepted.
    func registrationProblem(_ requested: [String], client: EmulatorClient) -> EntraErrorResponse? {
        acceptsUnregisteredScopes ? nil : EmulatorScopes.registrationProblem(requested, client: client)
    }

    /// Whether consent is needed before `username` gets `requested` for `client` without
    /// interaction: in consent mode, a resource scope neither consented to nor declined.
    func needsConsent(_ requested: [String], username: String, client: EmulatorClient) -> Bool {
        guard requiresConsent else { return false }
        let key = Self.consentKey(username, client.clientId)
        let settled = (grantedConsents[key] ?? []).union(declinedConsents[key] ?? [])
        return !EmulatorScopes.consentKeys(requested, client: client).isSubset(of: settled)
    }

    /// Records that `username` consented to `requested` for `client`, except `declined`.
    mutating func recordConsent(_ requested: [String], declined: [String], username: String, client: EmulatorClient) {
        let key = Self.consentKey(username, client.clientId)
        let consented = EmulatorScopes.consentKeys(requested, client: client)
            .subtracting(declined.map(EmulatorScopes.key))
        grantedConsents[key, default: []].formUnion(consented)
    }

    var now: Date { Date().addingTimeInterval(clockOffset) }

    func user(named username: String) -> EmulatorUser? {
        users.first { $0.username.lowercased() == username.lowercased() }
    }

    func client(_ clientId: String) -> EmulatorClient? {
        clients.first { $0.clientId.lowercased() == clientId.lowercased() }
    }

    func tenant(named segment: String) -> EmulatorTenant? {
        tenants.first { $0.isNamed(segment) }
    }

    func tenant(id: String) -> EmulatorTenant? {
        tenants.first { $0.id == id.lowercased() }
    }

    static func consentKey(_ username: String, _ clientId: String) -> String {
        "\(username.lowercased())|\(clientId.lowercased())"
    }

    /// Removes and returns the first fault waiting for `endpoint` (and `grantType` when the fault
    /// names one), counting down its remaining uses.
    mutating func takeFault(for endpoint: EmulatorEndpoint, grantType: String?) -> EmulatorFault? {
        guard
            let index = faults.firstIndex(where: { pending in
                pending.endpoint == endpoint && (pending.grantType == nil || pending.grantType?.rawValue == grantType)
            })
        else { return nil }
        let fault = faults[index].fault
        faults[index].remaining -= 1
        if faults[index].remaining <= 0 { faults.remove(at: index) }
        return fault
    }
}

/// A fault waiting for its endpoint.
struct PendingFault {
    let fault: EmulatorFault
    let endpoint: EmulatorEndpoint
    let grantType: EmulatorGrantType?
    var remaining: Int
}

/// Who and what a token is issued for: the shared part of codes, refresh tokens and device codes.
struct GrantSubject {
    var username: String
    var clientId: String
    /// The tenant the tokens are for (`tid`).
    var tenantId: String
    /// The B2C policy, for B2C tenants.
    var policy: String?
}

/// An authorization code, one-time, bound to its request.
struct AuthorizationCodeGrant {
    var subject: GrantSubject
    var redirectURI: String
    var codeChallenge: String?
    var codeChallengeMethod: String?
    var nonce: String?
    var scopes: [String]
    var declinedScopes: [String]
    var expiresAt: Date
    var redeemed = false
}

/// A refresh token the emulator issued.
struct RefreshTokenGrant {
    var subject: GrantSubject
    var familyId: String?
    var expiresAt: Date
    var revoked = false
}

/// A device code and its user code, waiting for approval.
struct DeviceCodeGrant {
    enum Status: Equatable {
        case pending
        case approved(username: String)
        case declined
        case redeemed
    }

    var deviceCode: String
    var userCode: String
    var clientId: String
    var scopes: [String]
    var route: EmulatorRoute
    var expiresAt: Date
    var lastPollAt: Date?
    var status: Status = .pending
    /// Scopes the user declined when approving.
    var declinedScopes: [String] = []
}
