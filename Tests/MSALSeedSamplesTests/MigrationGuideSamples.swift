// The Swift samples of "Migrate applications to MSAL for iOS and macOS" (seed 000, Italian; seed
// 001 is the same guide in Swedish), as published, each wrapped in a function. Changes: the
// implicitly unwrapped "definitions that need to be initialized" became parameters, and
// `<your-resource-here>` a resource. Nothing else.

import Foundation
import MSAL

enum MigrationGuideSamples {
    static func createApplication() {
        let config = MSALPublicClientApplicationConfig(clientId: "<your-client-id-here>")
        do {
            let application = try MSALPublicClientApplication(configuration: config)
            // continue on with application
            _ = application
        } catch let error as NSError {
            // handle error here
            _ = error
        }
    }

    static func accountForIdentifier(application: MSALPublicClientApplication!, accountIdentifier: String!) {
        // definitions that need to be initialized
        do {
            let account = try application.account(forIdentifier: accountIdentifier)
            // continue with account usage
            _ = account
        } catch let error as NSError {
            // handle error here
            _ = error
        }
    }

    static func allAccounts(application: MSALPublicClientApplication!) {
        do {
            let accounts = try application.allAccounts()
            // continue with account usage
            _ = accounts
        } catch let error as NSError {
            // handle error here
            _ = error
        }
    }

    static func acquireTokenSilent(application: MSALPublicClientApplication!, account: MSALAccount!) {
        let silentParameters = MSALSilentTokenParameters(
            scopes: ["https://graph.microsoft.com/.default"],
            account: account)
        application.acquireTokenSilent(with: silentParameters) {
            (result: MSALResult?, error: Error?) in
            if let accessToken = result?.accessToken {
                // use accessToken
                _ = accessToken
            } else {
                // Check the error
                guard let error = error else {
                    assert(true, "callback should contain a valid result or error")
                    return
                }

                let nsError = error as NSError
                if nsError.domain == MSALErrorDomain
                    && nsError.code == MSALError.interactionRequired.rawValue
                {
                    // Interactive auth will be required
                }

                // Other errors may require trying again later, or reporting authentication problems to the user
            }
        }
    }
}
