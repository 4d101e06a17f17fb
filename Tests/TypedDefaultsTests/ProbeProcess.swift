import Foundation
import Testing

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

    let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let errors = Pipe()

    init(_ arguments: [String], environment: [String: String] = [:]) throws {
        guard let executable = Self.executable else {
            throw CocoaError(
                .fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "typed-defaults-probe is not built"])
        }
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
    }

    /// Runs the probe to the end.
    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> Output {
        let probe = try ProbeProcess(arguments, environment: environment)
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
