import Foundation
import TestEnvironment
import Testing
import TypedDefaults

// MARK: The run's own configuration folder

/// The folder Foundation keeps this process's suites in (and the probes', which inherit the
/// environment); what the tests leave there is removed at exit (TestEnvironment.c).
/// Made if it is not there yet, so that a test can put a file in it before any store is used.
let testConfigHome: URL = {
    let folder = URL(fileURLWithPath: String(cString: typed_defaults_tests_config_home()))
    try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
}()

// MARK: Long runs

/// Whether the long durability runs (a 50,000-key suite killed ten times, every save location with
/// every ending and eight writers) run: `TYPED_DEFAULTS_LONG_TESTS=1 swift test`, as `.ci/run` does.
/// `swift test` alone runs one case of each.
let runsLongTests = ProcessInfo.processInfo.environment["TYPED_DEFAULTS_LONG_TESTS"] == "1"

/// Whether this test binary runs under ThreadSanitizer (its runtime is linked in), which makes every
/// process, the probe too, several times slower: a claim about seconds is not measured there.
let runsUnderThreadSanitizer: Bool = {
    #if canImport(Glibc)
        return dlsym(dlopen(nil, RTLD_NOW), "__tsan_init") != nil
    #else
        return false
    #endif
}()

// MARK: Waiting with a limit

/// The longest a test waits for something it expects: past it, the test fails instead of hanging.
let waitLimit: TimeInterval = 10

struct TimedOut: Error, CustomStringConvertible {
    let what: String
    var description: String { "timed out after \(waitLimit) s waiting for \(what)" }
}

/// Polls `condition` until it holds; throws after `waitLimit` worth of polls. Counted in polls, not by
/// the clock: an async test resumes only when Swift Testing's cooperative threads (two on a 2-core
/// machine) are free of synchronous tests, and under ThreadSanitizer a clock deadline passed while the
/// waiter, and the task it waited for, had not run at all (one CI run in eight).
func waitUntil(
    _ what: String = "a condition", isolation: isolated (any Actor)? = #isolation,
    sourceLocation: SourceLocation = #_sourceLocation, _ condition: () throws -> Bool
) async throws {
    var polls = Int(waitLimit / 0.002)
    while try !condition() {
        guard polls > 0 else { throw TimedOut(what: what) }
        polls -= 1
        try await Task.sleep(nanoseconds: 2_000_000)
    }
}

/// Runs `body` on a thread of its own, in the calling test's task (so what it records is the test's),
/// without holding one of Swift Testing's cooperative threads (two on a 2-core machine, which every
/// synchronous test runs on): for a test that spends seconds waiting for a child process or a watcher's
/// delay, so that other tests run meanwhile. `body`'s own waits have their limits; the test's
/// `.timeLimit` bounds the whole.
func onThreadOfItsOwn<Value>(_ body: () throws -> Value) async throws -> Value {
    try await withTaskExecutorPreference(ThreadPerJob.shared) { try body() }
}

/// Runs each job of the tasks that prefer it on a new thread.
private final class ThreadPerJob: TaskExecutor {
    static let shared = ThreadPerJob()

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        Thread { job.runSynchronously(on: executor) }.start()
    }
}

/// Polls `condition` until it holds, from a thread that is not in a task; false past `limit`.
func pollUntil(_ limit: TimeInterval = waitLimit, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date(timeIntervalSinceNow: limit)
    while try !condition() {
        guard Date() < deadline else { return false }
        usleep(2_000)
    }
    return true
}

/// `ErrorReporting` has one handler for the whole process: the tests that read what it reports take
/// turns, so that one test's handler (or its removal) never takes another's reports.
private let reportingTurn = NSLock()

/// Runs `body` with what `ErrorReporting` reports meanwhile recorded, holding the turn. Reports reach
/// the handler on the library's report queue a moment after the error: `all` waits for those queued.
func withReportedErrors(_ body: (ReportedErrors) throws -> Void) rethrows {
    reportingTurn.lock()
    defer { reportingTurn.unlock() }
    let reported = ReportedErrors()
    ErrorReporting.setHandler { reported.recorder.append($0) }
    defer {
        ErrorReporting.waitForQueuedReports()
        ErrorReporting.setHandler(nil)
    }
    try body(reported)
}

/// What the handler got, once every report queued before the question has been handed over.
final class ReportedErrors: Sendable {
    let recorder = Recorder<DefaultsError>()
    var all: [DefaultsError] {
        ErrorReporting.waitForQueuedReports()
        return recorder.all
    }
}

/// In an exit test's child: ends the process with status 3 after `seconds`, so that a child that waits
/// for itself for good fails its test, in a time limit, instead of holding the run.
func endThisProcessIfItHangs(after seconds: TimeInterval = 20) {
    Thread.detachNewThread {
        Thread.sleep(forTimeInterval: seconds)
        exit(3)
    }
}
