public import Foundation
import MSALNative

extension EntraEmulator {
    // MARK: Directory

    /// Adds a tenant, or replaces the one with the same id.
    public func add(tenant: EmulatorTenant) {
        engine.state.withLock { state in
            state.tenants.removeAll { $0.id == tenant.id }
            state.tenants.append(tenant)
        }
    }

    /// Adds a user, or replaces the one with the same username.
    public func add(user: EmulatorUser) {
        engine.state.withLock { state in
            state.users.removeAll { $0.username.lowercased() == user.username.lowercased() }
            state.users.append(user)
        }
    }

    /// Adds an application, or replaces the one with the same client id.
    public func add(client: EmulatorClient) {
        engine.state.withLock { state in
            state.clients.removeAll { $0.clientId.lowercased() == client.clientId.lowercased() }
            state.clients.append(client)
        }
    }

    /// Removes a user; their refresh tokens then fail with `invalid_grant` (`user_account_deleted`).
    public func removeUser(username: String) {
        engine.state.withLock { state in
            state.users.removeAll { $0.username.lowercased() == username.lowercased() }
        }
    }

    /// The tenants, users and applications now configured.
    public var tenants: [EmulatorTenant] { engine.state.withLock { $0.tenants } }
    /// The users.
    public var users: [EmulatorUser] { engine.state.withLock { $0.users } }
    /// The applications.
    public var clients: [EmulatorClient] { engine.state.withLock { $0.clients } }

    /// Who signs in when nothing else decides.
    public var defaultUsername: String? {
        get { engine.state.withLock { $0.defaultUsername } }
        set { engine.state.withLock { $0.defaultUsername = newValue } }
    }

    // MARK: Behaviour

    /// Token lifetimes, applied to what is issued from now on.
    public var lifetimes: EmulatorTokenLifetimes {
        get { engine.state.withLock { $0.lifetimes } }
        set { engine.state.withLock { $0.lifetimes = newValue } }
    }

    /// What the refresh-token grant does with the token it redeems.
    public var refreshTokenRotation: EmulatorRefreshTokenRotation {
        get { engine.state.withLock { $0.rotation } }
        set { engine.state.withLock { $0.rotation = newValue } }
    }

    /// The device-code polling interval in seconds (0: no `slow_down`).
    public var deviceCodeInterval: Int {
        get { engine.state.withLock { $0.deviceCodeInterval } }
        set { engine.state.withLock { $0.deviceCodeInterval = newValue } }
    }

    /// Decides each interactive sign-in (called on a server thread, without locks held, so it may
    /// call this emulator). `nil`, or returning ``EmulatorSignInDecision/useDefaultRules``, applies
    /// the emulator's rules.
    public var signInDecision: (@Sendable (EmulatorSignInRequest) -> EmulatorSignInDecision)? {
        get { engine.state.withLock { $0.signInDecision } }
        set { engine.state.withLock { $0.signInDecision = newValue } }
    }

    /// The user of the browser session (set by each sign-in, cleared by logout), or `nil`.
    public var sessionUsername: String? {
        get { engine.state.withLock { $0.sessionUsername } }
        set { engine.state.withLock { $0.sessionUsername = newValue } }
    }

    /// Forgets what `username` consented to and declined for `clientId`.
    public func resetConsent(username: String, clientId: String) {
        engine.state.withLock {
            $0.declinedConsents.removeValue(forKey: EmulatorState.consentKey(username, clientId))
            $0.grantedConsents.removeValue(forKey: EmulatorState.consentKey(username, clientId))
        }
    }

    /// Records consent of `username` to `scopes` (`/.default` for the app's registered
    /// permissions) for `clientId`, as an administrator granting consent does.
    public func grantConsent(username: String, clientId: String, scopes: [String]) {
        engine.state.withLock { state in
            let client = state.client(clientId) ?? EmulatorClient(clientId: clientId, redirectURIs: [])
            state.recordConsent(scopes, declined: [], username: username, client: client)
        }
    }

    /// The scopes `username` consented to for `clientId` (`resource/name`, lowercased), sorted.
    public func consentedScopes(username: String, clientId: String) -> [String] {
        engine.state.withLock { $0.grantedConsents[EmulatorState.consentKey(username, clientId)] ?? [] }.sorted()
    }

