/// The refresh lease the current task holds (``MSALCacheRefreshCoordinating``): saves made while
/// it is set are fenced by it (``MSALSharedCacheStorage/save(_:replacingVersion:lease:)``).
enum RefreshLeaseScope {
    @TaskLocal static var current: MSALCacheRefreshLease?
}
