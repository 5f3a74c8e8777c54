import Foundation
import Glibc
import MSAL
import MSALTestSupport
import XCTest

/// Links planted beside the cache, a cache path that is a link (dotfile managers), and the sweep
/// of temporary files left by writers that died.
final class AdversarialCacheLinkTests: AdversarialCacheCase {
    /// A symlink planted at `<cache>.lock` (and at msal-extensions' `<cache>.lockfile`) pointing
    /// elsewhere: a save must not create a file at the link's target (`O_NOFOLLOW`).
    func testSymlinksPlantedAtTheLockPathsCreateNothingAtTheirTargets() async throws {
        let elsewhere = folder.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        let targets = ["lock", "lockfile"].map { elsewhere.appendingPathComponent("planted-\($0)").path }
        try FileManager.default.createSymbolicLink(atPath: cacheFile.path + ".lock", withDestinationPath: targets[0])
        try FileManager.default.createSymbolicLink(
            atPath: cacheFile.path + ".lockfile", withDestinationPath: targets[1])

        _ = try? await signIn()  // may succeed (another lock) or fail; either way nothing is created
        _ = try? makeApp().application.allAccounts()

        XCTAssertEqual(names(in: elsewhere.path), [], "nothing created through the planted links")
        for (link, target) in zip([".lock", ".lockfile"], targets) {
            XCTAssertEqual(
                try? FileManager.default.destinationOfSymbolicLink(atPath: cacheFile.path + link), target,
                "the planted \(link) link is left as it was")
        }
    }

    /// A cache path that is a symlink stays one after a save; the new document is written beside
    /// the link's target and replaces it there.
    func testCachePathThatIsASymlinkStaysASymlinkAfterASave() async throws {
        let dotfiles = folder.appendingPathComponent("dotfiles")
        try FileManager.default.createDirectory(at: dotfiles, withIntermediateDirectories: true)
        let target = dotfiles.appendingPathComponent("msal_cache.json")
        try Data("{}".utf8).write(to: target)
        try FileManager.default.createSymbolicLink(atPath: cacheFile.path, withDestinationPath: target.path)

        let result = try await signIn()

        XCTAssertEqual(
            try? FileManager.default.destinationOfSymbolicLink(atPath: cacheFile.path), target.path,
            "the cache path is still the link to the same target")
        let written = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(contentsOf: target)) as? [String: Any],
            "the target holds a JSON document")
        let accounts = try XCTUnwrap(
            written["Account"] as? [String: [String: Any]], "the target holds the new document")
        XCTAssertEqual(accounts.values.compactMap { $0["home_account_id"] as? String }, [result.account.identifier])
        XCTAssertFalse(names().contains { $0.contains(".tmp-") }, "no temporary file left beside the link: \(names())")
        XCTAssertFalse(
            names(in: dotfiles.path).contains { $0.contains(".tmp-") },
            "no temporary file left beside the target: \(names(in: dotfiles.path))")
    }

    /// The sweep of temporary files must not remove the one of a live writer whose pid means
    /// nothing here (another PID namespace, a container sharing the folder): a fresh file named
    /// with a pid that does not exist in this namespace, locked by its writer as it is written,
    /// survives our save.
    func testTemporaryFileOfAWriterInAnotherPIDNamespaceSurvivesASave() async throws {
        var pid: Int32 = 3_999_999
        while kill(pid, 0) == 0 || errno != ESRCH { pid -= 1 }
        let name = ".msal_cache.json.tmp-\(pid)-2718281828"
        let path = folder.appendingPathComponent(name).path
        let descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        XCTAssertGreaterThanOrEqual(descriptor, 0)
        defer { close(descriptor) }
        XCTAssertEqual(flock(descriptor, LOCK_EX | LOCK_NB), 0, "the writer holds its file")
        XCTAssertEqual(write(descriptor, "{\"Account\":", 11), 11)

        try await signIn()  // a first save of this cache path in this process: the sweep runs

        XCTAssertTrue(
            FileManager.default.fileExists(atPath: path), "the live writer's \(name) was left alone: \(names())")
    }
}
