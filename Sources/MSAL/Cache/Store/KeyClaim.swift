/// Of two entries that would be written under one key (one member name of a section), which one
/// stays: the one every JSON reader would see. That is the later one in the document, but for an
/// entity of ours, new or changed since the file was read, against an unchanged entry (ours
/// replaces it, as MSAL Python replaces an entry by its key).
enum KeyClaim {
    enum Origin: Equatable, Sendable {
        /// Written from its fields: new or changed since the source file was read or saved.
        case changed
        /// As it is in the source file (a kept entry, or an entity unchanged since then).
        case unchanged
    }

    enum Winner: Equatable, Sendable {
        case earlier, later
    }

    static func winner(earlier: Origin, later: Origin) -> Winner {
        earlier == .changed && later == .unchanged ? .earlier : .later
    }
}
