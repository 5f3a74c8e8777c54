import Foundation

/// A fresh folder under the temporary directory, removed by the test's teardown.
enum FileTestFolder {
    static func make() -> String {
        let path = NSTemporaryDirectory() + "msal-native-files-\(UUID().uuidString)"
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}
