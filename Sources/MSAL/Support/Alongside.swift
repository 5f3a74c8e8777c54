import Foundation
import MSALNative

/// Runs `other` on a thread of its own while `here` runs on the calling thread, and returns both
/// results once both are done (also when `here` throws: `other` may use memory the caller owns).
///
/// For CPU work of tens of milliseconds that splits in two (loading a large token cache); a new
/// thread costs tens of microseconds, so small work should not use it.
func alongside<Here, Other: Sendable>(_ other: @escaping @Sendable () -> Other, _ here: () throws -> Here) rethrows
    -> (Here, Other)
{
    let result = Locked<Other?>(nil)
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        let value = other()
        result.withLock { $0 = value }
        done.signal()
    }
    thread.start()
    let mine: Here
    do {
        mine = try here()
    } catch {
        done.wait()
        throw error
    }
    done.wait()
    return (mine, result.withLock { $0.take()! })
}
