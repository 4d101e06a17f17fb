import Foundation
import Testing
import TypedDefaults

// MARK: What the probe writes

/// What `typed-defaults-probe dump` prints after `typed-defaults-probe write`: every date to the
/// microsecond, every URL exactly.
let fixtureLines = [
    "count=42",
    "date=1700000000.123456",
    "dates=0.001000,1800000000.500000",
    "theme=dark",
    "profile=Ada@-4000000000.250000",
    "urls=https://example.com/p?q=1&r=a%20b#frag https://xn--bcher-kva.example/stra%C3%9Fe?q=%C3%A4 "
        + "mailto:ada@example.com?subject=Hi%20there ftp://user@ftp.example.com:2121/pub/file.txt "
        + "file:///tmp/a%20dir/%C3%BCn%C3%AF%20c%C3%B8d%C3%A9.txt www.example.com //example.com/a?b=1 /a/path?q=1#f",
    "urlsByName=file:file:///tmp/a%20dir/%C3%BCn%C3%AF%20c%C3%B8d%C3%A9.txt first:https://example.com/p?q=1&r=a%20b#frag",
    "homepage=https://xn--bcher-kva.example/stra%C3%9Fe?q=%C3%A4",
]

// MARK: The probe, a real child process

/// Runs `typed-defaults-probe`, the package's small executable, as a real child process.
struct ProbeProcess {
    struct Output {
        let status: Int32
        let reason: Process.TerminationReason
        let standardOutput: String
        let standardError: String
        var lines: [String] { standardOutput.split(separator: "\n").map(String.init) }
    }

    /// The probe built beside the test binary (SwiftPM builds it, as a dependency of the tests). On
    /// Linux the test binary is the main executable; on macOS tests run inside `xctest`, and the test
    /// bundle is among the loaded bundles.
    static let executable: URL? = {
        // A probe built elsewhere (a release build, for the runs that measure time).
        if let path = ProcessInfo.processInfo.environment["TYPED_DEFAULTS_PROBE"] {
            return URL(fileURLWithPath: path)
        }
        let starts =
            [Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])]
            + Bundle.allBundles.map(\.bundleURL)
        for start in starts {
            var directory = start
            for _ in 0..<6 {
                directory.deleteLastPathComponent()
                let candidate = directory.appendingPathComponent("typed-defaults-probe")
                if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            }
        }
        return nil
    }()

    /// The folder SwiftPM built the probe, the library's module and its resource bundle into.
    static var productsDirectory: URL? { executable?.deletingLastPathComponent() }

    let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let errors = Pipe()

    /// Starts the probe with `environment` over the tests' own, without the variables in `unsetting`,
    /// in `directory` when given, and inside `wrapper` (a command that runs the probe, given its path and
    /// arguments after its own) when given. `program` names another executable of the package built
    /// beside the probe (`typed-defaults-demo`), run the same way.
    init(
        _ arguments: [String], environment: [String: String] = [:], unsetting: [String] = [],
        directory: URL? = nil, wrapper: [String] = [], program: String? = nil
    ) throws {
        guard
            let executable = program.map({ Self.productsDirectory?.appendingPathComponent($0) }) ?? Self.executable
        else {
            throw CocoaError(
                .fileNoSuchFile,
                userInfo: [NSLocalizedDescriptionKey: "\(program ?? "typed-defaults-probe") is not built"])
        }
        if let command = wrapper.first {
            process.executableURL = URL(fileURLWithPath: command)
            process.arguments = wrapper.dropFirst() + [executable.path] + arguments
        } else {
            process.executableURL = executable
            process.arguments = arguments
        }
        // No crash backtracer: a probe that stops on purpose (a debug build's trap) must end at once. Under
        // ThreadSanitizer the backtracer it starts was seen still running nine minutes later, holding the
        // probe's pipes open, so the test waiting for the probe's output never ended. The trap's message
        // is printed without it.
        var merged = ["SWIFT_BACKTRACE": "enable=no"].merging(ProcessInfo.processInfo.environment) { own, _ in own }
            .merging(environment) { _, new in new }
        for name in unsetting { merged[name] = nil }
        process.environment = merged
        if let directory { process.currentDirectoryURL = directory }
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
    }

    /// Runs the probe to the end.
    static func run(
        _ arguments: [String], environment: [String: String] = [:], unsetting: [String] = [], directory: URL? = nil,
        wrapper: [String] = [], program: String? = nil
    ) throws -> Output {
        let probe = try ProbeProcess(
            arguments, environment: environment, unsetting: unsetting, directory: directory, wrapper: wrapper,
            program: program)
        try probe.input.fileHandleForWriting.close()
        return probe.finish()
    }

    /// Runs the probe to the end with `standardInput` as its whole input.
    static func run(
        _ arguments: [String], environment: [String: String] = [:], standardInput: Data, program: String? = nil
    ) throws -> Output {
        let probe = try ProbeProcess(arguments, environment: environment, program: program)
        try probe.input.fileHandleForWriting.write(contentsOf: standardInput)
        try probe.input.fileHandleForWriting.close()
        return probe.finish()
    }

    /// Blocks until the probe writes `line` on standard output (the probe's own signal, not a guess
    /// at timing), and returns false if it ends first.
    func waitForLine(_ line: String) -> Bool {
        var received = ""
        while !received.split(separator: "\n").contains(Substring(line)) {
            guard let chunk = Self.readChunk(output), !chunk.isEmpty else { return false }
            received += String(decoding: chunk, as: UTF8.self)
        }
        return true
    }

    func send(_ line: String) throws {
        try input.fileHandleForWriting.write(contentsOf: Data((line + "\n").utf8))
    }

    /// Ends the probe's standard input: a probe reading lines sees the end of them.
    func closeInput() throws {
        try input.fileHandleForWriting.close()
    }

    /// Sends `line` and returns the one line the probe answers with; nil if it ends first.
    func ask(_ line: String) throws -> String? {
        try send(line)
        var received = ""
        while !received.hasSuffix("\n") {
            guard let chunk = Self.readChunk(output), !chunk.isEmpty else { return nil }
            received += String(decoding: chunk, as: UTF8.self)
        }
        return String(received.dropLast())
    }

    /// Calls `body` with each line the probe writes on standard output, until it ends.
    func forEachLine(_ body: (String) -> Void) {
        var received = ""
        while let chunk = Self.readChunk(output), !chunk.isEmpty {
            received += String(decoding: chunk, as: UTF8.self)
            while let end = received.firstIndex(of: "\n") {
                body(String(received[..<end]))
                received = String(received[received.index(after: end)...])
            }
        }
    }

    func kill() {
        Foundation.kill(process.processIdentifier, SIGKILL)
    }

    /// Reads what the pipe has, retrying a read that a signal interrupts (Foundation's `FileHandle`
    /// traps on EINTR, and child processes make signals arrive); nil on error, empty at end of file.
    private static func readChunk(_ pipe: Pipe) -> Data? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(pipe.fileHandleForReading.fileDescriptor, &buffer, buffer.count)
            if count >= 0 { return Data(buffer[0..<count]) }
            if errno != EINTR { return nil }
        }
    }

    private static func readToEnd(_ pipe: Pipe) -> Data {
        var data = Data()
        while let chunk = readChunk(pipe), !chunk.isEmpty { data += chunk }
        return data
    }

    func finish() -> Output {
        let standardOutput = Self.readToEnd(output)
        let standardError = Self.readToEnd(errors)
        process.waitUntilExit()
        return Output(
            status: process.terminationStatus, reason: process.terminationReason,
            standardOutput: String(decoding: standardOutput, as: UTF8.self),
            standardError: String(decoding: standardError, as: UTF8.self))
    }
}

