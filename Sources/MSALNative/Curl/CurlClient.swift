internal import CMSALCurl
import Foundation

/// Performs HTTP exchanges with libcurl's multi interface on one dedicated thread.
///
/// Async callers hand a ``CurlRequest`` over and suspend; the loop thread drives every transfer
/// with `curl_multi_poll`, so blocking network work never runs on Swift's cooperative pool.
/// Connections stay open between requests (one connection cache for all transfers of the client),
/// so requests to the same host reuse a kept-alive connection. Cancelling the calling task removes
/// its transfer at once.
package final class CurlClient: Sendable {
    /// Limits of the connection cache.
    package struct Limits: Sendable {
        /// The most connections open at once to one host; further transfers wait for a free one.
        package var maxConnectionsPerHost: Int
        /// The most idle connections kept open for reuse.
        package var maxCachedConnections: Int

        package init(maxConnectionsPerHost: Int = 32, maxCachedConnections: Int = 64) {
            self.maxConnectionsPerHost = maxConnectionsPerHost
            self.maxCachedConnections = maxCachedConnections
        }
    }

    private let loop: CurlMultiLoop

    package init(limits: Limits = Limits()) throws(NativeError) {
        loop = try CurlMultiLoop(limits: limits)
    }

    deinit {
        loop.shutdown()
    }

    /// Performs `request` and returns the response, whatever its status code.
    ///
    /// - Throws: ``CurlError`` when no response arrived (DNS, connect, TLS, timeout, protocol
    ///   error), or with ``CurlError/isCancellation`` when the calling task was cancelled.
    package func perform(_ request: CurlRequest) async throws(CurlError) -> CurlResponse {
        let id = loop.nextTransferID()
        let result: Result<CurlResponse, CurlError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                loop.submit(id: id, request: request, continuation: continuation)
            }
        } onCancel: {
            loop.cancel(id: id)
        }
        loop.forget(id: id)
        return try result.get()
    }
}

/// The thread, the multi handle and the transfers in flight.
///
/// Submissions and cancellations are queued under a lock and the loop is woken with
/// `curl_multi_wakeup`; everything else (easy handles, the multi handle) is touched only on the
/// loop thread.
private final class CurlMultiLoop: @unchecked Sendable {
    // @unchecked: `multi` is used only on the loop thread, except `curl_multi_wakeup`, which
    // libcurl documents as callable from any thread; all other shared state is in `inbox`.

    typealias Continuation = CheckedContinuation<Result<CurlResponse, CurlError>, Never>

    private struct Submission {
        var id: UInt64
        var request: CurlRequest
        var continuation: Continuation
    }

    private struct Inbox {
        var submissions: [Submission] = []
        var cancellations: [UInt64] = []
        var cancelledBeforeSubmit: Set<UInt64> = []
        var submittedIDs: Set<UInt64> = []
        var nextID: UInt64 = 1
        var stopping = false
        var finished = false
    }

    /// A transfer in flight; owned by the loop thread.
    private final class Transfer {
        let id: UInt64
        let easy: CurlEasyHandle
        let continuation: Continuation

        init(id: UInt64, easy: CurlEasyHandle, continuation: Continuation) {
            self.id = id
            self.easy = easy
            self.continuation = continuation
        }
    }

    private let multi: UnsafeMutableRawPointer
    private let inbox = Locked(Inbox())
    private let done = DispatchSemaphore(value: 0)

    // Loop-thread state.
    private var transfersByID: [UInt64: Transfer] = [:]
    private var transfersByHandle: [UnsafeMutableRawPointer: Transfer] = [:]
    private var idleHandles: [CurlEasyHandle] = []

