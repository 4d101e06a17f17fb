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
// The library's reports, without its own prefix: the command's name is in front of every message.
ErrorReporting.setHandler { error in
    let message = error.description
    standardError.print(message.hasPrefix("TypedDefaults: ") ? String(message.dropFirst(15)) : message)
}

do {
    let command = try Arguments.parse(Array(CommandLine.arguments.dropFirst()))
    try run(command)
    exit(0)
} catch let usage as UsageError {
    standardError.print(usage.message)
    FileHandle.standardError.write(Data((Help.usage(of: usage.command) + "\n").utf8))
    exit(2)
} catch let failure as Failure {
    standardError.print(failure.message)
    exit(1)
} catch {
    standardError.print("\(error)")
    exit(1)
}

func run(_ command: Command) throws {
    switch command {
    case .help(let topic):
        print(Help.text(of: topic))
    case .read(let suite, let name, let json):
        let store = try open(suite)
        let snapshot = store.snapshot()
        if let name {
            guard let object = snapshot[name] else {
                throw Failure(message: "the suite \(suite) has no value named \(name)")
            }
            let value = plain(object)
            if json {
                print(TextFormats.json(value))
            } else if case .string(let text) = value {
                print(text)
            } else {
                print(TextFormats.oldStyle(value))
            }
        } else {
            try requireExisting(suite, snapshot)
            let value = PropertyListValue.dictionary(snapshot.mapValues(plain))
            print(json ? TextFormats.json(value) : TextFormats.oldStyle(value))
        }
    case .write(let suite, let name, let value):
        let store = try open(suite)
        // The form keys store a name in, so that an app's key of that name reads what was written.
        let name = name.precomposedStringWithCanonicalMapping
        try store.editObjects(names: [name]) { objects in
            switch value {
            case .value(let value):
                objects[name] = value.userDefaultsObject
            case .arrayAdd(let elements):
                let current = objects[name].map(plain) ?? .array([])
                guard case .array(let stored) = current else {
                    throw Failure(
                        message: "\(name) holds \(kind(of: current)), not an array: -array-add adds to an array")
                }
                objects[name] = PropertyListValue.array(stored + elements).userDefaultsObject
            case .dictionaryAdd(let entries):
                let current = objects[name].map(plain) ?? .dictionary([:])
                guard case .dictionary(let stored) = current else {
                    throw Failure(
                        message: "\(name) holds \(kind(of: current)), not a dictionary: -dict-add adds to a dictionary")
                }
                objects[name] =
                    PropertyListValue.dictionary(stored.merging(entries) { _, new in new }).userDefaultsObject
            }
        }
    case .delete(let suite, let name):
        let store = try open(suite)
        if let name {
            try store.editObjects(names: [name]) { objects in
                guard objects.removeValue(forKey: name) != nil else {
                    throw Failure(message: "the suite \(suite) has no value named \(name)")
                }
            }
        } else {
            let snapshot = store.snapshot()
            try requireExisting(suite, snapshot)
            try store.editObjects(names: Array(snapshot.keys)) { $0 = [:] }
        }
    case .domains(let json):
        let names = DefaultsStore.storedSuiteNames()
        print(json ? TextFormats.json(.array(names.map(PropertyListValue.string))) : names.joined(separator: ", "))
    case .rename(let suite, let old, let new):
        let store = try open(suite)
        let new = new.precomposedStringWithCanonicalMapping
        try store.editObjects(names: [old, new]) { objects in
            guard let object = objects.removeValue(forKey: old) else {
                throw Failure(message: "the suite \(suite) has no value named \(old)")
            }
            guard objects[new] == nil else {
                throw Failure(message: "the suite \(suite) already has a value named \(new): delete it first")
            }
            objects[new] = object
        }
    case .export(let suite, let path, let format):
        let store = try open(suite)
        let snapshot = store.snapshot()
        try requireExisting(suite, snapshot)
        let bytes: [UInt8]
        do {
            bytes = try PropertyListDocument.bytes(of: snapshot, format: format)
        } catch {
            throw Failure(message: "cannot export \(suite): \(error)")
        }
        if path == "-" {
            FileHandle.standardOutput.write(Data(bytes))
        } else {
            do {
                try Data(bytes).write(to: URL(fileURLWithPath: path), options: .atomic)
            } catch {
                throw Failure(message: "cannot write \(path): \(error.localizedDescription)")
            }
        }
    case .import(let suite, let path, let format):
        let store = try open(suite)
        let bytes = try readInput(path)
        let document: (values: [(name: String, object: Any)], format: PropertyListDocument.Format)
        do {
            document = try PropertyListDocument.values(in: bytes)
        } catch {
            throw Failure(message: "cannot import \(path == "-" ? "standard input" : path): \(error)")
        }
        if let format, format != document.format {
            throw Failure(message: "\(path) is \(document.format.rawValue), not \(format.rawValue)")
        }
        let values = Dictionary(document.values, uniquingKeysWith: { _, later in later })
        let existing = store.snapshot().keys
        try store.editObjects(names: Array(existing) + values.keys) { $0 = values }
    }
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
