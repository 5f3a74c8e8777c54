// The README's quick start, compiled (it must stay true). Top-level code became a function.

import Foundation
import MSAL

enum ReadmeSample {
    static func run(clientId: String) async throws -> MSALResult {
        let application = try MSALPublicClientApplication(configuration: .init(clientId: clientId))

        func token(scopes: [String]) async throws -> MSALResult {
            if let account = try application.allAccounts().first {
                do {
                    return try await application.acquireTokenSilent(with: .init(scopes: scopes, account: account))
                } catch let error as NSError where error.code == MSALError.interactionRequired.rawValue {
                    // expired or revoked refresh token, new consent or MFA needed: sign in again below
                }
            }
            return try await application.acquireToken(with: .init(scopes: scopes))  // system browser + loopback
        }

        let result = try await token(scopes: ["User.Read"])
        print(result.account.username ?? "", result.authorizationHeader)  // "Bearer eyJ..."
        return result
    }
}
