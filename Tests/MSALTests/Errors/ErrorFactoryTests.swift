import Foundation
import XCTest

@testable import MSAL

final class ErrorFactoryTests: XCTestCase {
    private let correlationId = UUID()

    func testEveryDetailLandsUnderItsKey() {
        let underlying = NSError(domain: NSURLErrorDomain, code: -1005, userInfo: nil)
        let error = MSALErrors.make(
            .serverDeclinedScopes,
            "The server declined some scopes. Retry with the granted scopes.",
            ErrorDetails(
                oauthError: "invalid_grant",
                subError: "basic_action",
                subErrorDescription: "sub description",
                stsErrorCodes: [50076, 50079],
                httpStatusCode: 404,
                httpHeaders: ["Retry-After": "30"],
                correlationId: correlationId,
                underlyingError: underlying,
                grantedScopes: ["user.read"],
                declinedScopes: ["mail.read"],
                displayableUserId: "alice@contoso.com",
                homeAccountId: "uid.utid",
                throttled: true
            )
        )
        let info = error.userInfo
        XCTAssertEqual(error.domain, MSALErrorDomain)
        XCTAssertEqual(error.code, -50003)
        XCTAssertEqual(info[NSLocalizedDescriptionKey] as? String, info[MSALErrorDescriptionKey] as? String)
        XCTAssertEqual(error.localizedDescription, "The server declined some scopes. Retry with the granted scopes.")
        XCTAssertEqual(info[MSALOAuthErrorKey] as? String, "invalid_grant")
        XCTAssertEqual(info[MSALOAuthSubErrorKey] as? String, "basic_action")
        XCTAssertEqual(info[MSALOAuthSubErrorDescriptionKey] as? String, "sub description")
        XCTAssertEqual(info[MSALSTSErrorCodesKey] as? [Int], [50076, 50079])
        XCTAssertEqual(info[MSALHTTPResponseCodeKey] as? String, "404")
        XCTAssertEqual(info[MSALHTTPHeadersKey] as? [String: String], ["Retry-After": "30"])
        XCTAssertEqual(info[MSALCorrelationIDKey] as? String, correlationId.uuidString)
        XCTAssertEqual((info[NSUnderlyingErrorKey] as? NSError)?.code, -1005)
        XCTAssertEqual(info[MSALGrantedScopesKey] as? [String], ["user.read"])
        XCTAssertEqual(info[MSALDeclinedScopesKey] as? [String], ["mail.read"])
        XCTAssertEqual(info[MSALDisplayableUserIdKey] as? String, "alice@contoso.com")
        XCTAssertEqual(info[MSALHomeAccountIdKey] as? String, "uid.utid")
        XCTAssertEqual(info[MSALThrottlingCacheHitKey] as? Int, 1)
        XCTAssertEqual(info[MSALThrottlingCacheHitKey] as? Bool, true)
        XCTAssertNil(info[MSALInternalErrorCodeKey])
    }

    func testAbsentDetailsAddNoKeys() {
        let error = MSALErrors.make(.internalErrorInvalidParameter, "The scopes are empty. Pass at least one scope.")
        XCTAssertEqual(
            Set(error.userInfo.keys), [NSLocalizedDescriptionKey, MSALErrorDescriptionKey, MSALInternalErrorCodeKey])
        XCTAssertEqual(error.code, -50000)
        XCTAssertEqual(error.userInfo[MSALInternalErrorCodeKey] as? Int, -42000)
    }

    func testUnclassifiedWhenAsked() {
        let error = MSALErrors.make(.internalErrorInvalidGrant, "x", classify: false)
        XCTAssertEqual(error.code, -42004)
    }

    func testAddingInvalidResultLater() {
        let error = MSALErrors.make(.serverDeclinedScopes, "declined")
        let result = NSObject()
        let updated = MSALErrors.adding([MSALInvalidResultKey: result], to: error)
        XCTAssertTrue(updated.userInfo[MSALInvalidResultKey] as AnyObject === result)
        XCTAssertEqual(updated.code, error.code)
        XCTAssertEqual(updated.localizedDescription, "declined")
    }

