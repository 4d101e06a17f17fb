import Foundation
import Testing
import TypedDefaults

@Suite("URLs and dates round-trip exactly")
struct URLAndDateTests {
    static let urls: [URL] =
        [
            "https://example.com/p?q=1&r=a%20b#frag",
            "http://example.com:8080/a/b/?x=%2F&y=%E2%9C%93",
            "https://bücher.example/straße?q=ä",
            "https://xn--bcher-kva.example/",
            "mailto:ada@example.com?subject=Hi%20there",
            "ftp://user@ftp.example.com:2121/pub/file.txt",
        ].compactMap(URL.init(string:)) + [
            URL(fileURLWithPath: "/tmp/a dir/ünï cødé.txt"),
            URL(fileURLWithPath: "/tmp/folder", isDirectory: true),
        ] + schemeless + relativeToABase

    /// URLs with no scheme: each would read back as a file path, or not at all, if stored as a string.
    static let schemeless: [URL] = [
        "www.example.com", "relative/path", "?q=1", "#frag", "//example.com/a?b=1", "/a/path?q=1#f", "/a/path",
        "~user/x", "file:///tmp/a?q=1#f",
    ].compactMap(URL.init(string:))

    static let relativeToABase: [URL] = [
        URL(string: "b/c?x=1#y", relativeTo: URL(string: "https://example.com/a/")),
        URL(string: "../up", relativeTo: URL(string: "https://example.com/a/b/")),
        URL(fileURLWithPath: "relative/file.txt"),
        URL(fileURLWithPath: "relative/folder", isDirectory: true, relativeTo: URL(fileURLWithPath: "/base/")),
    ].compactMap { $0 }

    @Test func everyKindOfURLIsInTheList() {
        #expect(Self.schemeless.count == 9 && Self.relativeToABase.count == 4)
    }

    @Test(arguments: Backend.allCases)
    func urlsRoundTripAloneAndInCollections(_ backend: Backend) {
        withStore(backend) { store in
            for (index, url) in Self.urls.enumerated() {
                #expect(roundTrip(url, default: URL(fileURLWithPath: "/"), in: store, name: "url\(index)") == url)
            }
            #expect(roundTrip(Self.urls, default: [], in: store, name: "urls") == Self.urls)
            let byName = Dictionary(uniqueKeysWithValues: Self.urls.enumerated().map { ("u\($0.offset)", $0.element) })
            #expect(roundTrip(byName, default: [:], in: store, name: "byName") == byName)
        }
    }

    @Test func urlsInOtherStoredFormsStillRead() throws {
        try withStore(.inMemory) { store in
            let url = try #require(URL(string: "https://example.com/x?y=1"))
            // The archived form Apple's `UserDefaults.set(_: URL, forKey:)` writes.
            let archived = try NSKeyedArchiver.archivedData(withRootObject: url as NSURL, requiringSecureCoding: true)
            #expect(read(archived, as: URL?.self, default: nil, in: store) == url)
            #expect(
                read("/tmp/plain path", as: URL?.self, default: nil, in: store)
                    == URL(fileURLWithPath: "/tmp/plain path"))
            #expect(read("~/notes.txt", as: URL?.self, default: nil, in: store)?.path.hasSuffix("/notes.txt") == true)
            #expect(read("no scheme here", as: URL?.self, default: nil, in: store) == nil)
        }
    }

    /// An archived URL relative to a base reads as that URL; an archive of another class, or an `NSURL`
    /// that is its own base, reads as the key's default, and the process goes on. Before, the archive went
    /// straight to Foundation's unarchiver: on Linux another class stopped the process ("Value was of
    /// unexpected class") and a URL that was its own base overflowed the stack.
    @Test func archivedURLsAreReadWithoutAnUnarchiver() async throws {
        let relative = try #require(URL(string: "b/c?d=1", relativeTo: URL(string: "https://example.com/a/")))
        let archived = try NSKeyedArchiver.archivedData(withRootObject: relative as NSURL, requiringSecureCoding: true)
        let store = DefaultsStore(storage: InMemoryStorage())
        #expect(read(archived, as: URL?.self, default: nil, in: store)?.absoluteString == relative.absoluteString)
        await #expect(processExitsWith: .success) {
            let ascii = { (text: String) in [0x50 | UInt8(text.utf8.count)] + Array(text.utf8) }
            let ownBase = handMadeBinaryPropertyList([
                [0xD4, 1, 2, 3, 4, 5, 6, 7, 8], ascii("$archiver"), ascii("$top"), ascii("$objects"),
                ascii("$version"), [0x5F, 0x10, 0x0F] + Array("NSKeyedArchiver".utf8), [0xD1, 9, 10],
                [0xA4, 11, 12, 13, 14], [0x12, 0x00, 0x01, 0x86, 0xA0], ascii("root"), [0x80, 0x01], ascii("$null"),
                [0xD3, 15, 16, 17, 10, 18, 19],  // {NS.base: itself, NS.relative: "x", $class}
                ascii("x"), [0xD2, 20, 21, 22, 23], ascii("NS.base"), ascii("NS.relative"), ascii("$class"),
                [0x80, 0x02], [0x80, 0x03], ascii("$classname"), ascii("$classes"), ascii("NSURL"), [0xA2, 22, 24],
                ascii("NSObject"),
            ])
            let foreign = try NSKeyedArchiver.archivedData(
                withRootObject: ["not", "a", "url"] as NSArray, requiringSecureCoding: true)
            let store = DefaultsStore(storage: InMemoryStorage())
            let key = UserDefaultTypedKey<URL?>("archivedURL")
            for data in [ownBase, foreign] {
                store.storage.set(data, forKey: key.name)
                if store[key] != nil { exit(1) }
            }
        }
    }

    @Test func datesWrittenByThePlainAPIRead() throws {
        try withSuite { suiteName, store in
            let date = Date(timeIntervalSince1970: 1_700_000_000.5)
            try #require(UserDefaults(suiteName: suiteName)).set(date, forKey: "when")
            #expect(store[UserDefaultTypedKey<Date?>("when")] == date)
        }
    }
}