    /// Whether an app may ask for scopes it did not register (see
    /// ``Configuration/acceptsUnregisteredScopes``).
    public var acceptsUnregisteredScopes: Bool {
        get { engine.state.withLock { $0.acceptsUnregisteredScopes } }
        set { engine.state.withLock { $0.acceptsUnregisteredScopes = newValue } }
    }

    /// Whether users must consent before tokens are issued without interaction (see
    /// ``Configuration/requiresConsent``).
    public var requiresConsent: Bool {
        get { engine.state.withLock { $0.requiresConsent } }
        set { engine.state.withLock { $0.requiresConsent = newValue } }
    }

    // MARK: Clock

    /// The emulator's clock: real time plus every ``advanceClock(by:)``.
    public var now: Date { engine.now }

    /// Moves the emulator's clock forward (or back): tokens, codes and device codes expire by it,
    /// and the `iat`/`exp` of new tokens follow it. Nothing sleeps.
    public func advanceClock(by seconds: TimeInterval) {
        engine.state.withLock { $0.clockOffset += seconds }
    }

    // MARK: Faults

    /// Makes the next `count` requests to `endpoint` (of `grantType`, when given, at the token
    /// endpoint) misbehave. Faults for one endpoint apply in the order injected.
    public func inject(
        _ fault: EmulatorFault,
        at endpoint: EmulatorEndpoint,
        count: Int = 1,
        grantType: EmulatorGrantType? = nil
    ) {
        guard count > 0 else { return }
        engine.state.withLock { state in
            state.faults.append(PendingFault(fault: fault, endpoint: endpoint, grantType: grantType, remaining: count))
        }
    }

    /// Drops every injected fault not used yet.
    public func clearFaults() {
        engine.state.withLock { $0.faults.removeAll() }
    }

    /// How many injected fault uses are still waiting.
    public var pendingFaultCount: Int {
        engine.state.withLock { $0.faults.reduce(0) { $0 + $1.remaining } }
    }

    // MARK: Refresh tokens

    /// Revokes every refresh token of `username` (as a password reset does): redeeming one gets
    /// `invalid_grant` AADSTS50173. Returns how many were revoked.
    @discardableResult
    public func revokeRefreshTokens(for username: String) -> Int {
        engine.state.withLock { state in
            var count = 0
            for (token, grant) in state.refreshTokens
            where grant.subject.username.lowercased() == username.lowercased() && !grant.revoked {
                state.refreshTokens[token]?.revoked = true
                count += 1
            }
            return count
        }
    }

    /// Expires the refresh tokens of `username` (every user's when `nil`): redeeming one gets
    /// `invalid_grant` AADSTS700082. Returns how many were expired.
    @discardableResult
    public func expireRefreshTokens(for username: String? = nil) -> Int {
        engine.state.withLock { state in
            let now = state.now
            var count = 0
            for (token, grant) in state.refreshTokens
            where username == nil || grant.subject.username.lowercased() == username?.lowercased() {
                state.refreshTokens[token]?.expiresAt = now.addingTimeInterval(-1)
                count += 1
            }
            return count
        }
    }

    /// Whether the emulator would accept `refreshToken` now (issued, not revoked, not expired).
    public func isRefreshTokenValid(_ refreshToken: String) -> Bool {
        engine.state.withLock { state in
            guard let grant = state.refreshTokens[refreshToken] else { return false }
            return !grant.revoked && grant.expiresAt > state.now
        }
    }

    // MARK: Device codes

    /// The user codes of device codes waiting for approval, oldest first.
    public var pendingUserCodes: [String] {
        engine.state.withLock { state in
            state.deviceCodes.values.filter { $0.status == .pending && $0.expiresAt > state.now }
                .sorted { $0.expiresAt < $1.expiresAt }.map(\.userCode)
        }
    }

