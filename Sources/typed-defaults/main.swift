import Foundation
import TypedDefaults

// typed-defaults: reads and edits a suite from the shell, through the library's own saver (on Linux:
// the suite's file lock, an atomic replace, running apps told within 200 ms). Usage: `--help`.

/// A failure of a command the input was right for: exit status 1.
struct Failure: Error {
    let message: String
}

/// Each distinct message once, on standard error: a save that fails is reported when the command
/// saves and again by the exit-time save.
final class StandardError: Sendable {
    private let printed = Locked<Set<String>>([])

    func print(_ message: String) {
        guard printed.withLockedValue({ $0.insert(message).inserted }) else { return }
        FileHandle.standardError.write(Data(("typed-defaults: " + message + "\n").utf8))
    }
}

let standardError = StandardError()

// The command edits the files Linux's Foundation keeps a suite in, with the key manifest beside them;
// elsewhere the system has `defaults`, over the same suites, and its own store.
#if !os(Linux)
    standardError.print("this command is for Linux, which has no defaults; on this system, use defaults")
    exit(2)
#endif
/// An error's message without the library's own prefix: the command's name is in front of every message.
func message(of error: any Error) -> String {
    let message = "\(error)"
    return message.hasPrefix("TypedDefaults: ") ? String(message.dropFirst(15)) : message
}

// The library's reports, the same way: a failed save reported and thrown is one message, printed once.
ErrorReporting.setHandler { standardError.print(message(of: $0)) }

do {
    let command = try Arguments.parse(Array(CommandLine.arguments.dropFirst()))
    if let domain = pathDomain.withLockedValue({ $0 }) { runInFolder(of: domain) }
    try command.run()
    exit(0)
} catch let usage as UsageError {
    standardError.print(usage.message)
    FileHandle.standardError.write(Data((Help.usage(of: usage.command) + "\n").utf8))
    exit(2)
} catch let refusal as Refusal {
    standardError.print(refusal.message)
    exit(2)
} catch let failure as Failure {
    standardError.print(failure.message)
    exit(1)
} catch {
    standardError.print(message(of: error))
    exit(1)
}

/// The store of `suite`, or a failure that says why there is none.
func open(_ suite: String) throws -> DefaultsStore {
    guard let store = DefaultsStore(suiteName: suite) else {
        throw UsageError(
            message: "'\(suite)' is not a suite this command can open: a suite name is a plain file name (not "
                + "empty, no '/', not '.' or '..', no NUL), and its file, if there is one, a regular file",
            command: nil)
    }
    return store
}

/// Fails when the suite's file is there but cannot be read (a link, a FIFO, not a property list the
/// library reads): reported, and left as it is.
func requireReadable(_ suite: String) throws {
    if let problem = DefaultsStore.suiteFileProblem(suite) {
        throw Failure(message: "cannot read the suite \(suite): \(problem); it is left as it is")
    }
}

/// Every stored suite the command can read, by name, with its values; each one whose file cannot be read
/// is reported, counted, and left as it is (bare `read`, `find`).
func readableSuites() -> (suites: [(name: String, values: [String: Any])], unreadable: Int) {
    var suites: [(name: String, values: [String: Any])] = []
    var unreadable = 0
    for suite in DefaultsStore.storedSuiteNames() {
        if let problem = DefaultsStore.suiteFileProblem(suite) {
            standardError.print("cannot read the suite \(suite): \(problem)")
            unreadable += 1
            continue
        }
        guard let store = DefaultsStore(suiteName: suite) else { continue }
        suites.append((suite, store.snapshot()))
    }
    return (suites, unreadable)
}

func requireAllReadable(_ unreadable: Int) throws {
    if unreadable > 0 { throw Failure(message: "\(unreadable) of the suites cannot be read; each is left as it is") }
}

func noValue(_ suite: String, _ name: String) -> Failure {
    Failure(message: "the suite \(suite) has no value named \(name)")
}

/// Fails for a suite with no values and no file: `defaults` says such a domain does not exist.
func requireExisting(_ suite: String, _ snapshot: [String: Any]) throws {
    if snapshot.isEmpty, !DefaultsStore.storedSuiteNames().contains(suite) {
        throw Failure(message: "the suite \(suite) does not exist")
    }
}

/// A stored object as a property-list value (its description, for one no property list holds).
func plain(_ object: Any) -> PropertyListValue {
    PropertyListValue(userDefaultsObject: object) ?? .string("\(object)")
}

func kind(of value: PropertyListValue) -> String {
    switch value {
    case .string: "a string"
    case .int: "an integer"
    case .double: "a real"
    case .bool: "a Boolean"
    case .date: "a date"
    case .data: "data"
    case .array: "an array"
    case .dictionary: "a dictionary"
    }
}

/// The bytes of `path` (`-`: standard input), at most `PropertyListDocument.maximumSize` and one more to
/// tell a larger file; only a regular file is opened (a FIFO or a device would block or never end).
func readInput(_ path: String) throws -> [UInt8] {
    let limit = PropertyListDocument.maximumSize + 1
    if path == "-" {
        var bytes: [UInt8] = []
        while bytes.count < limit {
            let chunk = FileHandle.standardInput.readData(ofLength: limit - bytes.count)
            if chunk.isEmpty { break }
            bytes += chunk
        }
        return bytes
    }
    let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    guard let attributes = try? FileManager.default.attributesOfItem(atPath: resolved) else {
        throw Failure(message: "cannot read \(path): no such file")
    }
    guard attributes[.type] as? FileAttributeType == .typeRegular else {
        throw Failure(message: "cannot read \(path): not a regular file")
    }
    guard let handle = FileHandle(forReadingAtPath: resolved) else {
        throw Failure(message: "cannot read \(path): permission denied")
    }
    defer { handle.closeFile() }
    return [UInt8](handle.readData(ofLength: limit))
}
