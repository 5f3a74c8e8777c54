import Foundation
import Glibc
import MSALNative
import XCTest

final class FileSystemTests: XCTestCase {
    private var folder = ""

    override func setUp() {
        folder = FileTestFolder.make()
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: folder)
    }

    func testStatusTellsEveryKindOfFileWithoutOpeningIt() throws {
        let file = folder + "/file"
        try Data("12345".utf8).write(to: URL(fileURLWithPath: file))
        let fifo = folder + "/fifo"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let link = folder + "/link"
        XCTAssertEqual(symlink("/dev/null", link), 0)

        let regular = try XCTUnwrap(FileSystem.status(file))
        XCTAssertEqual(regular.kind, .regular)
        XCTAssertEqual(regular.size, 5)
        XCTAssertEqual(try FileSystem.status(folder)?.kind, .directory)
        XCTAssertEqual(try FileSystem.status(fifo)?.kind, .fifo)
        XCTAssertEqual(try FileSystem.status(link)?.kind, .characterDevice, "stat follows the link")
        XCTAssertEqual(try FileSystem.linkStatus(link)?.kind, .symbolicLink, "lstat does not")
        XCTAssertNil(try FileSystem.status(folder + "/missing"))
        XCTAssertNil(try FileSystem.status(file + "/below-a-file"))
        XCTAssertTrue(try XCTUnwrap(FileSystem.status(file)).isSameFile(as: regular))
        XCTAssertFalse(try XCTUnwrap(FileSystem.status(folder)).isSameFile(as: regular))
    }

    func testReadingASmallFileNeverBlocksNorFollowsALink() throws {
        let fifo = folder + "/fifo"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        // A blocking open of a FIFO without a writer would hang here for ever.
        XCTAssertNil(try FileSystem.readSmallFile(fifo))
        let file = folder + "/file"
        try Data("4242 python".utf8).write(to: URL(fileURLWithPath: file))
        XCTAssertEqual(try FileSystem.readSmallFile(file).map { String(decoding: $0, as: UTF8.self) }, "4242 python")
        XCTAssertEqual(try FileSystem.readSmallFile(file, limit: 4).map { String(decoding: $0, as: UTF8.self) }, "4242")
        let link = folder + "/link"
        XCTAssertEqual(symlink(file, link), 0)
        XCTAssertNil(try FileSystem.readSmallFile(link))
        XCTAssertNil(try FileSystem.readSmallFile(folder + "/missing"))
    }

    func testSymbolicLinkChainsResolveAgainstEachLinksFolder() throws {
        try FileManager.default.createDirectory(atPath: folder + "/a/b", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: folder + "/dotfiles", withIntermediateDirectories: true)
        // link -> a/first (relative to folder), a/first -> b/second (relative to a), b/second -> absolute.
        XCTAssertEqual(symlink("a/first", folder + "/link"), 0)
        XCTAssertEqual(symlink("b/second", folder + "/a/first"), 0)
        XCTAssertEqual(symlink(folder + "/dotfiles/cache.json", folder + "/a/b/second"), 0)
        XCTAssertEqual(try FileSystem.resolvingSymbolicLinks(folder + "/link"), folder + "/dotfiles/cache.json")
        XCTAssertEqual(try FileSystem.resolvingSymbolicLinks(folder + "/plain"), folder + "/plain")
        XCTAssertEqual(try FileSystem.linkTarget(folder + "/link"), "a/first")
        XCTAssertNil(try FileSystem.linkTarget(folder))

        XCTAssertEqual(symlink("loop2", folder + "/loop1"), 0)
        XCTAssertEqual(symlink("loop1", folder + "/loop2"), 0)
        XCTAssertThrowsError(try FileSystem.resolvingSymbolicLinks(folder + "/loop1")) { error in
            XCTAssertTrue((error as? FileError)?.isSymbolicLink == true, "\(error)")
        }
    }

    func testExclusiveCreationWritesOnceAndNeverThroughALink() throws {
        let path = folder + "/lockfile"
        XCTAssertTrue(try FileSystem.createExclusively(path, contents: Array("1 me".utf8)))
        XCTAssertFalse(try FileSystem.createExclusively(path, contents: Array("2 other".utf8)))
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "1 me")
        XCTAssertEqual(try FileSystem.status(path)?.permissions, 0o600)

        let elsewhere = folder + "/elsewhere"
        let planted = folder + "/planted"
        XCTAssertEqual(symlink(elsewhere, planted), 0)
        XCTAssertFalse(try FileSystem.createExclusively(planted, contents: [1]))
        XCTAssertNil(try FileSystem.status(elsewhere), "nothing created where the link points")
    }

    func testFoldersRenamesAndRemovals() throws {
        let deep = folder + "/x/y/z"
        try FileSystem.createFolders(deep, mode: 0o700)
        XCTAssertEqual(try FileSystem.status(deep)?.kind, .directory)
        XCTAssertEqual(try FileSystem.status(folder + "/x/y")?.permissions, 0o700)
        try FileSystem.createFolders(deep, mode: 0o700)
        try FileSystem.setPermissions(deep, 0o750)
        XCTAssertEqual(try FileSystem.status(deep)?.permissions, 0o750)

        try Data("a".utf8).write(to: URL(fileURLWithPath: deep + "/one"))
        XCTAssertThrowsError(try FileSystem.createFolders(deep + "/one/two", mode: 0o700)) { error in
            XCTAssertTrue((error as? FileError)?.isNotDirectory == true, "\(error)")
        }
        try FileSystem.rename(deep + "/one", to: deep + "/two")
        XCTAssertEqual(try FileSystem.names(inFolder: deep), ["two"])
        try FileSystem.syncFolder(deep)
        XCTAssertTrue(try FileSystem.remove(deep + "/two"))
        XCTAssertFalse(try FileSystem.remove(deep + "/two"))
        XCTAssertEqual(try FileSystem.names(inFolder: deep), [])
        XCTAssertThrowsError(try FileSystem.rename(deep + "/two", to: deep + "/three")) { error in
            let error = error as? FileError
            XCTAssertTrue(error?.isNotFound == true)
            XCTAssertEqual(error?.path, deep + "/three")
            XCTAssertEqual(error?.message, "No such file or directory")
        }
        XCTAssertTrue(FileSystem.isWritableFolder(deep))
        XCTAssertFalse(FileSystem.isWritableFolder(deep + "/missing"))
        XCTAssertEqual(FileSystem.folder(of: "/a/b"), "/a")
        XCTAssertEqual(FileSystem.folder(of: "/a"), "/")
        XCTAssertEqual(FileSystem.folder(of: "a"), ".")
        XCTAssertEqual(FileSystem.name(of: "/a/b"), "b")
    }

    func testProcessesAliveAndGone() throws {
        XCTAssertEqual(FileSystem.currentProcessID, getpid())
        XCTAssertTrue(FileSystem.isProcessAlive(getpid()))
        XCTAssertTrue(FileSystem.isProcessAlive(1))
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/true")
        try child.run()
        child.waitUntilExit()
        XCTAssertFalse(FileSystem.isProcessAlive(child.processIdentifier))
        XCTAssertFalse(FileSystem.isProcessAlive(0))
        XCTAssertFalse(FileSystem.isProcessAlive(-1))
    }

    func testFileErrorsSayWhatFailed() {
        let readOnly = FileError("create", path: "/ro/x", code: EROFS)
        XCTAssertTrue(readOnly.isReadOnlyOrDenied)
        XCTAssertTrue(readOnly.isReadOnlyFileSystem)
        XCTAssertTrue(FileError("create", path: "/x", code: EACCES).isReadOnlyOrDenied)
        XCTAssertTrue(FileError("create", path: "/x", code: EPERM).isReadOnlyOrDenied)
        XCTAssertFalse(FileError("create", path: "/x", code: ENOENT).isReadOnlyOrDenied)
        XCTAssertEqual(readOnly.description, "could not create at /ro/x: Read-only file system (errno \(EROFS))")
    }
}
