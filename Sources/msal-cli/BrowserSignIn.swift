import Foundation
import MSAL
import Synchronization

/// `msal login` in the system browser, aware of machines where no browser can open (SSH sessions,
/// containers): there the sign-in address is printed for the user to open in a browser that reaches
/// this machine's loopback listener, with the device code flow offered instead; in a script (standard
/// error not a terminal) the command fails at once rather than wait for nobody.
enum BrowserSignIn {
    /// How the sign-in page is shown.
    enum Plan: Equatable {
        /// `$BROWSER`, else `xdg-open` (a display is there).
        case browser
        /// No browser can open: print the address and wait for the redirect.
        case printAddress
        /// No browser can open and nobody reads standard error: fail at once.
        case fail
    }

    /// The plan for an environment: a browser when `$BROWSER` is set or a display (`DISPLAY`,
    /// `WAYLAND_DISPLAY`) is there; else the address when standard error is a terminal.
    static func plan(environment: [String: String], standardErrorIsTerminal: Bool) -> Plan {
        let set = { (name: String) in !(environment[name] ?? "").isEmpty }
        if set("BROWSER") || set("DISPLAY") || set("WAYLAND_DISPLAY") { return .browser }
        return standardErrorIsTerminal ? .printAddress : .fail
    }

    /// What to do instead, for every message about a missing browser.
    static let alternatives =
        "sign in from any device with `msal login --device-code`, or set $BROWSER to a browser command"

    static func run(_ application: MSALPublicClientApplication, target: TokenTarget, environment: [String: String])
        async throws -> MSALResult
    {
        let terminal = Console.standardErrorIsTerminal
        switch plan(environment: environment, standardErrorIsTerminal: terminal) {
        case .fail:
            throw CommandFailure(
                message: "no browser can be opened here (no $BROWSER and no display); \(alternatives)",
                code: .failure)
        case .printAddress:
            return try await printingAddress(application, target: target, reason: "no $BROWSER and no display")
        case .browser:
            Console.error("Opening the sign-in page in the browser; waiting for it to come back (Ctrl-C cancels)...")
            do {
                return try await remindingAfter(.seconds(5)) {
                    try await application.acquireToken(with: parameters(target))
                }
            } catch {
                guard isBrowserLaunchFailure(error) else { throw error }
                guard terminal else {
                    _ = ErrorReport.report(error)
                    throw CommandFailure(message: "no browser could be started; \(alternatives)", code: .failure)
                }
                return try await printingAddress(
                    application, target: target, reason: "the browser could not be started")
            }
        }
    }

    /// Signs in with a browser command that opens nothing: the library starts its loopback
    /// listener and announces the address (`MSALWebAuthDidStartLoadNotification`), which is printed.
    private static func printingAddress(
        _ application: MSALPublicClientApplication, target: TokenTarget, reason: String
    ) async throws -> MSALResult {
        let observer = NotificationCenter.default.addObserver(
            forName: Notification.Name(MSALWebAuthDidStartLoadNotification), object: nil, queue: nil
        ) { note in
            guard let url = note.userInfo?["url"] as? URL else { return }
            Console.error(addressMessage(url, reason: reason))
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let webview = MSALWebviewParameters()
        webview.browserCommand = "/bin/true:/usr/bin/true:true"
        return try await application.acquireToken(with: parameters(target, webview: webview))
    }

    /// Runs `signIn`; when it has not ended after `delay`, says once where the browser has to come
    /// back to (the loopback redirect URI of the sign-in address the library announced), so that a
    /// browser that never submits the page (a script, a tab closed) does not leave a silent wait.
    private static func remindingAfter<T: Sendable>(
        _ delay: Duration, _ signIn: () async throws -> T
    ) async throws -> T {
        let redirect = Mutex<String?>(nil)
        let observer = NotificationCenter.default.addObserver(
            forName: Notification.Name(MSALWebAuthDidStartLoadNotification), object: nil, queue: nil
        ) { note in
            guard let url = note.userInfo?["url"] as? URL, let uri = redirectURI(url) else { return }
            redirect.withLock { $0 = uri }
        }
        let reminder = Task {
            try await Task.sleep(for: delay)
            Console.error(waitingMessage(redirectURI: redirect.withLock { $0 }))
        }
        defer {
            reminder.cancel()
            NotificationCenter.default.removeObserver(observer)
        }
        return try await signIn()
    }

    /// The reminder printed while the browser has not come back.
    static func waitingMessage(redirectURI: String?) -> String {
        let place = redirectURI ?? "this machine's loopback redirect URI"
        return "msal: waiting for the browser to come back to \(place) ... The sign-in page sends it there when "
            + "the sign-in ends (a browser that does not run the page's script, such as curl, never does); Ctrl-C "
            + "cancels, or use `msal login --device-code`."
    }

    /// The `redirect_uri` of an authorize URL.
    static func redirectURI(_ url: URL) -> String? {
        URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "redirect_uri" }?.value
    }

    /// The sign-in's parameters: the target's scopes and resource indicator.
    static func parameters(_ target: TokenTarget, webview: MSALWebviewParameters? = nil)
        -> MSALInteractiveTokenParameters
    {
        let parameters =
            webview.map { MSALInteractiveTokenParameters(scopes: target.scopes, webviewParameters: $0) }
            ?? MSALInteractiveTokenParameters(scopes: target.scopes)
        parameters.resourceIndicator = target.resourceIndicator
        return parameters
    }

    /// The message with the sign-in address and how to continue.
    static func addressMessage(_ url: URL, reason: String) -> String {
        let port = redirectPort(url).map { "\($0)" } ?? "PORT"
        return """
            No browser can be opened here (\(reason)). Open this address in a browser on this machine, or \
            on yours with the port forwarded (ssh -L \(port):localhost:\(port) ...); this command waits \
            for the sign-in to come back (Ctrl-C cancels):

              \(url.absoluteString)

            Or press Ctrl-C and \(alternatives).
            """
    }

    /// The port of the loopback redirect URI in an authorize URL.
    static func redirectPort(_ url: URL) -> Int? {
        redirectURI(url).flatMap { URLComponents(string: $0)?.port }
    }

    /// Whether `error` is the library's "Cannot open the system browser" (-50000): no `$BROWSER`
    /// command and no `xdg-open` started.
    static func isBrowserLaunchFailure(_ error: any Error) -> Bool {
        let nsError = error as NSError
        guard nsError.domain == MSALErrorDomain, nsError.code == MSALError.internal.rawValue else { return false }
        return MSALErrorInfo(nsError).errorDescription?.hasPrefix("Cannot open the system browser") == true
    }
}