    init(limits: CurlClient.Limits) throws(NativeError) {
        CurlGlobal.initializeOnce()
        guard let multi = curl_multi_init() else {
            throw NativeError(function: "curl_multi_init", reason: "out of memory")
        }
        self.multi = multi
        _ = cmsal_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, limits.maxConnectionsPerHost)
        _ = cmsal_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, limits.maxCachedConnections)
        let thread = Thread { [self] in run() }
        thread.name = "msal-curl"
        thread.stackSize = 1 << 20
        thread.start()
    }

    func nextTransferID() -> UInt64 {
        inbox.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
    }

    func submit(id: UInt64, request: CurlRequest, continuation: Continuation) {
        let rejected: CurlError? = inbox.withLock { state in
            if state.stopping {
                return CurlError(code: CurlError.cancelledCode, message: "The HTTP client was shut down")
            }
            if state.cancelledBeforeSubmit.remove(id) != nil {
                return Self.cancellationError
            }
            state.submittedIDs.insert(id)
            state.submissions.append(Submission(id: id, request: request, continuation: continuation))
            return nil
        }
        if let rejected {
            continuation.resume(returning: .failure(rejected))
        } else {
            curl_multi_wakeup(multi)
        }
    }

    func cancel(id: UInt64) {
        inbox.withLock { state in
            if state.submittedIDs.contains(id) {
                state.cancellations.append(id)
            } else {
                state.cancelledBeforeSubmit.insert(id)
            }
        }
        curl_multi_wakeup(multi)
    }

    /// Drops what is remembered of a finished transfer (a cancellation that arrived too late).
    func forget(id: UInt64) {
        inbox.withLock { _ = $0.cancelledBeforeSubmit.remove(id) }
    }

    func shutdown() {
        let alreadyStopping = inbox.withLock { state in
            defer { state.stopping = true }
            return state.stopping
        }
        guard !alreadyStopping else { return }
        curl_multi_wakeup(multi)
        done.wait()
        curl_multi_cleanup(multi)
    }

    private static let cancellationError = CurlError.cancelled

    // MARK: Loop thread

    private func run() {
        var stillRunning: Int32 = 0
        while true {
            let (submissions, cancellations, stopping) = inbox.withLock { state in
                defer {
                    state.submissions.removeAll(keepingCapacity: true)
                    state.cancellations.removeAll(keepingCapacity: true)
                }
                return (state.submissions, state.cancellations, state.stopping)
            }
            for id in cancellations {
                finish(id: id, with: .failure(Self.cancellationError))
            }
            for submission in submissions {
                start(submission)
            }
            if stopping {
                for id in Array(transfersByID.keys) {
                    finish(id: id, with: .failure(Self.cancellationError))
                }
                idleHandles.removeAll()
                done.signal()
                return
            }
            curl_multi_perform(multi, &stillRunning)
            collectFinishedTransfers()
            curl_multi_poll(multi, nil, 0, 1000, nil)
        }
    }

    private func start(_ submission: Submission) {
        let easy: CurlEasyHandle
        do {
            if let reused = idleHandles.popLast() {
                reused.reset()
                easy = reused
            } else {
                easy = try CurlEasyHandle()
            }
            try easy.configure(for: submission.request, userData: Unmanaged.passUnretained(easy).toOpaque())
        } catch {
            inbox.withLock { _ = $0.submittedIDs.remove(submission.id) }
            let failure = CurlError(code: 2, message: error.description)
            submission.continuation.resume(returning: .failure(failure))
            return
        }
        let transfer = Transfer(id: submission.id, easy: easy, continuation: submission.continuation)
        transfersByID[submission.id] = transfer
        transfersByHandle[easy.handle] = transfer
        curl_multi_add_handle(multi, easy.handle)
    }

    private func collectFinishedTransfers() {
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(multi, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle,
                let transfer = transfersByHandle[handle]
            else { continue }
            let code = message.pointee.data.result
            let result: Result<CurlResponse, CurlError> =
                code == CURLE_OK ? .success(transfer.easy.response()) : .failure(transfer.easy.error(code: code))
            finish(id: transfer.id, with: result)
        }
    }

    private func finish(id: UInt64, with result: Result<CurlResponse, CurlError>) {
        guard let transfer = transfersByID.removeValue(forKey: id) else { return }
        transfersByHandle[transfer.easy.handle] = nil
        curl_multi_remove_handle(multi, transfer.easy.handle)
        inbox.withLock { _ = $0.submittedIDs.remove(id) }
        transfer.easy.responseBody = []
        if idleHandles.count < 16 { idleHandles.append(transfer.easy) }
        transfer.continuation.resume(returning: result)
    }
}
