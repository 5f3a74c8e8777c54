// The Swift sample of "Handle errors and exceptions in MSAL for iOS/macOS" (seed 002, Italian),
// as published, wrapped in a function. Changes: `application` and the parameters are inputs (the
// sample shows them as "..."), the `print` calls are routed to `log` so a test can see which
// branch ran, and `return` follows the branches that start a new request (the sample relies on
// the caller to stop there). The handling logic is the sample's.

import Foundation
import MSAL

enum ErrorHandlingSample {
    /// Runs the sample's completion block: silent first, interactive when required.
    static func run(
        application: MSALPublicClientApplication,
        interactiveParameters: MSALInteractiveTokenParameters,
        silentParameters: MSALSilentTokenParameters,
        log: @escaping (String) -> Void,
        done: @escaping (String?) -> Void
    ) {
        var completionBlock: MSALCompletionBlock!
        completionBlock = { (result: MSALResult?, error: Error?) in

            if let result = result {
                // Use result.accessToken
                let accessToken = result.accessToken
                done(accessToken)
                return
            }

            guard let error = error as NSError? else { return }

            if error.domain == MSALErrorDomain, let errorCode = MSALError(rawValue: error.code) {
                switch errorCode {
                case .interactionRequired:
                    // Interactive auth will be required
                    log("interactionRequired")
                    application.acquireToken(with: interactiveParameters, completionBlock: completionBlock)
                    return

                case .serverDeclinedScopes:
                    let grantedScopes = error.userInfo[MSALGrantedScopesKey]
                    let declinedScopes = error.userInfo[MSALDeclinedScopesKey]
                    log("serverDeclinedScopes \(declinedScopes ?? "")")

                    if let scopes = grantedScopes as? [String] {
                        silentParameters.scopes = scopes
                        application.acquireTokenSilent(with: silentParameters, completionBlock: completionBlock)
                        return
                    }

                case .serverProtectionPoliciesRequired:
                    // Integrate the Intune SDK and call the
                    // remediateComplianceForIdentity:silent: API.
                    // Handle this error only if you integrated Intune SDK.
                    // See more info here: https://aka.ms/intuneMAMSDK
                    break

                case .userCanceled:
                    // The user cancelled the web auth session.
                    // You may want to ask the user to try again.
                    // Handling of this error is optional.
                    break

                case .internal:
                    // Log the error, then inspect the MSALInternalErrorCodeKey
                    // in the userInfo dictionary.
                    // Display generic error message to the end user
                    // More detailed information about the specific error
                    // under MSALInternalErrorCodeKey can be found in MSALInternalError enum.
                    log("Failed with error \(error)")

                default:
                    log("Failed with unknown MSAL error \(error)")
                }
            }

            // Handle no internet connection.
            if error.domain == NSURLErrorDomain && error.code == NSURLErrorNotConnectedToInternet {
                log("No internet connection.")
                done(nil)
                return
            }

            // Other errors may require trying again later,
            // or reporting authentication problems to the user.
            log("Failed with error \(error)")
            done(nil)
        }

        // Acquire token silently
        application.acquireTokenSilent(with: silentParameters, completionBlock: completionBlock)
    }
}
