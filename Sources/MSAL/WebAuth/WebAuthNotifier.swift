import Foundation

/// Posts MSAL's web authentication notifications on `NotificationCenter.default`, with the
/// `userInfo` keys of MSAL for iOS/macOS (`url`, `error`).
enum WebAuthNotifier {
    static func didStartLoad(_ url: URL) {
        post(MSALWebAuthDidStartLoadNotification, ["url": url])
    }

    static func didFinishLoad(_ url: URL) {
        post(MSALWebAuthDidFinishLoadNotification, ["url": url])
    }

    static func didFail(_ error: NSError) {
        post(MSALWebAuthDidFailNotification, ["error": error])
    }

    static func didComplete(_ url: URL) {
        post(MSALWebAuthDidCompleteNotification, ["url": url])
    }

    private static func post(_ name: String, _ userInfo: [AnyHashable: Any]) {
        NotificationCenter.default.post(name: Notification.Name(name), object: nil, userInfo: userInfo)
    }
}
