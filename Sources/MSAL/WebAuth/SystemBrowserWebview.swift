import Foundation

/// The system browser and a loopback listener behind the same interface as a custom web view:
/// opens the authorize URL with ``SystemBrowser`` and returns the redirect the
/// ``LoopbackRedirectListener`` receives.
struct SystemBrowserWebview: MSALWebviewProvider {
    let listener: LoopbackRedirectListener
    let browser: SystemBrowser
    /// Seconds to wait for the browser to come back.
    let timeout: TimeInterval
    let correlationId: UUID?

    func authorize(startURL: URL, redirectURIPrefix: String) async throws -> URL {
        // The listener takes only requests that carry the state of this authorize URL, in the
        // response mode it asks the server for.
        let state = URLComponents(url: startURL, resolvingAgainstBaseURL: false)?
            .queryItems?.first { $0.name == "state" }?.value
        let responseMode = RedirectResponseMode(startURL: startURL)
        let listener = listener
        let browser = browser
        let correlationId = correlationId
        // Beside the wait for the redirect: a browser that stays open never ends `open`'s wait
        // before its grace, and one that fails ends the wait for the redirect.
        Task {
            do {
                try await browser.open(startURL, correlationId: correlationId)
            } catch {
                listener.fail(error as NSError)
            }
        }
        return try await listener.waitForRedirect(expectedState: state, responseMode: responseMode, timeout: timeout)
    }
}
