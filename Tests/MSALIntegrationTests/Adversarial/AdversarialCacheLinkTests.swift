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

    /// A cache path that is a link to a file of the user that is not a token cache (issue 33,
    /// item 1: `/tmp/msal_cache.json -> ~/.bashrc`): a sign-in used to move it aside as
    /// `.bashrc.corrupt-<time>`, make `.bashrc.lock` beside it and write tokens in its place. Now
    /// reads and writes fail naming the path, and nothing is created beside the target.
    func testALinkToAFileThatIsNotATokenCacheIsNeverRenamedReplacedOrWritten() async throws {
        let home = folder.appendingPathComponent("home")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        let bashrc = home.appendingPathComponent(".bashrc").path
        let script = "# ~/.bashrc: executed by bash(1) for non-login shells.\nexport EDITOR=vi\n"
        XCTAssertTrue(
            FileManager.default.createFile(
                atPath: bashrc, contents: Data(script.utf8), attributes: [.posixPermissions: 0o644]))
        try FileManager.default.createSymbolicLink(atPath: cacheFile.path, withDestinationPath: bashrc)
        let before = Self.identity(bashrc)

        do {
            try await signIn()
            XCTFail("a sign-in must not write over a file that is not a token cache")
        } catch {
            let description = (error as NSError).description
            XCTAssertTrue(description.contains("not a token cache"), description)
            XCTAssertTrue(description.contains(cacheFile.path), description)
            XCTAssertEqual((error as NSError).domain, MSALErrorDomain)
            XCTAssertEqual((error as NSError).code, MSALError.internal.rawValue)
        }
        do {
            _ = try makeApp().application.allAccounts()
            XCTFail("reading the accounts of a file that is not a token cache must fail")
        } catch {
            XCTAssertTrue((error as NSError).description.contains("not a token cache"), "\(error)")
        }
        XCTAssertEqual(try String(contentsOfFile: bashrc, encoding: .utf8), script, "unchanged")
        XCTAssertEqual(Self.identity(bashrc), before, "same inode and mode")
        XCTAssertEqual(names(in: home.path), [".bashrc"], "nothing created beside the target")
        XCTAssertFalse(warnings.contains { $0.contains("corrupt") }, "\(warnings)")
    }

    /// The same file at the cache path itself (no link): refused, kept, nothing created beside it.
    func testAFileThatIsNotATokenCacheAtThePathIsRefusedAndKept() async throws {
        for text in ["#!/bin/sh\necho hello\n", "[1, 2, 3]\n", "\"text\"", "<?xml version=\"1.0\"?><a/>"] {
            try Data(text.utf8).write(to: cacheFile)
            do {
                try await signIn()
                XCTFail("\(text): a sign-in must not write over it")
            } catch {
                XCTAssertTrue((error as NSError).description.contains("not a token cache"), "\(text): \(error)")
            }
            XCTAssertEqual(try String(contentsOf: cacheFile, encoding: .utf8), text)
            XCTAssertEqual(names(), ["msal_cache.json"], "\(text): nothing renamed or created")
        }
    }

    /// A cache path that is a link into a folder this user does not own (a world-writable one, or
    /// another user's): no lock or temporary file is made beside the target; the write fails
    /// saying why.
    func testNoLockOrTemporaryFileBesideALinkTargetInAFolderOfAnotherUser() async throws {
        let others = folder.appendingPathComponent("others")
        try FileManager.default.createDirectory(at: others, withIntermediateDirectories: true)
        let target = others.appendingPathComponent("cache.json").path
        try Data("{}".utf8).write(to: URL(fileURLWithPath: target))
        chmod(others.path, 0o777)
        if getuid() == 0 {
            XCTAssertEqual(chown(others.path, 65534, 65534), 0, "the folder belongs to nobody")
        } else {
            throw XCTSkip("needs root to give a folder to another user")
        }
        try FileManager.default.createSymbolicLink(atPath: cacheFile.path, withDestinationPath: target)

        do {
            try await signIn()
            XCTFail("a write through a link into another user's folder must fail")
        } catch {
            let description = (error as NSError).description
            XCTAssertTrue(description.contains(others.path), description)
            XCTAssertTrue(description.contains("symbolic link"), description)
        }
        XCTAssertEqual(names(in: others.path), ["cache.json"], "no lock or temporary file beside the target")
        XCTAssertEqual(try String(contentsOfFile: target, encoding: .utf8), "{}")
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

    /// (inode, mode) of `path`, following links.
    static func identity(_ path: String) -> [UInt64] {
        var info = stat()
        guard stat(path, &info) == 0 else { return [] }
        return [UInt64(info.st_ino), UInt64(info.st_mode & 0o7777)]
    }
}
