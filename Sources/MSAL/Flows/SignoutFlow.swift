import Foundation

/// Sign-out: the account's tokens removed for this app (or wiped for every app, or the whole
/// cache), then optionally the browser session ended at the provider's `end_session_endpoint`.
struct SignoutFlow {
    let context: ApplicationContext

    func run(account: MSALAccount, parameters: MSALSignoutParameters, correlationId: UUID) async throws {
        let options = parameters.snapshot
        let clientId = context.clientId
        // The broker forgets the account too, when it is on and serves the account's authority.
        if context.broker != nil,
            let (authority, _) = try? context.requestAuthority(
                nil, account: account, retarget: true, correlationId: correlationId),
            let brokered = BrokerFlow(context: context, authority: authority)
        {
            await brokered.removeAccount(account, correlationId: correlationId)
        }
        if let homeAccountId = account.identifier {
            try await context.cache.modify { store in
                if options.wipeAll {
                    store.wipeAllAccounts()
                } else if options.wipeAccount {
                    store.wipeAccount(homeAccountId: homeAccountId, clientId: clientId)
                } else {
                    store.removeAccount(homeAccountId: homeAccountId, clientId: clientId)
                }
            }
        } else if options.wipeAll {
            try await context.cache.modify { $0.wipeAllAccounts() }
        }
        guard options.browser else { return }

        let (authority, knownAuthorities) = try context.requestAuthority(
            nil, account: account, retarget: true, correlationId: correlationId)
        let resolved = try await context.resolver.resolve(
            authority, knownAuthorities: knownAuthorities, correlationId: correlationId)
        guard let endSession = resolved.configuration.endSessionEndpoint else {
            Log.warning(
                "The authority has no end_session_endpoint; only the cache was cleared", correlationId: correlationId)
            return
        }
        let web = try WebAuthentication(
            settings: parameters.webviewParameters.settings, configuredRedirectURI: context.redirectUri,
            correlationId: correlationId)
        var components = URLComponents(url: endSession, resolvingAgainstBaseURL: false)
        var items = components?.queryItems ?? []
        items.append(URLQueryItem(name: "post_logout_redirect_uri", value: web.redirectURI))
        items.append(URLQueryItem(name: "state", value: UUID().uuidString))
        if let hint = account.username { items.append(URLQueryItem(name: "logout_hint", value: hint)) }
        for (name, value) in AuthorizationRequest.orderedParameters(options.extra) {
            items.append(URLQueryItem(name: name, value: value))
        }
        components?.queryItems = items
        guard let url = components?.url else {
            web.abandon()
            throw MSALErrors.make(
                .internalErrorInvalidResponse, "The end_session_endpoint is not a usable URL.",
                ErrorDetails(correlationId: correlationId))
        }
        _ = try await web.authorize(startURL: url)
    }
}