    // MARK: - Real NSError instances (the Linux bridging trap)

    private func failing(_ error: NSError) throws -> Int {
        throw error
    }

    /// A non-throwing function with `catch let error as NSError`: with a bridged Swift error this
    /// does not match (and can crash) on Linux; with the factory's errors it matches.
    private func codeCaughtAsNSError(_ error: NSError) -> Int? {
        do {
            return try failing(error)
        } catch let error as NSError {
            return error.code
        } catch {
            return nil
        }
    }

    func testFactoryErrorsMatchNSErrorPatternsInNonThrowingContext() {
        let errors = [
            MSALErrors.make(.interactionRequired, "x"),
            MSALErrors.make(.internalErrorInvalidState, "x"),
            MSALErrors.classify(URLError(.notConnectedToInternet)),
            MSALErrors.classify(CancellationError()),
            MSALErrors.serverError(OAuthServerError(error: "invalid_grant"), endpoint: .token),
        ]
        for error in errors {
            XCTAssertEqual(codeCaughtAsNSError(error), error.code)
            let asAny: Any = error
            XCTAssertNotNil(asAny as? NSError)
            let asError: any Error = error
            XCTAssertTrue((asError as AnyObject) is NSError)
            XCTAssertTrue(type(of: asError) == NSError.self)
        }
    }

    func testSeedCompletionBlockPattern() {
        // The Swift sample of the error-handling seed, with MSALResult replaced by Any.
        var handled: [String] = []
        let completionBlock: (Any?, (any Error)?) -> Void = { result, error in
            if result != nil {
                handled.append("result")
                return
            }
            guard let error = error as NSError? else { return }

            if error.domain == MSALErrorDomain, let errorCode = MSALError(rawValue: error.code) {
                switch errorCode {
                case .interactionRequired:
                    handled.append("interaction")
                case .serverDeclinedScopes:
                    let grantedScopes = error.userInfo[MSALGrantedScopesKey]
                    if let scopes = grantedScopes as? [String] {
                        handled.append("declined:" + scopes.joined(separator: ","))
                    }
                case .serverProtectionPoliciesRequired:
                    handled.append("policy")
                case .userCanceled:
                    handled.append("canceled")
                case .internal:
                    handled.append("internal:\(error.userInfo[MSALInternalErrorCodeKey] as? Int ?? 0)")
                default:
                    handled.append("other")
                }
                return
            }
            if error.domain == NSURLErrorDomain && error.code == URLError.Code.notConnectedToInternet.rawValue {
                handled.append("offline")
                return
            }
            handled.append("unknown")
        }

        completionBlock(nil, MSALErrors.make(.interactionRequired, "x"))
        completionBlock(
            nil, MSALErrors.make(.serverDeclinedScopes, "x", ErrorDetails(grantedScopes: ["a", "b"])))
        completionBlock(nil, MSALErrors.make(.serverProtectionPoliciesRequired, "x"))
        completionBlock(nil, MSALErrors.make(.userCanceled, "x"))
        completionBlock(nil, MSALErrors.make(.internalErrorInvalidState, "x"))
        completionBlock(nil, MSALErrors.classify(URLError(.notConnectedToInternet)))
        completionBlock(nil, MSALErrors.make(.serverInvalidRequestResetPasswordRequired, "x"))
        completionBlock("token", nil)
        XCTAssertEqual(
            handled,
            [
                "interaction", "declined:a,b", "policy", "canceled", "internal:-42501", "offline", "other",
                "result",
            ])
    }

    func testAsyncThrowingCallerCanCatchAsNSError() async {
        func acquire() async throws -> String {
            throw MSALErrors.make(.interactionRequired, "x")
        }
        do {
            _ = try await acquire()
            XCTFail("expected an error")
        } catch let error as NSError {
            XCTAssertEqual(error.code, MSALError.interactionRequired.rawValue)
        } catch {
            XCTFail("not an NSError: \(error)")
        }
    }
}