    /// Signs `username` in for the device code with `userCode`, as the user would in a browser,
    /// consenting to its scopes except `declinedScopes` (remembered for that user and app, like
    /// declines at the authorize endpoint); the client's next poll gets tokens without them.
    ///
    /// - Throws: ``TestSupportError`` for an unknown, expired or already decided user code or an
    ///   unknown user.
    public func approveDeviceCode(
        userCode: String, as username: String = EmulatorUser.alice.username, declinedScopes: [String] = []
    ) throws {
        try decideDeviceCode(userCode) { state, grant in
            guard let user = state.user(named: username) else {
                throw TestSupportError("approveDeviceCode: no user \(username) in the emulator")
            }
            if let client = state.client(grant.clientId) {
                let key = EmulatorState.consentKey(user.username, client.clientId)
                var remembered = state.declinedConsents[key] ?? []
                remembered.subtract(grant.scopes.map(EmulatorScopes.key))
                remembered.formUnion(declinedScopes.map(EmulatorScopes.key))
                state.declinedConsents[key] = remembered
                state.recordConsent(grant.scopes, declined: declinedScopes, username: user.username, client: client)
            }
            grant.declinedScopes = declinedScopes
            grant.status = .approved(username: username)
        }
    }

    /// Declines the device code with `userCode`: the client's next poll gets `authorization_declined`.
    ///
    /// - Throws: ``TestSupportError`` for an unknown, expired or already decided user code.
    public func declineDeviceCode(userCode: String) throws {
        try decideDeviceCode(userCode) { _, grant in grant.status = .declined }
    }

    private func decideDeviceCode(
        _ userCode: String,
        _ decide: (inout EmulatorState, inout DeviceCodeGrant) throws -> Void
    ) throws {
        try engine.state.withLock { state in
            guard
                let key = state.deviceCodes.first(where: {
                    $0.value.userCode.uppercased() == userCode.uppercased()
                })?.key, let grant = state.deviceCodes[key]
            else {
                throw TestSupportError("no device code with user code \(userCode)")
            }
            guard grant.status == .pending, grant.expiresAt > state.now else {
                throw TestSupportError("the device code with user code \(userCode) is expired or already decided")
            }
            var decided = grant
            try decide(&state, &decided)
            state.deviceCodes[key] = decided
        }
    }

    // MARK: Counters and log

    /// How many requests reached `endpoint` (faulted ones included).
    public func requestCount(_ endpoint: EmulatorEndpoint) -> Int {
        engine.state.withLock { $0.endpointCounts[endpoint] ?? 0 }
    }

    /// How many token requests had `grantType`.
    public func tokenRequestCount(grantType: EmulatorGrantType) -> Int {
        engine.state.withLock { state in
            let names = grantType == .deviceCode ? [grantType.rawValue, "device_code"] : [grantType.rawValue]
            return names.reduce(0) { $0 + (state.grantCounts[$1] ?? 0) }
        }
    }

    /// How many requests the emulator received in all.
    public var totalRequestCount: Int {
        engine.state.withLock { $0.endpointCounts.values.reduce(0, +) }
    }

    /// How many TCP connections it accepted (kept-alive connections make this lower than requests).
    public var acceptedConnections: Int { server.acceptedConnections }

    /// The latest requests (up to 1000), oldest first.
    public var recentRequests: [EmulatorRequestRecord] {
        engine.state.withLock { $0.requestLog }
    }

    /// The latest requests to `endpoint`, oldest first.
    public func recentRequests(to endpoint: EmulatorEndpoint) -> [EmulatorRequestRecord] {
        engine.state.withLock { $0.requestLog.filter { $0.endpoint == endpoint } }
    }

    /// Every completed interactive sign-in, oldest first.
    public var signIns: [EmulatorSignInRecord] {
        engine.state.withLock { $0.signIns }
    }

    /// Sets every counter to zero and empties the request log and sign-in history.
    public func resetCounters() {
        engine.state.withLock { state in
            state.endpointCounts.removeAll()
            state.grantCounts.removeAll()
            state.requestLog.removeAll()
            state.signIns.removeAll()
        }
    }

    // MARK: Keys

    /// The public key that signs every token, as a JWK (`kty`, `n`, `e`, `kid`, `use`, `alg`).
    public var signingKeyJWK: [String: String] { engine.signingKey.publicJWK }
}
