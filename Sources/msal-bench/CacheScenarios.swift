import Foundation
import MSAL
import MSALBenchNative
import MSALCacheFixtures

/// `cache_load`, `cache_save` and `cache_lookup`: the token cache file of MSAL Python's shape
/// with realistic token sizes (access token ~1.5 KB, id token ~1 KB, refresh token ~1 KB).
enum CacheScenarios {
    static func folder() -> String {
        let path = NSTemporaryDirectory() + "msal-bench-cache-\(ProcessInfo.processInfo.processIdentifier)"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Reads and parses the file (a new one of `accounts` accounts, or `fixture`) again and again.
    static func load(runs: Int, accounts: Int, fixture: String? = nil) throws -> Measurement {
        let folder = folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = fixture ?? folder + "/msal_cache.json"
        let bytes =
            try fixture.map { try FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int ?? 0 }
            ?? PythonShapedCacheFile.write(path: path, accounts: accounts)
        var measurement = Measurement(scenario: "cache_load", params: ["accounts": accounts, "file_bytes": bytes])
        _ = try CacheBench.LoadedCache(path: path).accessTokens  // warm the page cache
        var cpu: [UInt64] = []
        for _ in 0..<runs {
            var loaded: CacheBench.LoadedCache?
            let cpuStart = ThreadCPUTime.nanoseconds
            measurement.samples.append(try timeNanoseconds { loaded = try CacheBench.LoadedCache(path: path) })
            cpu.append(ThreadCPUTime.nanoseconds - cpuStart)
            let count = loaded?.accessTokens ?? 0
            precondition(count == accounts, "loaded \(count) access tokens of \(accounts)")
            loaded = nil  // freed after the timed load, as the Python harness does
        }
        measurement.params["cpu_median_ns"] = cpu.sorted()[cpu.count / 2]
        return measurement
    }

    /// Loads the file (a new one of `accounts` accounts, or a copy of `fixture`), then changes one
    /// entry and rewrites the whole file again and again. Before each timed save, outside the
    /// timing, the previous save's file is flushed to the disk (as `bench-msal-python.py` does):
    /// a save of 59 MiB every 30 ms would otherwise measure the disk's sustained throughput (the
    /// rename of a file whose blocks are not allocated yet starts its write-back, and waits when
    /// the previous ones are still queued), not a save, which an app makes after a sign-in or a
    /// refresh.
    static func save(runs: Int, accounts: Int, fixture: String? = nil) throws -> Measurement {
        let folder = folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/msal_cache.json"
        if let fixture {
            try FileManager.default.copyItem(atPath: fixture, toPath: path)
        } else {
            try PythonShapedCacheFile.write(path: path, accounts: accounts)
        }
        let saver = try CacheBench.Saver(path: path)
        var measurement = Measurement(scenario: "cache_save", params: ["accounts": accounts, "fsync": true])
        try saver.save(0)
        var cpu: [UInt64] = []
        for run in 0..<runs {
            DiskFlush.flush(path)
            let cpuStart = ThreadCPUTime.nanoseconds
            measurement.samples.append(try timeNanoseconds { try saver.save(run + 1) })
            cpu.append(ThreadCPUTime.nanoseconds - cpuStart)
        }
        measurement.params["cpu_median_ns"] = cpu.sorted()[cpu.count / 2]
        measurement.params["file_bytes"] = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        return measurement
    }

    /// What the lapse check adds to each change of a shared storage (MSALRedisCache), over
    /// `accounts` accounts none of which lapsed.
    static func lapseScan(runs: Int, accounts: Int) -> Measurement {
        let lookup = CacheBench.Lookup(accounts: accounts)
        var measurement = Measurement(scenario: "cache_lapse_scan", params: ["accounts": accounts])
        precondition(lookup.lapseScan() == 0)
        for _ in 0..<runs {
            measurement.samples.append(timeNanoseconds { precondition(lookup.lapseScan() == 0) })
        }
        return measurement
    }

    static func lookup(runs: Int, accounts: Int) -> Measurement {
        let lookup = CacheBench.Lookup(accounts: accounts)
        var measurement = Measurement(scenario: "cache_lookup", params: ["accounts": accounts])
        for _ in 0..<1000 { precondition(lookup.hit()) }
        for _ in 0..<runs {
            measurement.samples.append(timeNanoseconds { precondition(lookup.hit()) })
        }
        return measurement
    }
}
