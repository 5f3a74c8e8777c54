/// Posted on `NotificationCenter.default` when the sign-in page starts loading: when the system
/// browser is opened or the custom web view is asked to show the authorize URL. `userInfo["url"]`
/// holds that `URL`.
///
/// ```swift
/// NotificationCenter.default.addObserver(
///     forName: Notification.Name(MSALWebAuthDidStartLoadNotification), object: nil, queue: nil
/// ) { note in print("opened", note.userInfo?["url"] ?? "") }
/// ```
public let MSALWebAuthDidStartLoadNotification = "MSALWebAuthDidStartLoadNotification"

/// Posted when the web authentication reaches the redirect URI (the browser came back to the
/// loopback listener, or the custom web view returned). `userInfo["url"]` holds the redirect `URL`.
public let MSALWebAuthDidFinishLoadNotification = "MSALWebAuthDidFinishLoadNotification"

/// Posted when the web authentication fails: the browser could not be opened, the user or the app
/// cancelled, it timed out, or the custom web view threw. `userInfo["error"]` holds the `NSError`
/// that `acquireToken` reports.
public let MSALWebAuthDidFailNotification = "MSALWebAuthDidFailNotification"

/// Posted when the web authentication finished with a redirect to the app (success or an OAuth
/// error the server sent back). `userInfo["url"]` holds the redirect `URL`.
public let MSALWebAuthDidCompleteNotification = "MSALWebAuthDidCompleteNotification"

/// Declared for source compatibility with MSAL for iOS/macOS; never posted on Linux, where there
/// is no broker app.
public let MSALWebAuthWillSwitchToBrokerApp = "MSALWebAuthWillSwitchToBrokerApp"

/// Declared for source compatibility with MSAL for iOS/macOS; never posted on Linux, where there
/// is no broker app.
public let MSALWebAuthDidReceiveResponseFromBroker = "MSALWebAuthDidReceiveResponseFromBroker"
