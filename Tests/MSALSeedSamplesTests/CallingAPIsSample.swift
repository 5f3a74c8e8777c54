// The round trip of Docs/CallingAPIs.md, compiled (it must stay true). The app's own HTTP call
// (`send`) became a parameter.

import Foundation
import MSAL

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

enum CallingAPIsSample {
    static func callAPI(
        _ request: URLRequest, account: MSALAccount, application: MSALPublicClientApplication,
        send: (URLRequest, String) async throws -> (Data, HTTPURLResponse)
    ) async throws -> (Data, HTTPURLResponse) {
        let scopes = ["https://graph.microsoft.com/.default"]
        var token = try await application.acquireTokenSilent(
            with: MSALSilentTokenParameters(scopes: scopes, account: account))
        var (data, response) = try await send(request, token.authorizationHeader)
        guard response.statusCode == 401,
            let header = response.value(forHTTPHeaderField: "WWW-Authenticate")
        else { return (data, response) }

        let challenge = try MSALWWWAuthenticateParameters(headerValues: [header])
        do {
            token = try await application.acquireToken(
                forChallenge: challenge, with: MSALSilentTokenParameters(scopes: scopes, account: account))
        } catch let error as NSError
            where error.domain == MSALErrorDomain
            && error.code == MSALError.interactionRequired.rawValue
        {
            let interactive = MSALInteractiveTokenParameters(scopes: scopes)
            if let claims = error.userInfo[MSALClaimsChallengeKey] as? String {
                interactive.claimsRequest = try MSALClaimsRequest(jsonString: claims)
            }
            token = try await application.acquireToken(with: interactive)
        }
        (data, response) = try await send(request, token.authorizationHeader)
        return (data, response)
    }

    static func metadata(application: MSALPublicClientApplication, challenge: MSALWWWAuthenticateParameters?)
        async throws -> MSALProtectedResourceMetadata
    {
        let resource = URL(string: "https://mcp.example.com/mcp")!
        let metadata = try await application.protectedResourceMetadata(forResource: resource, challenge: challenge)
        _ = (metadata.authority, metadata.scopes, metadata.isMicrosoftEntra, metadata.resourceIndicator)
        return metadata
    }

    static func resourceToken(
        application: MSALPublicClientApplication, metadata: MSALProtectedResourceMetadata, account: MSALAccount
    ) async throws -> MSALResult {
        let parameters = MSALSilentTokenParameters(scopes: metadata.scopes, account: account)
        parameters.resourceIndicator = metadata.resourceIndicator
        let result = try await application.acquireTokenSilent(with: parameters)
        return result
    }

    /// "Sending the call through the library".
    static func callThroughTheLibrary(
        application: MSALPublicClientApplication, token: MSALResult, scopes: [String], account: MSALAccount
    ) async throws -> MSALProtectedResourceResponse {
        var token = token
        var request = MSALProtectedResourceRequest(url: URL(string: "https://graph.microsoft.com/v1.0/me")!)
        request.maximumResponseBodySize = 16 << 20  // default: MSALHTTPConfig.maximumResponseBodySize (1 MiB)
        var response = try await application.callProtectedResource(
            request, authorizationHeader: token.authorizationHeader)
        if response.statusCode == 401, let challenge = response.challenge, challenge.isClaimsChallenge {
            token = try await application.acquireToken(
                forChallenge: challenge, with: MSALSilentTokenParameters(scopes: scopes, account: account))
            response = try await application.callProtectedResource(
                request, authorizationHeader: token.authorizationHeader)
        }
        _ = (response.statusCode, response.headers, response.headerValues("Content-Type"), response.body)
        return response
    }
}
