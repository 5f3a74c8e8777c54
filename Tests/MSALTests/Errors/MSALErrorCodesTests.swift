import Foundation
import MSAL
import XCTest

/// The public names and raw values, checked against MSAL for iOS/macOS 2.13.
final class MSALErrorCodesTests: XCTestCase {
    func testDomainAndEveryUserInfoKeyEqualTheirIdentifier() {
        XCTAssertEqual(MSALErrorDomain, "MSALErrorDomain")
        let keys: [(String, String)] = [
            (MSALOAuthErrorKey, "MSALOAuthErrorKey"),
            (MSALOAuthSubErrorKey, "MSALOAuthSubErrorKey"),
            (MSALOAuthSubErrorDescriptionKey, "MSALOAuthSubErrorDescriptionKey"),
            (MSALErrorDescriptionKey, "MSALErrorDescriptionKey"),
            (MSALSTSErrorCodesKey, "MSALSTSErrorCodesKey"),
            (MSALInternalErrorCodeKey, "MSALInternalErrorCodeKey"),
            (MSALHTTPHeadersKey, "MSALHTTPHeadersKey"),
            (MSALHTTPResponseCodeKey, "MSALHTTPResponseCodeKey"),
            (MSALCorrelationIDKey, "MSALCorrelationIDKey"),
            (MSALDeclinedScopesKey, "MSALDeclinedScopesKey"),
            (MSALGrantedScopesKey, "MSALGrantedScopesKey"),
            (MSALInvalidResultKey, "MSALInvalidResultKey"),
            (MSALDisplayableUserIdKey, "MSALDisplayableUserIdKey"),
            (MSALBrokerVersionKey, "MSALBrokerVersionKey"),
            (MSALHomeAccountIdKey, "MSALHomeAccountIdKey"),
            (MSALThrottlingCacheHitKey, "MSALThrottlingCacheHitKey"),
            (MSALClaimsChallengeKey, "MSALClaimsChallengeKey"),
        ]
        for (value, identifier) in keys {
            XCTAssertEqual(value, identifier)
        }
    }

    func testMSALErrorRawValues() {
        let expected: [(MSALError, Int)] = [
            (.internal, -50000),
            (.workplaceJoinRequired, -50001),
            (.interactionRequired, -50002),
            (.serverDeclinedScopes, -50003),
            (.serverProtectionPoliciesRequired, -50004),
            (.userCanceled, -50005),
            (.serverError, -50006),
            (.insufficientDeviceStrength, -50007),
            (.mdmEnrollmentCompletedNeedsRetry, -50008),
            (.serverInvalidRequestResetPasswordRequired, -50142),
        ]
        XCTAssertEqual(MSALError.allCases.count, expected.count)
        for (code, value) in expected {
            XCTAssertEqual(code.rawValue, value, "\(code)")
            XCTAssertEqual(MSALError(rawValue: value), code)
        }
        XCTAssertNil(MSALError(rawValue: -50009))
    }

    func testMSALInternalErrorRawValues() {
        let expected: [(MSALInternalError, Int)] = [
            (.internalErrorInvalidParameter, -42000),
            (.internalErrorRedirectSchemeNotRegistered, -42001),
            (.internalErrorInvalidRequest, -42002),
            (.internalErrorInvalidClient, -42003),
            (.internalErrorInvalidGrant, -42004),
            (.internalErrorInvalidScope, -42005),
            (.internalErrorUnauthorizedClient, -42006),
            (.internalErrorUnhandledResponse, -42007),
            (.internalErrorUnexpected, -42008),
            (.internalErrorUnexpectedHttpResponse, -42009),
            (.internalErrorFailedAuthorityValidation, -42010),
            (.internalErrorInvalidRedirectURI, -42011),
            (.internalErrorMismatchedUser, -42101),
            (.internalErrorAmbiguousAccount, -42102),
            (.internalErrorAuthorizationFailed, -42104),
            (.internalErrorAccountRequired, -42106),
            (.internalErrorSessionCanceled, -42401),
            (.internalErrorInteractiveSessionAlreadyRunning, -42402),
            (.internalErrorNoViewController, -42403),
            (.internalErrorAttemptToOpenURLFromExtension, -42404),
            (.internalErrorUINotSupportedInExtension, -42405),
            (.internalErrorInvalidState, -42501),
            (.internalErrorInvalidResponse, -42600),
            (.internalErrorNonHttpsRedirect, -42602),
            (.internalErrorBrokerResponseNotReceived, -42700),
            (.internalErrorBrokerNoResumeStateFound, -42701),
            (.internalErrorBrokerBadResumeStateFound, -42702),
            (.internalErrorBrokerMismatchedResumeState, -42703),
            (.internalErrorBrokerResponseHashMissing, -42704),
            (.internalErrorBrokerCorruptedResponse, -42705),
            (.internalErrorBrokerResponseDecryptionFailed, -42706),
            (.internalErrorBrokerResponseHashMismatch, -42707),
            (.internalErrorBrokerKeyFailedToCreate, -42708),
            (.internalErrorBrokerKeyNotFound, -42709),
            (.internalErrorBrokerUnknown, -42711),
            (.internalErrorBrokerApplicationTokenWriteFailed, -42712),
            (.internalErrorBrokerApplicationTokenReadFailed, -42713),
            (.internalBrokerNotAvailable, -42714),
            (.internalErrorInvalidASWebAuthenticationURL, -42745),
        ]
        for (code, value) in expected {
            XCTAssertEqual(code.rawValue, value, "\(code)")
        }
        // -42000...-42011, four -421xx, five -424xx, -42501, -42600, -42602, the broker codes
        // -42700...-42714 without -42710, and the JIT/PSSO codes -42715...-42744, then -42745.
        XCTAssertEqual(MSALInternalError.allCases.count, 12 + 4 + 5 + 1 + 2 + 14 + 30 + 1)
        let raw = Set(MSALInternalError.allCases.map(\.rawValue))
        XCTAssertEqual(raw.count, MSALInternalError.allCases.count, "raw values must be unique")
        for value in -42744 ... -42700 where value != -42710 {
            XCTAssertNotNil(MSALInternalError(rawValue: value), "missing \(value)")
        }
        XCTAssertNil(MSALInternalError(rawValue: -42710))
        XCTAssertNil(MSALInternalError(rawValue: -42103))
    }

    func testSeedStyleComparisonsCompile() {
        // As written in MSAL's samples: comparing codes through rawValue.
        let error = NSError(domain: MSALErrorDomain, code: -50002, userInfo: nil)
        XCTAssertTrue(error.code == MSALError.interactionRequired.rawValue)
        XCTAssertEqual(MSALError(rawValue: error.code), .interactionRequired)
    }
}
