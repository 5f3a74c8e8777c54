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
    var windowBytes = 1 << 20
    /// The second thread takes over the end of what the first has yet to read only while that
    /// stretch is at least twice this long.
    var stealAtLeast = 1 << 20
    /// Test seam: runs on the first thread before each window it parses.
    var beforeFirstWindow: (@Sendable () -> Void)?
    /// Test seam: told how many parts each split read joined (1 when the first thread read on alone).
    var partsJoined: (@Sendable (Int) -> Void)?
}

/// Where the first reader must stop, and how far it has read: shared by the two threads of a
/// split read, so the second can take over the end of the first one's part while it runs.
///
/// The first reader announces each window before parsing it (``reserve(upTo:)``) and adopts the
/// stopping place it gets back. The second moves that place only to a point beyond every
/// announced window (``steal(_:below:)``), so the first never passed it.
private final class SplitReadPlan: Sendable {
    private struct State {
        var stop: DocumentSplit
        var reservedEnd = 0
        var unwanted = false
    }

    private let state: Locked<State>

    init(stop: DocumentSplit) {
        state = Locked(State(stop: stop))
    }

    /// The first reader is about to parse up to `end`: returns where it must stop.
    func reserve(upTo end: Int) -> DocumentSplit {
        state.withLock { state in
            state.reservedEnd = max(state.reservedEnd, end)
            return state.stop
        }
    }

    /// The second thread's work is no longer wanted (the first failed or read on alone).
    func dropSecond() {
        state.withLock { $0.unwanted = true }
    }

    var isUnwanted: Bool { state.withLock { $0.unwanted } }

    /// Where to look for a new stopping place below `boundary`, when the first reader still has
    /// at least `2 × least` bytes to read before it: the middle of that stretch.
    func stealWindow(below boundary: DocumentSplit, least: Int) -> Int? {
        state.withLock { state in
            guard !state.unwanted, state.stop == boundary, boundary.offset - state.reservedEnd >= 2 * least else {
                return nil
            }
            return state.reservedEnd + (boundary.offset - state.reservedEnd) / 2
        }
    }

    /// Makes `split` the first reader's stopping place if it still lies ahead of it; the caller
    /// then reads from `split` to `boundary`.
    func steal(_ split: DocumentSplit, below boundary: DocumentSplit) -> Bool {
        state.withLock { state in
            guard !state.unwanted, state.stop == boundary, split.offset > state.reservedEnd,
                split.offset < boundary.offset
            else { return false }
            state.stop = split
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

    /// Reads the document on two threads: this one from the start, another from `split` to the
    /// end. When the other finishes first, it takes over the end of what this one has yet to
    /// read (from a new split in the middle of it), again and again while that stretch is long,
    /// so both finish at about the same time whichever part costs more.
    ///
    /// Every part but the last ends where the next one's guess placed it, and its reader checks
    /// the document is in that state there. When a check fails, that reader reads on to the end
    /// alone and the later parts are dropped, so the result is always what one reader would give.
    func readSplit(_ descriptor: Int32, at split: DocumentSplit, snapshot: CacheFileSnapshot) throws -> CacheContents {
        // The second thread's secrets refer to a snapshot of their own (a duplicate descriptor of
        // the same open file), so the two threads do not share one reference count.
        let duplicate = dup(descriptor)
        let restSnapshot = duplicate >= 0 ? CacheFileSnapshot(descriptor: duplicate, duplicating: snapshot) : snapshot
        let plan = SplitReadPlan(stop: split)
        let tuning = splitRead
        let readRest: @Sendable () -> Result<[SplitPart], any Error> = { [self] in
            Result { try readParts(descriptor, from: split, plan: plan, snapshot: restSnapshot) }
        }
        var first: (contents: CacheContents?, stop: DocumentSplit?)
        let rest: Result<[SplitPart], any Error>
        (first, rest) = try alongside(readRest) { () throws -> (contents: CacheContents?, stop: DocumentSplit?) in
            var reader = CacheDocumentReader(snapshot: snapshot, handover: split)
            do {
                let contents = try feed(&reader, descriptor, from: 0) { end, reader in
                    tuning.beforeFirstWindow?()
                    _ = reader.moveHandover(to: plan.reserve(upTo: end))
                }
                if !reader.handedOver { plan.dropSecond() }
                return (consume contents, reader.handedOver ? reader.handover : nil)
            } catch {
                plan.dropSecond()
                throw error
            }
        }
        guard let stop = first.stop else {
            tuning.partsJoined?(1)
            return first.contents ?? CacheContents()
        }
        // The second thread's parts come last part first; from the one starting where the first
        // reader stopped, each that reached its boundary is followed by the one starting there.
        // Consumed, not copied: a copy of the array would share every part's arrays, and
        // moving the entities out of them would copy them all.
        var parts = try (consume rest).get()
        guard var index = parts.lastIndex(where: { $0.start == stop.offset }) else {
            throw CacheDocumentCodec.Corrupt(reason: "a part of the document was not read", offset: stop.offset)
        }
        // Taken, not copied: the arrays must have one owner to grow in place.
        var contents = first.contents.take() ?? CacheContents()
        var joined = 1
        while true {
            var taken = CacheContents()
            swap(&taken, &parts[index].contents)
            contents.append(consume taken)
            joined += 1
            guard parts[index].reachedBoundary, index > 0 else { break }
            index -= 1
        }
        tuning.partsJoined?(joined)
        return contents
    }

    /// The second thread's work: the part from `split` to the end, then parts taken over from the
    /// first reader, each ending where the previous one started. Returned last part first.
    private func readParts(
        _ descriptor: Int32, from split: DocumentSplit, plan: SplitReadPlan, snapshot: CacheFileSnapshot
    ) throws -> [SplitPart] {
        func read(from start: DocumentSplit, to boundary: DocumentSplit?) throws -> SplitPart {
            var reader = CacheDocumentReader(snapshot: snapshot, resumingAt: start, handover: boundary)
            let contents = try feed(&reader, descriptor, from: start.offset) { _, _ in
                if plan.isUnwanted { throw CancellationError() }
            }
            return SplitPart(
                start: start.offset, contents: contents ?? CacheContents(), reachedBoundary: reader.handedOver)
        }
        var parts = [try read(from: split, to: nil)]
        var boundary = split
        while let middle = plan.stealWindow(below: boundary, least: splitRead.stealAtLeast),
            let next = try findSplit(descriptor, at: middle, before: boundary.offset),
            plan.steal(next, below: boundary)
        {
            let part = try read(from: next, to: boundary)
            parts.append(part)
            // A reader that found the boundary in another state read on to the end: the parts
            // after it are superseded, and taking over stops.
            guard part.reachedBoundary else { break }
            boundary = next
        }
        return parts
    }
}

/// A part of the document read by the second thread of a split read.
private struct SplitPart: Sendable {
    /// Where the part starts in the document.
    var start: Int
    var contents: CacheContents
    /// Whether its reader stopped at the next part's start, in the state the next part assumed
    /// (otherwise it read on to the end).
    var reachedBoundary: Bool
}
