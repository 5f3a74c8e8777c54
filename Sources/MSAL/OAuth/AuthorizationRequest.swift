import Foundation
import MSALNative

/// An authorization code request to the `/authorize` endpoint (RFC 6749 §4.1.1 with PKCE,
/// RFC 7636), with the parameters MSAL for iOS/macOS sends, and the secrets generated for it.
///
/// The interactive flow fills the inputs, reads ``redirectURI`` from the web authentication it
/// prepared (so a loopback port is known), builds the URL with ``url()``, and later checks the
/// response with ``AuthorizationResponse/init(url:request:)`` and redeems the code with
/// ``pkce``'s verifier. Each request carries its own fresh ``state``, ``nonce`` and ``pkce``.
struct AuthorizationRequest: Sendable {
    /// The authorize endpoint (from the resolved authority's metadata). An existing query (such
    /// as B2C's `p=`) is kept; its fragment is dropped.
    var authorizeEndpoint: URL
    /// `client_id`.
    var clientId: String
    /// `redirect_uri`: the concrete redirect URI (with the loopback port when chosen at run time).
    var redirectURI: String
    /// `scope`: the space-separated scopes, already built (``ScopeRules/authorizeRequestScopes(_:extraScopesToConsent:)``).
    var scope: String
    /// `login_hint`: the account's user name when an account is given, else the app's login hint.
    var loginHint: String?
    /// `prompt`, omitted for ``MSALPromptType/promptIfNecessary``.
    var promptType: MSALPromptType = .default
    /// `claims`: the JSON of the claims request merged with the client capabilities, or `nil`.
    var claims: String?
    /// `resource`: the RFC 8707 resource indicator, or `nil`.
    var resource: String?
    /// Whether to send `client_info=1` (authorities that support it: AAD, B2C, CIAM).
    var sendClientInfo = true
    /// `login_req`: the account's uid (from its home account id), when an account is given.
    var accountObjectId: String?
    /// `domain_req`: the account's home tenant id, when an account is given.
    var accountTenantId: String?
    /// `X-AnchorMailbox` (`Oid:<uid>@<utid>` or `UPN:<username>`), when known.
    var anchorMailbox: String?
    /// `instance_aware=true` (the app supports multiple clouds).
    var instanceAware = false
    /// `domain_hint`.
    var domainHint: String?
    /// `response_mode`: ``RedirectResponseMode/formPost`` for the loopback listener when the server
    /// offers it (``RedirectResponseMode/choose(supportedByServer:systemBrowser:)``), else `query`.
    var responseMode = RedirectResponseMode.query
    /// `client-request-id`, and the correlation id of everything logged for the request.
    var correlationId: UUID
    /// `x-app-name`, when known.
    var appName: String?
    /// `x-app-ver`, when known.
    var appVersion: String?
    /// Extra query parameters, sent last in this order (configuration ones, then per-request ones).
    /// Names the library sets itself are dropped (the library's value wins); `claims` together
    /// with a claims request is an error.
    var extraQueryParameters: [(name: String, value: String)] = []

    /// The random state (a UUID string); sent as its base64url encoding, ``encodedState``.
    let state: String
    /// `nonce`, checked in the id_token after redemption.
    let nonce: String
    /// The PKCE pair; the challenge goes in the URL, the verifier in the token request.
    let pkce: PKCE

    /// A request with fresh `state`, `nonce` and PKCE verifier.
    ///
    /// - Throws: -50000 when the system random generator fails.
    init(
        authorizeEndpoint: URL, clientId: String, redirectURI: String, scope: String, correlationId: UUID
    ) throws {
        let pkce: PKCE
        do {
            pkce = try PKCE()
        } catch {
            throw MSALErrors.make(
                .internal, "Cannot create the PKCE verifier: the random generator failed (\(error)).",
                ErrorDetails(correlationId: correlationId))
        }
        self.init(
            authorizeEndpoint: authorizeEndpoint, clientId: clientId, redirectURI: redirectURI, scope: scope,
            correlationId: correlationId, state: UUID().uuidString, nonce: UUID().uuidString, pkce: pkce)
    }

    /// A request with given secrets (tests).
    init(
        authorizeEndpoint: URL, clientId: String, redirectURI: String, scope: String, correlationId: UUID,
        state: String, nonce: String, pkce: PKCE
    ) {
        self.authorizeEndpoint = authorizeEndpoint
        self.clientId = clientId
        self.redirectURI = redirectURI
        self.scope = scope
        self.correlationId = correlationId
        self.state = state
        self.nonce = nonce
        self.pkce = pkce
    }

    /// `state` as sent: base64url of the UTF-8 of ``state`` (what MSAL sends).
    var encodedState: String {
        Base64URL.encode(Array(state.utf8))
    }

    /// Extra query parameters from a dictionary, in a stable order (sorted by name).
    static func orderedParameters(_ dictionary: [String: String]?) -> [(name: String, value: String)] {
        (dictionary ?? [:]).sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) }
    }
}
