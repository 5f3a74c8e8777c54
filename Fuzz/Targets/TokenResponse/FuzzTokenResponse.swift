// libFuzzer target: the whole token-answer path. The input is a token endpoint body: parsed as
// TokenResponse, then handled by TokenResponseHandler exactly as a sign-in, a refresh of a cached
// account and a refresh-token import are (a resolved AAD authority, scopes, the account), into an
// in-memory cache. Asserts nothing traps, a refused answer changes nothing in the store, and an
// accepted refresh names the refreshed account only. The input is also read as an OAuth error
// body and a device authorization answer. Built by scripts/fuzz.sh (`--sanitize=fuzzer`).
import Foundation
import MSALNative

@testable import MSAL

private let now = Date(timeIntervalSince1970: 1_767_225_600)
private let clientId = "4b0db8c2-9f26-4417-8bde-3f0e3656f8e0"
private let tenant = "72f988bf-86f1-41af-91ab-2d7cd011db47"
private let homeAccountId = "00000000-0000-0000-66f3-3332eca7ea81.\(tenant)"

/// The fuzzer never reaches the network: the handler does not send anything.
private struct NoNetwork: HTTPTransport {
    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        throw URLError(.notConnectedToInternet)
    }
}

private let configuration: MSALPublicClientApplicationConfig.Values = {
    let authority = try? MSALAuthority.authority(with: URL(string: "https://login.microsoftonline.com/common")!)
    let config = MSALPublicClientApplicationConfig(clientId: clientId, redirectUri: nil, authority: authority)
    config.cacheConfig.inMemoryOnly = true
    return config.values.withLock { $0 }
}()

private let resolved: ResolvedAuthority = {
    guard let authority = try? Authority.detect("https://login.microsoftonline.com/common") else {
        fatalError("the fuzzer's authority does not parse")
    }
    let url = { (text: String) in URL(string: text)! }
    let configuration = OpenIDConfiguration(
        authorizationEndpoint: url("https://login.microsoftonline.com/common/oauth2/v2.0/authorize"),
        tokenEndpoint: url("https://login.microsoftonline.com/common/oauth2/v2.0/token"),
        issuer: "https://login.microsoftonline.com/common/v2.0", endSessionEndpoint: nil,
        deviceAuthorizationEndpoint: nil, jwksURI: nil)
    return ResolvedAuthority(
        authority: authority, networkAuthority: authority, cacheEnvironment: "login.windows.net",
        cacheLookupEnvironments: ["login.windows.net", "login.microsoftonline.com"],
        aliases: ["login.microsoftonline.com", "login.windows.net", "login.microsoft.com", "sts.windows.net"],
        configuration: configuration)
}()

private let scopes = OrderedScopes(["https://graph.microsoft.com/User.Read"])

