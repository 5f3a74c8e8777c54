internal import CMSALCurl
import Foundation

/// Performs HTTP exchanges with libcurl's multi interface on one dedicated thread.
///
/// Async callers hand a ``CurlRequest`` over and suspend; the loop thread drives every transfer
/// with `curl_multi_poll`, so blocking network work never runs on Swift's cooperative pool.
/// Connections stay open between requests (one connection cache for all transfers of the client),
/// so requests to the same host reuse a kept-alive connection. Cancelling the calling task removes
/// its transfer at once.
///
/// Latency: handing a request to another thread and back costs two thread wake-ups, 25-45 µs
/// each on a virtual machine, more than a loopback round trip itself. So when a request is the
/// only one in flight, the calling thread checks for its answer for a short, bounded time
/// (``Limits/spinBeforeSuspending``) before it suspends, and the loop thread checks for the next
/// request briefly before it sleeps. Both only read memory; neither blocks on I/O.
package final class CurlClient: Sendable {
    /// Limits of the connection cache and of the wait before suspending.
    package struct Limits: Sendable {
        /// The most connections open at once to one host; further transfers wait for a free one.
        package var maxConnectionsPerHost: Int
        /// The most idle connections kept open for reuse.
        package var maxCachedConnections: Int
        /// How long a lone request's caller, and the idle loop thread, look for work before
        /// sleeping. Zero turns both off.
        package var spinBeforeSuspending: Duration

        package init(
            maxConnectionsPerHost: Int = 32,
            maxCachedConnections: Int = 64,
            spinBeforeSuspending: Duration = .microseconds(200)
        ) {
            self.maxConnectionsPerHost = maxConnectionsPerHost
            self.maxCachedConnections = maxCachedConnections
            self.spinBeforeSuspending = spinBeforeSuspending
        }
    }

    private let loop: CurlMultiLoop
    private let spinNanoseconds: UInt64

    package init(limits: Limits = Limits()) throws(NativeError) {
        loop = try CurlMultiLoop(limits: limits)
        spinNanoseconds = limits.spinBeforeSuspending.nanoseconds
    }

    deinit {
        loop.shutdown()
    }

    /// Performs `request` and returns the response, whatever its status code.
    ///
    /// - Throws: ``CurlError`` when no response arrived (DNS, connect, TLS, timeout, protocol
    ///   error), or with ``CurlError/isCancellation`` when the calling task was cancelled.
    package func perform(_ request: CurlRequest) async throws(CurlError) -> CurlResponse {
        if Task.isCancelled { throw .cancelled }
        let slot = TransferSlot()
        let (id, alone) = loop.submit(request: request, slot: slot)
        let result = await withTaskCancellationHandler {
            if alone, spinNanoseconds > 0, let ready = slot.poll(forNanoseconds: spinNanoseconds) {
                return ready
            }
            return await slot.wait()
        } onCancel: {
            loop.cancel(id: id)
        }
        return try result.get()
    }
}

/// Where a transfer's outcome meets its caller, whichever arrives first.
private final class TransferSlot: @unchecked Sendable {
    // @unchecked: both stored properties are only touched while holding `lock`.
    typealias Outcome = Result<CurlResponse, CurlError>

    private let lock = NSLock()
    private var outcome: Outcome?
    private var continuation: CheckedContinuation<Outcome, Never>?

    /// Delivers the outcome: to the suspended caller if there is one, else kept for it.
    func complete(_ result: Outcome) {
        lock.lock()
        if let continuation {
            self.continuation = nil
            lock.unlock()
            continuation.resume(returning: result)
        } else {
            outcome = result
            lock.unlock()
        }
    }

    /// Looks for the outcome until it arrives or `nanoseconds` pass; only reads memory.
    func poll(forNanoseconds nanoseconds: UInt64) -> Outcome? {
        let deadline = DispatchTime.now().uptimeNanoseconds + nanoseconds
        repeat {
            lock.lock()
            let ready = outcome
            lock.unlock()
            if let ready { return ready }
            // Let any other runnable thread on this core (the server, the loop thread) go first.
            sched_yield()
        } while DispatchTime.now().uptimeNanoseconds < deadline
        return nil
    }

    /// Suspends until the outcome arrives (or returns it at once if it is already here).
    func wait() async -> Outcome {
        await withCheckedContinuation { continuation in
            lock.lock()
            if let outcome {
                lock.unlock()
                continuation.resume(returning: outcome)
            } else {
                self.continuation = continuation
                lock.unlock()
            }
        }
    }
}

