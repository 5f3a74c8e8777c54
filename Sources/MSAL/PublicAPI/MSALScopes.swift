/// Helpers for scope strings.
public enum MSALScopes {
    /// The suffix that turns a resource identifier into its `/.default` scope.
    public static let defaultScopeSuffix = "/.default"

    /// The `/.default` scope of a resource: every permission the app registration lists for it.
    ///
    /// `/.default` is appended verbatim, so a resource identifier that itself ends with a slash
    /// keeps it: `https://graph.microsoft.com` gives `https://graph.microsoft.com/.default`, and
    /// `https://graph.microsoft.com/` gives `https://graph.microsoft.com//.default`. Pass the
    /// resource exactly as it is registered (some APIs are registered with the trailing slash, and
    /// then need the double slash).
    ///
    /// A request for a `/.default` scope is never reported as declined
    /// (``MSALError/serverDeclinedScopes``): the server grants what the registration lists.
    public static func defaultScope(forResource resource: String) -> String {
        resource + defaultScopeSuffix
    }

    /// Whether `scope` is a `/.default` scope (the suffix compared without regard to case).
    public static func isDefaultScope(_ scope: String) -> Bool {
        ScopeRules.isDefaultScope(scope)
    }
}
