import Foundation
import Glibc
import MSALNative

/// How a large cache file is read on two threads. The defaults suit real files; tests shrink the
/// sizes to take every path on small ones.
struct SplitReadTuning: Sendable {
    /// Files of at least this many bytes are read on two threads.
    var from = 4 << 20
    /// Bytes read and parsed at a time (small enough to stay in the processor's cache between
    /// the copy and the parse).
    var windowBytes = 1 << 18
    /// A thread takes over the end of what the other has yet to read of its part only while that
    /// stretch is at least twice this long.
    var stealAtLeast = 1 << 18
    /// Test seam: runs before each window a thread parses, with the thread's number (0 for the
    /// calling thread, 1 for the other).
    var beforeWindow: (@Sendable (_ thread: Int) -> Void)?
    /// Test seam: told how many parts each split read joined (1 when the first thread read on alone).
    var partsJoined: (@Sendable (Int) -> Void)?
}

/// What each of the two threads of a split read is reading, so that the one done first can take
/// over the end of the other one's part while it runs.
///
/// A thread announces each window before parsing it (``reserve(_:upTo:)``) and adopts the
/// stopping place it gets back. The other moves that place only to a point beyond every
/// announced window (``steal(_:from:below:for:)``), so the reader never passed it.
private final class SplitReadPlan: Sendable {
    /// One thread's part.
    private struct Lane {
        /// Where the part starts.
        var start: Int
        /// Where the part must stop (`nil`: at the document's end).
        var stop: DocumentSplit?
        /// The end of the last window announced.
        var reservedEnd: Int
        /// Whether another thread may take over the end of the part.
        var open = true

        /// A part about to be read from `start` to `stop`.
        init(from start: Int, to stop: DocumentSplit?) {
            self.start = start
            self.stop = stop
            reservedEnd = start
        }
    }

    private struct State {
        var lanes: [Lane]
        /// Parts starting at or after this offset are not wanted: a part before them read on to
        /// the end alone, or failed.
        var unwantedFrom = Int.max

        /// Whether another thread may still take over the end of `lane`'s part.
        func canTakeOver(_ lane: Int) -> Bool {
            lanes[lane].open && lanes[lane].start < unwantedFrom
        }
    }

    private let state: Locked<State>
    /// The document's length.
    let end: Int

    /// The plan of a document of `end` bytes read from the start to `split` by one thread and
    /// from `split` to the end by the other.
    init(end: Int, split: DocumentSplit) {
        self.end = end
        state = Locked(
            State(lanes: [Lane(from: 0, to: split), Lane(from: split.offset, to: nil)]))
    }

    /// `lane` is about to parse up to `end`: returns where it must stop.
    func reserve(_ lane: Int, upTo end: Int) -> DocumentSplit? {
        state.withLock { state in
            state.lanes[lane].reservedEnd = max(state.lanes[lane].reservedEnd, end)
            return state.lanes[lane].stop
        }
    }

    /// `lane`'s part is done, or its reader reads on to the end alone: nothing of it can be taken over.
    func close(_ lane: Int) {
        state.withLock { $0.lanes[lane].open = false }
    }

    /// Parts starting at or after `offset` are no longer wanted.
    func drop(from offset: Int) {
        state.withLock { $0.unwantedFrom = min($0.unwantedFrom, offset) }
    }

    func isUnwanted(partAt start: Int) -> Bool {
        state.withLock { start >= $0.unwantedFrom }
    }

    /// Where to look for a new stopping place for `lane`, when its reader still has at least
    /// `2 × least` bytes to read: the middle of that stretch, and the part's current stop.
    func stealWindow(from lane: Int, least: Int) -> (middle: Int, boundary: DocumentSplit?)? {
        state.withLock { state in
            let victim = state.lanes[lane]
            let limit = victim.stop?.offset ?? end
            guard state.canTakeOver(lane), limit - victim.reservedEnd >= 2 * least else { return nil }
            return (victim.reservedEnd + (limit - victim.reservedEnd) / 2, victim.stop)
        }
    }

    /// Makes `split` `lane`'s stopping place if the part still stops at `boundary` and `split`
    /// lies ahead of its reader; `thief` then reads a part from `split` to `boundary`.
    func steal(_ split: DocumentSplit, from lane: Int, below boundary: DocumentSplit?, for thief: Int) -> Bool {
        state.withLock { state in
            let victim = state.lanes[lane]
            guard state.canTakeOver(lane), victim.stop == boundary, split.offset > victim.reservedEnd,
                split.offset < boundary?.offset ?? end
            else { return false }
            state.lanes[lane].stop = split
            state.lanes[thief] = Lane(from: split.offset, to: boundary)
            return true
        }
    }
}

extension CacheFile {
    /// A guess of where the document can be cut, from a window starting at `origin` and ending
    /// before `limit`.
    func findSplit(_ descriptor: Int32, at origin: Int, before limit: Int) throws -> DocumentSplit? {
        guard limit > origin else { return nil }
        var probe = [UInt8](repeating: 0, count: min(1 << 16, limit - origin))
        let count = try readFully(descriptor, into: &probe, offset: off_t(origin))
        return probe.withUnsafeBytes {
            DocumentSplit.find(in: UnsafeRawBufferPointer(rebasing: $0[..<count]), origin: origin)
        }
    }