/// A unique suite for a test that involves child processes, removed afterwards.
func withProcessSuite(_ label: String = #function, _ body: (String) throws -> Void) rethrows {
    let suiteName = uniqueSuiteName(label)
    defer { _ = try? ProbeProcess.run(["remove", suiteName]) }
    try body(suiteName)
}

// MARK: Folders of a test's own

/// Runs `body` with a new empty folder, removed afterwards with everything in it.
func withTemporaryFolder<Result>(_ body: (URL) throws -> Result) throws -> Result {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("typed-defaults-\(UUID())")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    return try body(folder)
}

/// The top-level dictionary of the property list at `url`, or nil when there is none.
func propertyList(at url: URL) -> [String: Any]? {
    guard let data = try? Data(contentsOf: url) else { return nil }
    return (try? PropertyListSerialization.propertyList(from: data, format: nil)) as? [String: Any]
}

/// A probe wrapper that limits its address space to 1.5 GB: for files that could make a reader build
/// far more than they hold. ThreadSanitizer's runtime cannot run in a limited address space: there the
/// memory bound is not measured, the rest is.
let addressSpaceLimited = runsUnderThreadSanitizer ? [] : ["/bin/sh", "-c", "ulimit -v 1572864 && exec \"$@\"", "sh"]

/// Runs the probe with `arguments` over a suite file of `bytes` in a configuration folder of its own, in
/// a process limited to 1.5 GB of address space (`addressSpaceLimited`). `body` gets the probe's output,
/// the folder and the file.
func withProbeOverFile(
    _ bytes: Data, suite: String, arguments: [String],
    _ body: (_ output: ProbeProcess.Output, _ folder: URL, _ file: URL) throws -> Void
) throws {
    try withTemporaryFolder { folder in
        let file = folder.appendingPathComponent(suite + ".plist")
        try bytes.write(to: file)
        let output = try ProbeProcess.run(
            arguments, environment: ["XDG_CONFIG_HOME": folder.path], wrapper: addressSpaceLimited)
        try body(output, folder, file)
    }
}
