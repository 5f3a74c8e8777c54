/// A place where a cache document can be cut in two and its halves read at the same time: the
/// offset just after an entry of `section`, where another entry of it (or the section's end)
/// follows.
///
/// A split is found by looking at bytes in the middle of the document, without knowing what came
/// before, so it is a guess: the bytes may lie inside a string, or in another section than the
/// one the next entry looks like. The reader of the first part checks the guess when it gets
/// there (``CacheDocumentReader``'s handover): only when it is at that offset in that state is
/// the second reader's work used, and reading both parts is then exactly reading the whole.
struct DocumentSplit: Equatable {
    var offset: Int
    var section: CacheSection

    /// Entries searched past the first candidate in a window before giving up.
    static let attempts = 8

    /// The first plausible split in `window`, whose first byte is at document offset `origin`:
    /// after a `}` that is followed by `,` and an entry whose fields tell its section.
    static func find(in window: UnsafeRawBufferPointer, origin: Int) -> DocumentSplit? {
        guard let base = window.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
        var fields = CacheEntityFields()
        var interner = StringInterner()
        var attempts = 0
        var brace = 0
        while attempts < Self.attempts, brace < window.count {
            guard base[brace] == UInt8(ascii: "}") else {
                brace += 1
                continue
            }
            var cursor = JSONByteCursor(window, isFinal: false, origin: origin, index: brace + 1)
            brace += 1
            guard (try? cursor.peek()) == UInt8(ascii: ",") else { continue }
            attempts += 1
            cursor.index += 1
            do {
                _ = try cursor.scanString()
                try cursor.expect(UInt8(ascii: ":"), "':'")
                guard try cursor.peek() == UInt8(ascii: "{") else { continue }
                try cursor.readEntity(into: &fields, interner: &interner, snapshot: nil)
            } catch {
                continue
            }
            if fields.invalidField == nil, let section = section(of: fields) {
                return DocumentSplit(offset: origin + brace, section: section)
            }
        }
        return nil
    }

    /// The section an entry seems to belong to, from its fields alone.
    static func section(of fields: CacheEntityFields) -> CacheSection? {
        if let type = fields[.credentialType] {
            let sections: [(String, CacheSection)] = [
                ("AccessToken", .accessToken), ("AccessToken_With_AuthScheme", .accessToken),
                ("RefreshToken", .refreshToken), ("IdToken", .idToken),
            ]
            return sections.first { ASCII.equalsIgnoringCase($0.0, type) }?.1
        }
        if fields[.authorityType] != nil { return .account }
        if fields[.clientId] != nil, fields[.environment] != nil, fields[.homeAccountId] == nil {
            return .appMetadata
        }
        return nil
    }
}

extension CacheContents {
    /// Appends what `other`, read from the document's part after this one, holds.
    mutating func append(_ other: consuming CacheContents) {
        accessTokens.appendMoving(&other.accessTokens)
        refreshTokens.appendMoving(&other.refreshTokens)
        idTokens.appendMoving(&other.idTokens)
        accounts.appendMoving(&other.accounts)
        homeAccountDigests.append(other.homeAccountDigests)
        appMetadata.append(contentsOf: other.appMetadata)
        accountMetadata.append(contentsOf: other.accountMetadata)
        accountMetadataUnknown.merge(other.accountMetadataUnknown) { _, later in later }
        unknownSections.append(contentsOf: other.unknownSections)
        skipped.merge(other.skipped, uniquingKeysWith: +)
        if sourceFile == nil { sourceFile = other.sourceFile }
    }
}

/// An entity whose ``placeholder`` holds no references (empty strings and `nil`s), so copying
/// and destroying it costs no reference counting.
protocol PlaceholderEntity {
    static var placeholder: Self { get }
}

extension Array where Element: PlaceholderEntity {
    /// Appends `other`'s elements and empties it, moving the elements instead of copying them:
    /// `append(contentsOf:)` would retain every string of ten thousand entities, then release
    /// them all again when `other` is freed.
    ///
    /// Sections are contiguous, so only the section the split falls in has entities on both
    /// sides; every other kind is empty on one side and is taken whole, without moving anything.
    /// Of the two sides, the shorter is moved into the longer one's array (in front of its
    /// elements when it comes first), which has room more often and is already in memory: a
    /// new array for both would touch fresh pages, each a page fault.
    mutating func appendMoving(_ other: inout [Element]) {
        let moved = other.count
        guard moved > 0 else { return }
        guard !isEmpty else {
            swap(&self, &other)
            other = []
            return
        }
        if count < moved {
            // Room for this array's elements at the end of the other (placeholders, destroyed
            // again at once), the other's elements moved up, and this array's moved in front.
            let kept = count
            other.append(contentsOf: repeatElement(Element.placeholder, count: kept))
            withUnsafeMutableBufferPointer { source in
                other.withUnsafeMutableBufferPointer { target in
                    let base = target.baseAddress!
                    (base + moved).deinitialize(count: kept)
                    (base + kept).moveInitialize(from: base, count: moved)
                    base.moveInitialize(from: source.baseAddress!, count: kept)
                    source.baseAddress!.initialize(repeating: Element.placeholder, count: kept)
                }
            }
            swap(&self, &other)
            other = []
            return
        }
        other.withUnsafeMutableBufferPointer { source in
            let start = source.baseAddress!
            append(contentsOf: MovingOut(start: start, count: moved))
            // The moved-from places get placeholders, which `other` then frees at no cost.
            start.initialize(repeating: Element.placeholder, count: moved)
        }
        other = []
    }
}

/// The elements at `start..<start + count`, each moved out (left uninitialized) as it is read.
private struct MovingOut<Element>: Sequence, IteratorProtocol {
    let start: UnsafeMutablePointer<Element>
    let count: Int
    private var index = 0

    init(start: UnsafeMutablePointer<Element>, count: Int) {
        self.start = start
        self.count = count
    }

    var underestimatedCount: Int { count - index }

    mutating func next() -> Element? {
        guard index < count else { return nil }
        index += 1
        return (start + index - 1).move()
    }
}

extension CacheAccessToken: PlaceholderEntity {
    static var placeholder: Self {
        CacheAccessToken(homeAccountId: "", environment: "", clientId: "", realm: "", target: "", secret: "")
    }
}

extension CacheRefreshToken: PlaceholderEntity {
    static var placeholder: Self {
        CacheRefreshToken(homeAccountId: "", environment: "", clientId: "", secret: CacheSecret(""))
    }
}

extension CacheIdToken: PlaceholderEntity {
    static var placeholder: Self {
        CacheIdToken(homeAccountId: "", environment: "", clientId: "", realm: "", secret: CacheSecret(""))
    }
}

extension CacheAccount: PlaceholderEntity {
    static var placeholder: Self {
        CacheAccount(homeAccountId: "", environment: "", realm: "", localAccountId: "", username: "", authorityType: "")
    }
}