/// A genuine sign-in answer for the account the refresh scenario refreshes (the id token's claims
/// are Alice's in `tenant`, for `clientId`, with nonce `n-0S6_WzA2Mj`).
private let seedBody: Data = {
    func encode(_ text: String) -> String {
        Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
    let claims =
        #"{"aud":"\#(clientId)","iss":"https://login.microsoftonline.com/\#(tenant)/v2.0","iat":1767225000,"#
        + #""nbf":1767225000,"exp":1767228900,"name":"Alice","nonce":"n-0S6_WzA2Mj","#
        + #""oid":"00000000-0000-0000-66f3-3332eca7ea81","preferred_username":"alice@contoso.com","#
        + #""sub":"AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ","tid":"\#(tenant)","ver":"2.0"}"#
    let idToken = encode(#"{"alg":"RS256","kid":"k"}"#) + "." + encode(claims) + ".c2ln"
    let clientInfo = encode(#"{"uid":"00000000-0000-0000-66f3-3332eca7ea81","utid":"\#(tenant)"}"#)
    return Data(
        (#"{"token_type":"Bearer","scope":"https://graph.microsoft.com/User.Read openid profile","#
            + #""expires_in":3599,"access_token":"at","refresh_token":"rt","id_token":"\#(idToken)","#
            + #""client_info":"\#(clientInfo)"}"#).utf8)
}()

/// What a failure must leave as it was: the whole cache document.
private struct StoreState: Equatable {
    var document: [UInt8]

    static func of(_ context: ApplicationContext) async -> StoreState {
        StoreState(document: (try? await context.cache.read { CacheDocument.write($0) }) ?? [])
    }
}

/// Runs `body` to its end from the fuzzer's thread (libFuzzer's own, not one of Swift's
/// cooperative pool), which waits for it.
private func runToEnd(_ body: @escaping @Sendable () async -> Void) {
    let done = DispatchSemaphore(value: 0)
    Task {
        await body()
        done.signal()
    }
    done.wait()
}

private func context() -> ApplicationContext {
    ApplicationContext(configuration: configuration, transport: NoNetwork(), now: { now })
}

/// Handles `response` for `request` on `context`; checks a refusal changed nothing.
private func handle(_ response: TokenResponse, _ request: TokenResponseHandler.Request, on context: ApplicationContext)
    async -> MSALResult?
{
    let before = await StoreState.of(context)
    do {
        return try await TokenResponseHandler(context: context).handle(response, for: request)
    } catch {
        let after = await StoreState.of(context)
        // A declined-scope error comes after the tokens are cached (as MSAL does); every other
        // refusal happens before any write.
        if (error as NSError).code != MSALError.serverDeclinedScopes.rawValue {
            precondition(after == before, "a refused token answer changed the cache")
        }
        return nil
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTokenResponse(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let body = Data(bytes: data, count: size)
    if let response = try? TokenResponse(body: body, now: now) {
        precondition(!response.accessToken.isEmpty, "a token response without an access token")
        precondition(response.tokenType == "Bearer", "a token type other than Bearer")
        for seconds in [response.expiresOnSeconds, response.cachedAtSeconds] {
            precondition((0...5_000_000_000).contains(seconds), "a time outside the checked ranges")
        }
        _ = response.fields.count
        runToEnd { await handleEverywhere(response) }
    }
    if let error = OAuthServerError(jsonData: body) {
        precondition(!error.error.isEmpty, "an OAuth error without an error")
    }
    if let device = try? DeviceAuthorization(body: body, now: now) {
        precondition(!device.deviceCode.isEmpty && !device.userCode.isEmpty, "a device code response without codes")
        precondition(device.interval >= 0 && device.interval <= 60, "a polling interval out of range")
        _ = device.verificationURI.absoluteString
    }
    return 0
}

/// The answer as a sign-in, an import, and a refresh of a signed-in account.
private func handleEverywhere(_ response: TokenResponse) async {
    let correlationId = UUID()

    // A sign-in (with the nonce sent) and an import: a fresh cache each.
    _ = await handle(
        response,
        .init(
            resolved: resolved, scopes: scopes, correlationId: correlationId, nonce: "n-0S6_WzA2Mj", grant: .signIn),
        on: context())
    _ = await handle(
        response, .init(resolved: resolved, scopes: scopes, correlationId: correlationId, grant: .refreshToken),
        on: context())

    // A refresh of the account a genuine sign-in cached.
    let refreshing = context()
    guard let seed = try? TokenResponse(body: seedBody, now: now),
        let signedIn = await handle(
            seed,
            .init(
                resolved: resolved, scopes: scopes, correlationId: correlationId, nonce: "n-0S6_WzA2Mj",
                grant: .signIn),
            on: refreshing)
    else { preconditionFailure("the genuine sign-in answer was refused") }
    precondition(signedIn.account.identifier == homeAccountId, "the seed signed in someone else")
    if await handle(
        response,
        .init(
            resolved: resolved, scopes: scopes, correlationId: correlationId, account: signedIn.account,
            grant: .refreshToken),
        on: refreshing) != nil
    {
        let accounts = (try? await refreshing.cache.read { $0.accounts.values.map(\.homeAccountId) }) ?? []
        precondition(accounts.allSatisfy { $0 == homeAccountId }, "an accepted refresh added another account")
    }
}
