import Foundation

extension Authority {
    /// Checks the scheme rule of the application layer: `https` always passes; `http` on a
    /// loopback host (127.0.0.1, ::1, localhost) passes only when this authority is listed in
    /// `knownAuthorities` (same kind, same normalized URL), for tests and emulators.
    ///
    /// - Throws: an invalid-parameter error (-50000, internal -42000) naming the authority.
    func validateScheme(knownAuthorities: [Authority], correlationId: UUID? = nil) throws {
        guard isLoopbackHTTP else { return }
        guard knownAuthorities.contains(self) else {
            throw AuthorityError.invalidParameter(
                AuthorityError.loopbackHTTPNotKnown(urlString), correlationId: correlationId)
        }
    }

    /// Whether this authority is listed in `knownAuthorities` (same kind and normalized URL), which
    /// makes it "developer known": MSAL then skips authority validation for it.
    func isListed(in knownAuthorities: [Authority]) -> Bool {
        knownAuthorities.contains(self)
    }

    /// The authorities known to the developer for a request whose authority `configured` (the
    /// request's or the application's) was re-targeted to `retargeted` (an account's home tenant):
    /// as in MSAL for iOS, a listed authority stays known for the tenant it is switched to, so it
    /// is not validated against the public cloud (a loopback `/common` in `knownAuthorities` makes
    /// its `/<tenant id>` known too). Nothing else becomes known.
    static func knownAuthorities(_ known: [Authority], retargeting configured: Authority, to retargeted: Authority)
        -> [Authority]
    {
        guard retargeted != configured, configured.isListed(in: known), !retargeted.isListed(in: known) else {
            return known
        }
        return known + [retargeted]
    }
}