extension Duration {
    fileprivate var nanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        guard seconds >= 0, attoseconds >= 0 else { return 0 }
        return UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
    }
}

/// The thread, the multi handle and the transfers in flight.
///
/// Submissions and cancellations are queued under a lock and the loop is woken with
/// `curl_multi_wakeup`; everything else (easy handles, the multi handle) is touched only on the
/// loop thread.
private final class CurlMultiLoop: @unchecked Sendable {
    // @unchecked: `multi` and the loop-thread state are used only on the loop thread, except
    // `curl_multi_wakeup`, which libcurl documents as callable from any thread; all other shared
    // state is in `inbox`.

    private struct Submission {
        var id: UInt64
        var request: CurlRequest
        var slot: TransferSlot
    }

    private struct Inbox {
        var submissions: [Submission] = []
        var cancellations: [UInt64] = []
        var nextID: UInt64 = 1
        /// Transfers submitted and not finished.
        var inFlight = 0
        var stopping = false
    }

    /// A transfer in flight; owned by the loop thread.
    private final class Transfer {
        let id: UInt64
        let easy: CurlEasyHandle
        let slot: TransferSlot

        init(id: UInt64, easy: CurlEasyHandle, slot: TransferSlot) {
            self.id = id
            self.easy = easy
            self.slot = slot
        }
    }

    private let multi: UnsafeMutableRawPointer
    private let inbox = Locked(Inbox())
    private let done = DispatchSemaphore(value: 0)
    private let idleSpinNanoseconds: UInt64

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
        idleSpinNanoseconds = limits.spinBeforeSuspending.nanoseconds
        _ = cmsal_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, limits.maxConnectionsPerHost)
        _ = cmsal_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, limits.maxCachedConnections)
        let thread = Thread { [self] in run() }
        thread.name = "msal-curl"
        thread.start()
    }

    /// Queues `request`; returns its id and whether it is the only transfer in flight.
    func submit(request: CurlRequest, slot: TransferSlot) -> (id: UInt64, alone: Bool) {
        let (id, alone, accepted) = inbox.withLock { state -> (UInt64, Bool, Bool) in
            let id = state.nextID
            state.nextID += 1
            guard !state.stopping else { return (id, false, false) }
            state.inFlight += 1
            state.submissions.append(Submission(id: id, request: request, slot: slot))
            return (id, state.inFlight == 1, true)
        }
        if accepted {
            curl_multi_wakeup(multi)
        } else {
            slot.complete(.failure(CurlError(code: CurlError.cancelledCode, message: "The HTTP client was shut down")))
        }
        return (id, alone)
    }

    func cancel(id: UInt64) {
        inbox.withLock { $0.cancellations.append(id) }
        curl_multi_wakeup(multi)
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
            // Submissions first, so a cancellation queued right after its submission finds it.
            for submission in submissions {
                start(submission)
            }
            for id in cancellations {
                finish(id: id, with: .failure(.cancelled))
            }
            if stopping {
                for id in Array(transfersByID.keys) {
                    finish(id: id, with: .failure(.cancelled))
                }
                idleHandles.removeAll()
                done.signal()
                return
            }
            curl_multi_perform(multi, &stillRunning)
            collectFinishedTransfers()
            if transfersByID.isEmpty, idleSpinNanoseconds > 0, waitBrieflyForWork() {
                continue
            }
            curl_multi_poll(multi, nil, 0, 1000, nil)
        }
    }

    /// With nothing in flight, looks for new work for a short time before sleeping, so a
    /// caller making requests one after another does not pay a thread wake-up for each.
    private func waitBrieflyForWork() -> Bool {
        let deadline = DispatchTime.now().uptimeNanoseconds + idleSpinNanoseconds
        repeat {
            let hasWork = inbox.withLock { !$0.submissions.isEmpty || !$0.cancellations.isEmpty || $0.stopping }
            if hasWork { return true }
            sched_yield()
        } while DispatchTime.now().uptimeNanoseconds < deadline
        return false
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
            inbox.withLock { $0.inFlight -= 1 }
            submission.slot.complete(.failure(CurlError(code: 2, message: error.description)))
            return
        }
        let transfer = Transfer(id: submission.id, easy: easy, slot: submission.slot)
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
        inbox.withLock { $0.inFlight -= 1 }
        transfer.easy.responseBody = []
        if idleHandles.count < 16 { idleHandles.append(transfer.easy) }
        transfer.slot.complete(result)
    }
}