    /// Reads the document on two threads: this one from the start to `split`, another from
    /// `split` to the end. The thread done first takes over the end of what the other has yet to
    /// read (from a new split in the middle of it), again and again while that stretch is long,
    /// so both finish at about the same time whichever part costs more.
    ///
    /// Every part but the last ends where the next one's guess placed it, and its reader checks
    /// the document is in that state there. When a check fails, that reader reads on to the end
    /// alone and the later parts are dropped, so the result is always what one reader would give:
    /// the parts are joined from the start, each that reached its end followed by the one starting
    /// there, and the first that failed fails the whole.
    func readSplit(_ descriptor: Int32, at split: DocumentSplit, size: Int, snapshot: CacheFileSnapshot) throws
        -> CacheContents
    {
        // The second thread's secrets refer to a snapshot of their own (a duplicate descriptor of
        // the same open file), so the two threads do not share one reference count.
        let duplicate = dup(descriptor)
        let otherSnapshot = duplicate >= 0 ? CacheFileSnapshot(descriptor: duplicate, duplicating: snapshot) : snapshot
        let plan = SplitReadPlan(end: size, split: split)
        let other: @Sendable () -> [SplitPart] = { [self] in
            readParts(descriptor, lane: 1, from: split, stop: nil, plan: plan, snapshot: otherSnapshot)
        }
        var (parts, otherParts) = alongside(other) {
            readParts(descriptor, lane: 0, from: nil, stop: split, plan: plan, snapshot: snapshot)
        }
        parts.append(contentsOf: consume otherParts)
        parts.sort { $0.start < $1.start }
        // Parts are moved out as they are joined, never copied: a copy would share every part's
        // arrays, and moving the entities out of them would copy them all.
        var contents = CacheContents()
        var start = 0
        var joined = 0
        while let index = parts.firstIndex(where: { $0.start == start }) {
            if let failure = parts[index].failure { throw failure }
            var taken = CacheContents()
            swap(&taken, &parts[index].contents)
            if joined == 0 { contents = consume taken } else { contents.append(consume taken) }
            joined += 1
            guard let end = parts[index].reachedEnd else {
                splitRead.partsJoined?(joined)
                return contents
            }
            start = end
        }
        throw CacheDocumentCodec.Corrupt(reason: "a part of the document was not read", offset: start)
    }

    /// One thread's work: its part (from `start`, or the document's start, to `stop`, or the
    /// end), then parts taken over from the other thread, each from a new split to where that
    /// thread's part stopped before.
    private func readParts(
        _ descriptor: Int32, lane: Int, from start: DocumentSplit?, stop: DocumentSplit?, plan: SplitReadPlan,
        snapshot: CacheFileSnapshot
    ) -> [SplitPart] {
        let tuning = splitRead
        func read(from start: DocumentSplit?, to stop: DocumentSplit?) -> SplitPart {
            let offset = start?.offset ?? 0
            var reader =
                start.map { CacheDocumentReader(snapshot: snapshot, resumingAt: $0, handover: stop) }
                ?? CacheDocumentReader(snapshot: snapshot, handover: stop)
            defer { plan.close(lane) }
            do {
                let contents = try feed(&reader, descriptor, from: offset) { end, reader in
                    tuning.beforeWindow?(lane)
                    if plan.isUnwanted(partAt: offset) { throw CancellationError() }
                    if reader.passedHandover {
                        // Reading on to the end alone: the parts after this one are not wanted.
                        plan.close(lane)
                        plan.drop(from: offset + 1)
                    } else if let stop = plan.reserve(lane, upTo: end) {
                        _ = reader.moveHandover(to: stop)
                    }
                }
                if !reader.handedOver { plan.drop(from: offset + 1) }
                return SplitPart(
                    start: offset, contents: contents ?? CacheContents(),
                    reachedEnd: reader.handedOver ? reader.handover?.offset : nil)
            } catch {
                plan.drop(from: offset + 1)
                return SplitPart(start: offset, failure: error)
            }
        }
        var parts = [read(from: start, to: stop)]
        let other = 1 - lane
        while parts.last?.failure == nil,
            let (middle, boundary) = plan.stealWindow(from: other, least: tuning.stealAtLeast)
        {
            guard let next = try? findSplit(descriptor, at: middle, before: boundary?.offset ?? plan.end) else {
                break
            }
            // The other reader moved on meanwhile: look again.
            guard plan.steal(next, from: other, below: boundary, for: lane) else { continue }
            parts.append(read(from: next, to: boundary))
        }
        return parts
    }
}

/// A part of the document read by one thread of a split read.
private struct SplitPart: Sendable {
    /// Where the part starts in the document.
    var start: Int
    var contents = CacheContents()
    /// Where the part ends, when its reader stopped at the next part's start in the state the
    /// next part assumed (otherwise it read on to the end).
    var reachedEnd: Int?
    /// Why reading the part failed (a corrupt document, or the part was no longer wanted).
    var failure: (any Error)?

    init(start: Int, contents: CacheContents, reachedEnd: Int?) {
        self.start = start
        self.contents = contents
        self.reachedEnd = reachedEnd
    }

    init(start: Int, failure: any Error) {
        self.start = start
        self.failure = failure
    }
}
