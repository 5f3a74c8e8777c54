/// The buckets of one half of the store, by home account id: an open-addressed table probed by
/// the id's digest (``AccountBuckets/digest(of:)``).
///
/// A `Dictionary` would hash the digest again with the process's seeded hasher, and its keys
/// would hold a copy of each id; here a slot holds the digest and the bucket's position, so a
/// probe compares eight bytes, and an id is compared (one `==`, usually of the same string) only
/// when the digests are equal. Positions are mixed with a seed chosen per process, so ids written
/// to collide in a file cost probes on one machine run at most, and never a wrong answer: equal
/// digests still compare the ids.
struct BucketTable: Sendable {
    typealias Bucket = TokenStore.Bucket

    private struct Slot {
        var digest: UInt64
        /// The bucket's position in `buckets` plus one; 0 for an empty slot.
        var entry: Int32
    }

    private var slots: [Slot]
    /// The buckets, packed; `digests[i]` is the digest of `buckets[i]`'s id.
    private(set) var buckets: [Bucket] = []
    private var digests: [UInt64] = []

    private static let seed = UInt64.random(in: .min ... .max) | 1

    /// A table with room for `capacity` buckets before it grows.
    init(minimumCapacity capacity: Int = 0) {
        var size = 16
        while size < capacity * 2 { size *= 2 }
        slots = Array(repeating: Slot(digest: 0, entry: 0), count: size)
        buckets.reserveCapacity(capacity)
        digests.reserveCapacity(capacity)
    }

    var count: Int { buckets.count }

    private var mask: Int { slots.count - 1 }

    private func home(_ digest: UInt64) -> Int {
        Int(truncatingIfNeeded: ((digest ^ Self.seed) &* 0x9E37_79B9_7F4A_7C15) >> 32) & mask
    }

    /// The position of the bucket of `id` (whose digest is `digest`), or `nil`.
    func position(of id: String, digest: UInt64) -> Int? {
        var index = home(digest)
        while true {
            let slot = slots[index]
            if slot.entry == 0 { return nil }
            if slot.digest == digest, buckets[Int(slot.entry) - 1].homeAccountId == id { return Int(slot.entry) - 1 }
            index = (index + 1) & mask
        }
    }

    /// Adds `bucket`, whose id has no bucket yet and has `digest`; returns its position.
    @discardableResult
    mutating func insert(_ bucket: Bucket, digest: UInt64) -> Int {
        if (buckets.count + 1) * 2 > slots.count { grow() }
        var index = home(digest)
        while slots[index].entry != 0 { index = (index + 1) & mask }
        slots[index] = Slot(digest: digest, entry: Int32(buckets.count + 1))
        buckets.append(bucket)
        digests.append(digest)
        return buckets.count - 1
    }

    /// The bucket at `position`, changed in place.
    subscript(position position: Int) -> Bucket {
        get { buckets[position] }
        _modify { yield &buckets[position] }
    }

    /// Removes the bucket at `position`; the last bucket takes its position.
    mutating func remove(at position: Int) {
        removeSlot(of: position)
        let last = buckets.count - 1
        if position != last {
            buckets.swapAt(position, last)
            digests.swapAt(position, last)
            slots[slotIndex(of: last, digest: digests[position])].entry = Int32(position + 1)
        }
        buckets.removeLast()
        digests.removeLast()
    }

    /// The slot holding `position`.
    private func slotIndex(of position: Int, digest: UInt64) -> Int {
        var index = home(digest)
        while slots[index].entry != Int32(position + 1) { index = (index + 1) & mask }
        return index
    }

    /// Empties the slot of `position`, moving later slots of the same run back so that every
    /// slot stays reachable from its home without crossing an empty one.
    private mutating func removeSlot(of position: Int) {
        var hole = slotIndex(of: position, digest: digests[position])
        var index = (hole + 1) & mask
        while slots[index].entry != 0 {
            // The slot may fill the hole when its home is not after the hole (cyclically).
            if (index - home(slots[index].digest)) & mask >= (index - hole) & mask {
                slots[hole] = slots[index]
                hole = index
            }
            index = (index + 1) & mask
        }
        slots[hole] = Slot(digest: 0, entry: 0)
    }

    private mutating func grow() {
        slots = Array(repeating: Slot(digest: 0, entry: 0), count: slots.count * 2)
        for position in digests.indices {
            var index = home(digests[position])
            while slots[index].entry != 0 { index = (index + 1) & mask }
            slots[index] = Slot(digest: digests[position], entry: Int32(position + 1))
        }
    }
}
