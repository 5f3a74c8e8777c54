internal import Glibc

/// What the running system says about itself.
package enum SystemInfo {
    /// The kernel release (`uname -r`, e.g. `6.1.0-27-amd64`), or `nil` when `uname` fails.
    package static var kernelRelease: String? {
        var info = utsname()
        guard uname(&info) == 0 else { return nil }
        return withUnsafeBytes(of: &info.release) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
