internal import CMSALCurl
import Foundation

/// Performs HTTP exchanges with libcurl's multi interface.
///
/// Every transfer runs on one multi handle, so connections stay open between requests and
/// requests to the same host reuse a kept-alive connection. Cancelling the calling task removes
/// its transfer at once.
///
/// Who drives the multi handle: a dedicated loop thread, so that blocking network work does not
/// occupy Swift's cooperative pool. One exception keeps the common case fast. Handing a request
/// to another thread and back costs two thread wake-ups, 25-45 µs each on a virtual machine,
/// more than a loopback round trip itself. So a request that finds nothing else in flight is
/// driven by its caller, exactly as `curl_easy_perform` would, for at most
/// ``Limits/callerDrivesFor``; a response that has not arrived by then, another request
/// arriving, or a cancellation (seen between two polls, at most 10 ms apart) hands the transfer
/// to the loop thread and the caller suspends.
package final class CurlClient: Sendable {
    /// Limits of the connection cache and of the caller's share of the work.
    package struct Limits: Sendable {
        /// The most connections open at once to one host; further transfers wait for a free one.
        package var maxConnectionsPerHost: Int
        /// The most idle connections kept open for reuse.
        package var maxCachedConnections: Int
        /// How long a lone request's caller drives its own transfer before handing it to the
        /// loop thread and suspending. Zero sends every request through the loop thread.
        ///
        /// The default, 10 ms, is longer than two of the kernel's 4 ms scheduler ticks: a poll
        /// that may wait that long is woken by the response without the kernel reprogramming
        /// its timer, which on a virtual machine costs 4 to 5 µs a request (measured with a
        /// 2 ms budget: 1.11 to 1.52 times the `curl_easy_perform` floor, against 1.09 with
        /// 8 ms). Providers on the internet answer in tens of milliseconds, so their requests
        /// still spend at most this long on the cooperative pool.
        package var callerDrivesFor: Duration

        package init(
            maxConnectionsPerHost: Int = 32,
            maxCachedConnections: Int = 64,
            callerDrivesFor: Duration = .milliseconds(10)
        ) {
            self.maxConnectionsPerHost = maxConnectionsPerHost
            self.maxCachedConnections = maxCachedConnections
            self.callerDrivesFor = callerDrivesFor
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
        if Task.isCancelled { throw .cancelled }
        let (id, route) = loop.submit(request: request)
        switch route {
        case .finished(let outcome):
            return try outcome.get()
        case .queued(let slot):
            return try await wait(for: slot, id: id)
        case .driveHere:
            // No cancellation handler while the caller drives: it looks at the task between
            // polls and hands the transfer over when the task is cancelled (a handler costs more
            // than the check, and the wait for a response is at most the caller's budget).
            switch loop.drive(id: id) {
            case .finished(let outcome): return try outcome.get()
            case .queued(let slot): return try await wait(for: slot, id: id)
            case .driveHere: preconditionFailure("drive(id:) hands over or finishes")
            }
        }
    }

    /// Waits for the outcome of transfer `id`, which the loop thread drives; cancelling the task
    /// removes the transfer (at once when the task is already cancelled).
    private func wait(for slot: TransferSlot, id: UInt64) async throws(CurlError) -> CurlResponse {
        let result = await withTaskCancellationHandler {
            await slot.wait()
        } onCancel: {
            loop.cancel(id: id)
        }
        return try result.get()
    }

    /// Whether nothing is in flight and the loop thread sleeps (tests check that it parks, and
    /// that a lone request never woke it).
    package var isIdle: Bool { loop.isIdle }
}

/// What became of a submitted transfer.
private enum TransferRoute {
    /// Already decided (the client was shut down, or the transfer could not start).
    case finished(TransferSlot.Outcome)
    /// The loop thread drives it; the outcome arrives through the slot.
    case queued(TransferSlot)
    /// The caller drives it (``CurlMultiLoop/drive(id:)``).
    case driveHere
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
/// Submissions and cancellations are queued under a lock. The multi handle, the easy handles
/// and the transfer tables belong to one driver at a time: the loop thread, or a caller driving
/// its lone request (``drive(id:)``). The role passes between them under the same lock, so each
/// sees everything the other did. While a caller drives, the loop thread sleeps on a semaphore
/// rather than in `curl_multi_poll`, so it never touches the multi handle at the same time;
/// `curl_multi_wakeup`, which libcurl documents as callable from any thread, interrupts whichever
/// of them is polling.
private final class CurlMultiLoop: @unchecked Sendable {
    // @unchecked: `multi` and the driver state are used only by the current driver (see above),
    // except `curl_multi_wakeup`; all other shared state is in `inbox`.

    private struct Submission {
        var id: UInt64
        var request: CurlRequest
        /// `nil` while the caller drives the transfer; set when it hands the transfer over.
        var slot: TransferSlot?
    }

    private struct Inbox {
        var submissions: [Submission] = []
        var cancellations: [UInt64] = []
        var nextID: UInt64 = 1
        /// Transfers submitted and not finished.
        var inFlight = 0
        var stopping = false
        /// The loop thread waits on `wake` with nothing in flight; whoever gives it work clears
        /// this and signals once.
        var loopParked = false
        /// A caller is driving the multi handle; the loop thread must stay parked.
        var callerDriving = false

        var hasWork: Bool { !submissions.isEmpty || !cancellations.isEmpty || stopping }

        /// Clears `loopParked` and says whether the loop thread must be signalled.
        mutating func unparkLoop() -> Bool {
            guard loopParked, !callerDriving else { return false }
            loopParked = false
            return true
        }
    }

    /// A transfer in flight, or an idle one kept with its easy handle for the next request;
    /// owned by the driver.
    private final class Transfer {
        var id: UInt64
        let easy: CurlEasyHandle
        /// `nil` while the caller drives the transfer; set when it hands the transfer over.
        var slot: TransferSlot?

        init(id: UInt64, easy: CurlEasyHandle, slot: TransferSlot?) {
            self.id = id
            self.easy = easy
            self.slot = slot
        }
    }

    /// The longest one poll of a caller driving its transfer waits: how soon it sees that its
    /// task was cancelled. Not shorter than the default budget, for the reason given there.
    static let pollSliceMilliseconds: Int32 = 10

    private let multi: UnsafeMutableRawPointer
    private let inbox = Locked(Inbox())
    private let wake = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)
    private let callerBudgetNanoseconds: UInt64

    // Driver state.
    private var transfersByID: [UInt64: Transfer] = [:]
    private var transfersByHandle: [UnsafeMutableRawPointer: Transfer] = [:]
    private var idleTransfers: [Transfer] = []
    /// The outcome of the transfer its caller drives, once finished.
    private var driverOutcome: (id: UInt64, outcome: TransferSlot.Outcome)?

    init(limits: CurlClient.Limits) throws(NativeError) {
        try CurlGlobal.initializeOnce()
        guard let multi = cmsal_multi_init() else {
            throw NativeError(function: "curl_multi_init", reason: "out of memory")
        }
        self.multi = multi
        callerBudgetNanoseconds = limits.callerDrivesFor.nanoseconds
        _ = cmsal_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, limits.maxConnectionsPerHost)
        _ = cmsal_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, limits.maxCachedConnections)
        let thread = Thread { [self] in run() }
        thread.name = "msal-curl"
        thread.start()
    }

    var isIdle: Bool {
        inbox.withLock { $0.loopParked && $0.inFlight == 0 }
    }

    /// Queues `request`, or, when nothing else is in flight and the loop thread is parked, makes
    /// the caller the driver (`.driveHere`; the caller must then call ``drive(id:)``).
    func submit(request: CurlRequest) -> (id: UInt64, route: TransferRoute) {
        enum Decision {
            case refused, driveHere
            case queued(signalLoop: Bool)
        }
        var submission = Submission(id: 0, request: request, slot: nil)
        let decision = inbox.withLock { state -> Decision in
            submission.id = state.nextID
            state.nextID += 1
            guard !state.stopping else { return .refused }
            state.inFlight += 1
            if callerBudgetNanoseconds > 0, state.inFlight == 1, state.loopParked, !state.callerDriving {
                state.callerDriving = true
                return .driveHere
            }
            let slot = TransferSlot()
            submission.slot = slot
            state.submissions.append(submission)
            return .queued(signalLoop: state.unparkLoop())
        }
        switch decision {
        case .refused:
            let error = CurlError(code: CurlError.cancelledCode, message: "The HTTP client was shut down")
            return (submission.id, .finished(.failure(error)))
        case .driveHere:
            start(submission)
            return (submission.id, .driveHere)
        case .queued(let signalLoop):
            if signalLoop { wake.signal() } else { cmsal_multi_wakeup(multi) }
            return (submission.id, .queued(submission.slot!))
        }
    }

    func cancel(id: UInt64) {
        let signalLoop = inbox.withLock { state in
            state.cancellations.append(id)
            return state.unparkLoop()
        }
        if signalLoop { wake.signal() } else { cmsal_multi_wakeup(multi) }
    }

    func shutdown() {
        let (alreadyStopping, signalLoop) = inbox.withLock { state in
            defer { state.stopping = true }
            return (state.stopping, state.unparkLoop())
        }
        guard !alreadyStopping else { return }
        if signalLoop { wake.signal() } else { cmsal_multi_wakeup(multi) }
        done.wait()
        cmsal_multi_cleanup(multi)
    }

    // MARK: Caller as driver

    /// Drives the caller's own transfer `id` on the calling thread until it finishes, the budget
    /// runs out, or other work arrives. Returns `.finished` with the outcome, or `.queued` with
    /// the slot its outcome will arrive through after handing the transfer to the loop thread.
    func drive(id: UInt64) -> TransferRoute {
        let deadline = DispatchTime.now().uptimeNanoseconds + callerBudgetNanoseconds
        var stillRunning: Int32 = 0
        while transfersByID[id] != nil {
            cmsal_multi_perform(multi, &stillRunning)
            collectFinishedTransfers()
            guard transfersByID[id] != nil else { break }
            let now = DispatchTime.now().uptimeNanoseconds
            if now >= deadline || Task.isCancelled || inbox.withLock({ $0.hasWork }) { break }
            // At most one slice a poll, so a cancellation is seen that soon even with a long budget.
            let remainingMilliseconds = Int32(clamping: (deadline - now + 999_999) / 1_000_000)
            cmsal_multi_poll(multi, min(Self.pollSliceMilliseconds, max(1, remainingMilliseconds)))
        }
        // Finished, or handed over: a transfer still in flight stays in the multi handle, gets a
        // slot for its outcome, and the loop thread carries on with it.
        var route: TransferRoute
        if let transfer = transfersByID[id] {
            let slot = TransferSlot()
            transfer.slot = slot
            route = .queued(slot)
        } else if let finished = driverOutcome, finished.id == id {
            route = .finished(finished.outcome)
        } else {
            route = .finished(.failure(CurlError(code: 2, message: "The transfer ended without an outcome")))
        }
        driverOutcome = nil
        let handOver = transfersByID[id] != nil
        let signalLoop = inbox.withLock { state in
            state.callerDriving = false
            return handOver || state.hasWork ? state.unparkLoop() : false
        }
        if signalLoop { wake.signal() }
        return route
    }

    // MARK: Loop thread

    private func run() {
        var stillRunning: Int32 = 0
        while true {
            // Park while there is nothing to do or a caller is driving.
            let parked = inbox.withLock { state -> Bool in
                guard state.callerDriving || (transfersByID.isEmpty && !state.hasWork) else { return false }
                state.loopParked = true
                return true
            }
            if parked {
                wake.wait()
                continue
            }
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
                idleTransfers.removeAll()
                done.signal()
                return
            }
            cmsal_multi_perform(multi, &stillRunning)
            collectFinishedTransfers()
            if !transfersByID.isEmpty {
                cmsal_multi_poll(multi, 1000)
            }
        }
    }

    // MARK: Driver work

    private func start(_ submission: Submission) {
        let transfer: Transfer
        do {
            if let reused = idleTransfers.popLast() {
                transfer = reused
                transfer.id = submission.id
                transfer.slot = submission.slot
            } else {
                transfer = Transfer(id: submission.id, easy: try CurlEasyHandle(), slot: submission.slot)
            }
            let easy = transfer.easy
            try easy.configure(for: submission.request, userData: Unmanaged.passUnretained(easy).toOpaque())
        } catch {
            inbox.withLock { $0.inFlight -= 1 }
            deliver(.failure(CurlError(code: 2, message: error.description)), id: submission.id, to: submission.slot)
            return
        }
        let easy = transfer.easy
        transfersByID[submission.id] = transfer
        transfersByHandle[easy.handle] = transfer
        cmsal_multi_add_handle(multi, easy.handle)
    }

    private func collectFinishedTransfers() {
        var remaining: Int32 = 0
        while let message = cmsal_multi_info_read(multi, &remaining) {
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
        cmsal_multi_remove_handle(multi, transfer.easy.handle)
        inbox.withLock { $0.inFlight -= 1 }
        transfer.easy.responseBody = []
        let slot = transfer.slot
        transfer.slot = nil
        if idleTransfers.count < 16 { idleTransfers.append(transfer) }
        deliver(result, id: id, to: slot)
    }

    /// Completes the slot, or keeps the outcome for the caller driving the transfer.
    private func deliver(_ outcome: TransferSlot.Outcome, id: UInt64, to slot: TransferSlot?) {
        if let slot {
            slot.complete(outcome)
        } else {
            driverOutcome = (id, outcome)
        }
    }
}
