import Foundation
import MSALNative
import XCTest

final class FolderWatchTests: XCTestCase {
    private var folder = ""

    override func setUp() {
        folder = FileTestFolder.make()
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: folder)
    }

    func testEventsOnTheNameAreSeenAndOthersIgnored() throws {
        let path = folder + "/cache.json"
        let watch = try XCTUnwrap(FolderWatch(path: path))
        XCTAssertEqual(watch.look(), FolderWatch.Look(touched: false, broken: false))
        try Data("x".utf8).write(to: URL(fileURLWithPath: folder + "/other.json"))
        XCTAssertEqual(watch.look(), FolderWatch.Look(touched: false, broken: false))
        try Data("{}".utf8).write(to: URL(fileURLWithPath: folder + "/.tmp"))
        try FileSystem.rename(folder + "/.tmp", to: path)
        XCTAssertEqual(watch.look(), FolderWatch.Look(touched: true, broken: false))
        XCTAssertEqual(watch.look(), FolderWatch.Look(touched: false, broken: false), "drained")
        try FileManager.default.removeItem(atPath: folder)
        let look = watch.look()
        XCTAssertTrue(look.touched)
        XCTAssertTrue(look.broken)
        XCTAssertNil(FolderWatch(path: folder + "/gone/cache.json"))
    }
}
