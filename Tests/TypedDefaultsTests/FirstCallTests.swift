import Foundation
import Testing
import TypedDefaults

// Each public operation as the first call of a fresh process, over values another process saved. On
// Linux, where the library reads the suite's file itself; each probe gets a configuration folder of its
// own, so the standard store is the probe's own too.
#if os(Linux)

    /// One public operation, and what every read path must see after it when count = 7 and other = 3
    /// were saved by another process.
    struct FirstOperation: CustomTestStringConvertible, Sendable {
        let name: String
        /// What the operation gives, printed as `saw=…`; nil when it gives nothing.
        let saw: String?
        let count: Int
        let other: Int
        var migrated = 0
        var testDescription: String { name }

        static let all = [
            FirstOperation(name: "read", saw: nil, count: 7, other: 3),
            FirstOperation(name: "snapshot", saw: "7", count: 7, other: 3),
            FirstOperation(name: "hasKey", saw: "true", count: 7, other: 3),
            FirstOperation(name: "remove", saw: nil, count: 7, other: 0),
            FirstOperation(name: "removeAll", saw: nil, count: 0, other: 0),
            FirstOperation(name: "removeAllExcept", saw: nil, count: 7, other: 0),
            FirstOperation(name: "migrate", saw: "true", count: 7, other: 0, migrated: 3),
            FirstOperation(name: "modify", saw: "8", count: 8, other: 3),
            FirstOperation(name: "observe", saw: nil, count: 7, other: 3),
            FirstOperation(name: "updates", saw: "7", count: 7, other: 3),
            FirstOperation(name: "trackChangesElsewhere", saw: nil, count: 7, other: 3),
            FirstOperation(name: "sync", saw: nil, count: 7, other: 3),
            FirstOperation(name: "flush", saw: "flushed", count: 7, other: 3),
        ]

        /// What the probe prints after the operation.
        var expectedLines: [String] {
            let has = count != 0
            return (saw.map { ["saw=\($0)"] } ?? [])
                + ["count=\(count) other=\(other) migrated=\(migrated) has=\(has) plain=\(count)"]
        }
    }

    @Suite("Every public operation, as the first call of a process, sees what is stored")
    struct FirstCallTests {
        /// Seeds count = 7 and other = 3 in `suite` ("-": the standard store) from one process, runs
        /// `operation` first in a second, and returns what the second printed and what a third then reads.
        private func runFirst(_ operation: String, suite: String) throws -> (first: [String], after: [String]) {
            try withTemporaryFolder { folder in
                let environment = ["XDG_CONFIG_HOME": folder.path]
                func probe(_ operation: String) throws -> [String] {
                    let output = try ProbeProcess.run(["first", operation, suite], environment: environment)
                    #expect(output.status == 0, "\(operation): \(output.standardError)")
                    return output.lines
                }
                _ = try probe("seed")
                return (try probe(operation), try probe("read"))
            }
        }

        @Test(arguments: FirstOperation.all)
        func onTheStandardStore(_ operation: FirstOperation) throws {
            let (first, after) = try runFirst(operation.name, suite: "-")
            #expect(first == operation.expectedLines)
            #expect(after.last == operation.expectedLines.last)
        }

        @Test(arguments: FirstOperation.all + [FirstOperation(name: "removeSuite", saw: nil, count: 0, other: 0)])
        func onASuite(_ operation: FirstOperation) throws {
            let (first, after) = try runFirst(operation.name, suite: uniqueSuiteName())
            #expect(first == operation.expectedLines)
            #expect(after.last == operation.expectedLines.last)
        }
    }
#endif
