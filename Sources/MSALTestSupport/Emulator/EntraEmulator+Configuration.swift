extension EntraEmulator {
    /// How an emulator starts: port, clouds, directory contents, lifetimes and behaviour. Everything
    /// except ``port``, ``clouds``, ``additionalHostNames`` and ``offersFormPost`` can also be
    /// changed while it runs.
    public struct Configuration: Sendable {
        /// The port on 127.0.0.1, or 0 for a free one.
        public var port: Int
        /// The clouds it poses as; every alias is in its certificate and ``EntraEmulator/connectTo``.
        public var clouds: [EmulatorCloud]
        /// More host names for the certificate (a custom B2C or CIAM domain). `localhost`,
        /// `127.0.0.1`, `::1`, the cloud aliases, `*.b2clogin.com`, `*.ciamlogin.com` and the AD FS
        /// tenants' domains are always included.
        public var additionalHostNames: [String]
        /// The tenants.
        public var tenants: [EmulatorTenant]
        /// The users.
        public var users: [EmulatorUser]
        /// The applications.
        public var clients: [EmulatorClient]
        /// Who signs in when nothing else decides (no `login_hint`, no session, no script).
        public var defaultUsername: String?
        /// Token lifetimes.
        public var lifetimes: EmulatorTokenLifetimes
        /// What the refresh-token grant does with the token it redeems.
        public var refreshTokenRotation: EmulatorRefreshTokenRotation
        /// The device-code polling `interval` in seconds; a poll sooner than this after the previous
        /// one gets `slow_down` (0 turns the check off).
        public var deviceCodeInterval: Int
        /// The `verification_uri` of device-code responses.
        public var deviceVerificationURI: String
        /// The key that signs tokens; `nil` makes a new one (a few hundred milliseconds).
        public var signingKey: EmulatorSigningKey?
        /// Whether `response_mode=form_post` is offered, as Entra does: listed in the OpenID
        /// configuration's `response_modes_supported` and answered with an auto-submitting form.
        /// `false` lists only `query` and `fragment` and refuses `form_post` (error 70007, in the
        /// query), like a server without it, so the library's query mode stays tested.
        public var offersFormPost: Bool
        /// Whether an app may ask for resource scopes it did not register (any scope is granted,
        /// as older emulators did). Default `false`: a scope missing from the app's
        /// ``EmulatorClient/permissions`` gets `invalid_scope` (AADSTS70011), as Entra answers a
        /// scope its resource does not expose, so a typo in a scope fails the test.
        public var acceptsUnregisteredScopes: Bool
        /// Whether users must consent before an app gets tokens without interaction. Default
        /// `false` (every registered scope counts as consented). `true`: an interactive sign-in or
        /// a device-code approval records consent to the scopes granted; a refresh or password
        /// grant, or a `prompt=none` sign-in, asking for anything else gets `consent_required`
        /// (AADSTS65001; `invalid_grant` with that suberror at the token endpoint). Admin consent:
        /// ``EntraEmulator/grantConsent(username:clientId:scopes:)``.
        public var requiresConsent: Bool
        /// When set, the emulator also serves its control endpoint under `/.emulator/` on its own
        /// port, to requests with `Authorization: Bearer <controlToken>`: device-code approval,
        /// the clock, faults, users and consent for tests outside Swift (`msal emulator` sets one;
        /// the commands are listed in Docs/Testing.md). Default `nil`: no control endpoint.
        public var controlToken: String?

        /// The default configuration: a free port, every Microsoft cloud, the tenants, users and
        /// apps of ``EmulatorTenant/defaults``, ``EmulatorUser/defaults`` and
        /// ``EmulatorClient/defaults``, Alice as the default user, Entra's lifetimes.
        public init(
            port: Int = 0,
            clouds: [EmulatorCloud] = EmulatorCloud.all,
            additionalHostNames: [String] = [],
            tenants: [EmulatorTenant] = EmulatorTenant.defaults,
            users: [EmulatorUser] = EmulatorUser.defaults,
            clients: [EmulatorClient] = EmulatorClient.defaults,
            defaultUsername: String? = EmulatorUser.alice.username,
            lifetimes: EmulatorTokenLifetimes = EmulatorTokenLifetimes(),
            refreshTokenRotation: EmulatorRefreshTokenRotation = .rotate,
            deviceCodeInterval: Int = 5,
            deviceVerificationURI: String = "https://microsoft.com/devicelogin",
            signingKey: EmulatorSigningKey? = nil,
            offersFormPost: Bool = true,
            acceptsUnregisteredScopes: Bool = false,
            requiresConsent: Bool = false,
            controlToken: String? = nil
        ) {
            self.port = port
            self.clouds = clouds
            self.additionalHostNames = additionalHostNames
            self.tenants = tenants
            self.users = users
            self.clients = clients
            self.defaultUsername = defaultUsername
            self.lifetimes = lifetimes
            self.refreshTokenRotation = refreshTokenRotation
            self.deviceCodeInterval = deviceCodeInterval
            self.deviceVerificationURI = deviceVerificationURI
            self.signingKey = signingKey
            self.offersFormPost = offersFormPost
            self.acceptsUnregisteredScopes = acceptsUnregisteredScopes
            self.requiresConsent = requiresConsent
            self.controlToken = controlToken
        }
    }
}
