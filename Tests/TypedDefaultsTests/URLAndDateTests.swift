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

    @Test func datesWrittenByThePlainAPIRead() throws {
        try withSuite { suiteName, store in
            let date = Date(timeIntervalSince1970: 1_700_000_000.5)
            try #require(UserDefaults(suiteName: suiteName)).set(date, forKey: "when")
            #expect(store[UserDefaultTypedKey<Date?>("when")] == date)
        }
    }
}
