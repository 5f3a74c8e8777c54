// The Swift code of "Enable authentication in your own iOS Swift app by using Azure AD B2C"
// (seed 004, Dutch), in a class standing in for the sample's UIViewController. Changes: no UIKit
// (the view controller is a plain class, `updateLoggingText` appends to a list,
// `MSALWebviewParameters(authPresentationViewController: self)` is `MSALWebviewParameters()`),
// the tenant constants point at a test emulator, and the sample's `...` branches are left out.

import Foundation
import MSAL

final class B2CSampleViewController: @unchecked Sendable {
    let kTenantName = "contosob2c.onmicrosoft.com"
    let kAuthorityHostName = "contosob2c.b2clogin.com"
    let kClientID: String
    let kRedirectUri = "http://localhost"
    let kSignupOrSigninPolicy = "B2C_1_signupsignin"
    let kEditProfilePolicy = "B2C_1_editprofile"
    let kGraphURI = "https://contosob2c.onmicrosoft.com/api/read"
    let kScopes: [String] = ["https://contosob2c.onmicrosoft.com/api/read"]
    let kEndpoint = "https://%@/%@/%@"

    var accessToken: String?
    var applicationContext: MSALPublicClientApplication!
    var webViewParameters: MSALWebviewParameters?
    var logs: [String] = []

    init(clientId: String) {
        kClientID = clientId
    }

    func updateLoggingText(text: String) {
        logs.append(text)
    }

    func viewDidLoad(configure: (MSALPublicClientApplicationConfig) -> Void = { _ in }) {
        do {

            let signinPolicyAuthority = try self.getAuthority(forPolicy: self.kSignupOrSigninPolicy)
            let editProfileAuthority = try self.getAuthority(forPolicy: self.kEditProfilePolicy)

            let pcaConfig = MSALPublicClientApplicationConfig(
                clientId: kClientID, redirectUri: kRedirectUri, authority: signinPolicyAuthority)
            pcaConfig.knownAuthorities = [signinPolicyAuthority, editProfileAuthority]
            configure(pcaConfig)

            self.applicationContext = try MSALPublicClientApplication(configuration: pcaConfig)
            self.initWebViewParams()

        } catch {
            self.updateLoggingText(text: "Unable to create application \(error)")
        }
    }

    func initWebViewParams() {
        self.webViewParameters = MSALWebviewParameters()
        self.webViewParameters?.webviewType = .default
    }

    func getAuthority(forPolicy policy: String) throws -> MSALB2CAuthority {
        guard
            let authorityURL = URL(
                string: String(format: self.kEndpoint, self.kAuthorityHostName, self.kTenantName, policy))
        else {
            throw NSError(
                domain: "SomeDomain", code: 1, userInfo: ["errorDescription": "Unable to create authority URL!"])
        }
        return try MSALB2CAuthority(url: authorityURL)
    }

    func authorizationButton(authority: MSALB2CAuthority, done: @escaping @Sendable () -> Void) {
        let parameters = MSALInteractiveTokenParameters(scopes: kScopes, webviewParameters: self.webViewParameters!)
        parameters.promptType = .selectAccount
        parameters.authority = authority

        applicationContext.acquireToken(with: parameters) { (result, error) in

            // On error code
            guard let result = result else {
                self.updateLoggingText(text: "Could not acquire token: \(error ?? "No error information" as! Error)")
                done()
                return
            }

            // On success code
            self.accessToken = result.accessToken
            self.updateLoggingText(text: "Access token is \(self.accessToken ?? "Empty")")
            done()
        }
    }

    func acquireTokenSilently(done: @escaping @Sendable () -> Void) {
        do {

            // Get the authority using the sign-in or sign-up user flow
            let authority = try self.getAuthority(forPolicy: self.kSignupOrSigninPolicy)

            // Get the current account from the application context
            guard
                let thisAccount = try self.getAccountByPolicy(
                    withAccounts: applicationContext.allAccounts(), policy: kSignupOrSigninPolicy)
            else {
                self.updateLoggingText(text: "There is no account available!")
                done()
                return
            }

            // Configure the acquire token silent parameters
            let parameters = MSALSilentTokenParameters(scopes: kScopes, account: thisAccount)
            parameters.authority = authority
            parameters.loginHint = "username"

            // Acquire token silent
            self.applicationContext.acquireTokenSilent(with: parameters) { (result, error) in
                if let error = error {

                    let nsError = error as NSError

                    // interactionRequired means we need to ask the user to sign in. This usually happens
                    // when the user's Refresh Token is expired or if the user has changed their password
                    // among other possible reasons.

                    if nsError.domain == MSALErrorDomain {

                        if nsError.code == MSALError.interactionRequired.rawValue {

                            // Start an interactive authorization code
                            // Notice we supply the account here. This ensures we acquire token for the same account
                            // as we originally authenticated.
                        }
                    }

                    self.updateLoggingText(text: "Could not acquire token: \(error)")
                    done()
                    return
                }

                guard let result = result else {

                    self.updateLoggingText(text: "Could not acquire token: No result returned")
                    done()
                    return
                }

                // On success, set the access token to the accessToken class member.
                // The callGraphAPI method uses the access token to call a web API
                self.accessToken = result.accessToken
                self.updateLoggingText(text: "Silent token acquired")
                done()
            }
        } catch {
            self.updateLoggingText(text: "Unable to construct parameters before calling acquire token \(error)")
            done()
        }
    }

    func getAccountByPolicy(withAccounts accounts: [MSALAccount], policy: String) throws -> MSALAccount? {
        for account in accounts {
            // This is a single account sample, so we only check the suffic part of the object id,
            // where object id is in the form of <object id>-<policy>.
            // For multi-account apps, the whole object id needs to be checked.
            if let homeAccountId = account.homeAccountId, let objectId = homeAccountId.objectId {
                if objectId.hasSuffix(policy.lowercased()) {
                    return account
                }
            }
        }
        return nil
    }

    func signoutButton() {
        do {

            let thisAccount = try self.getAccountByPolicy(
                withAccounts: applicationContext.allAccounts(), policy: kSignupOrSigninPolicy)

            if let accountToRemove = thisAccount {
                try applicationContext.remove(accountToRemove)
            } else {
                self.updateLoggingText(text: "There is no account to signing out!")
            }

        } catch {
            self.updateLoggingText(text: "Received error signing out: \(error)")
        }
    }
}
