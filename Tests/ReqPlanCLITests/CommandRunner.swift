import Foundation
import ReqPlanTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Runs the built `reqplan` binary and captures what it prints (end-to-end tests).
struct CommandRunner {
    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
        /// Whether the process was ended by a signal it did not handle (`status` is then the signal number).
        var uncaughtSignal = false
        /// Whether it had to be killed because it outlived the time it was given.
        var killedAfterTimeout = false
    }

    /// The package root, found from this file's path.
    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The `reqplan` executable next to the test bundle (whatever the scratch path or configuration).
    static var binary: URL {
        var candidates: [URL] = []
        let testExecutable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = testExecutable.deletingLastPathComponent()
        for _ in 0..<4 {
            candidates.append(directory.appendingPathComponent("reqplan"))
            directory = directory.deletingLastPathComponent()
        }
        for bundle in Bundle.allBundles {
            candidates.append(bundle.bundleURL.deletingLastPathComponent().appendingPathComponent("reqplan"))
        }
        candidates.append(packageRoot.appendingPathComponent(".build/debug/reqplan"))
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) && !$0.hasDirectoryPath }
            ?? packageRoot.appendingPathComponent(".build/debug/reqplan")
    }

    /// Runs `reqplan arguments…` in `directory` (default: the package root).
    static func run(_ arguments: [String], in directory: URL? = nil, environment: [String: String] = [:]) throws
        -> Output
    {
        let (process, out, err) = makeProcess(arguments, in: directory, environment: environment, executable: nil)
        try process.run()
        // Read both pipes to the end before waiting, so a large output cannot block the child.
        let stdoutData = out.fileHandleForReading.readDataToEndOfFile()
        let stderrData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Output(
            status: process.terminationStatus, stdout: String(decoding: stdoutData, as: UTF8.self),
            stderr: String(decoding: stderrData, as: UTF8.self))
    }

    /// The example plans in `plans/`, as paths relative to the package root.
    static func examplePlans() throws -> [String] {
        let folder = packageRoot.appendingPathComponent("plans")
        return try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".yaml") }.sorted().map { "plans/" + $0 }
    }

    /// Every example plan under `plans/`, the `plans/suite/` folder included, as paths relative to the
    /// package root (the rule of a suite's folder: `.yaml` files, not starting with `_` or `.`).
    static func allExamplePlans() throws -> [String] {
        let folder = packageRoot.appendingPathComponent("plans")
        return try FileManager.default.subpathsOfDirectory(atPath: folder.path)
            .filter { path in
                path.hasSuffix(".yaml")
                    && !path.split(separator: "/").contains { $0.hasPrefix("_") || $0.hasPrefix(".") }
            }
            .sorted().map { "plans/" + $0 }
    }

    /// Writes `text` to a new temporary file and returns its path.
    static func temporaryPlan(_ text: String, name: String = "plan.yaml") throws -> URL {
        let directory = TestFolders.unique("reqplan-tests")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent(name)
        try text.write(to: file, atomically: true, encoding: .utf8)
        return file
    }
}

// MARK: - Asynchronous runs

/// What a child has written so far, shared between the thread reading it and the test.
final class GrowingData: Sendable {
    let data = Mutex(Data())
}

extension CommandRunner {
    /// A `reqplan` process started by `start`: its pipes are read on their own threads from the
    /// start, so the child never blocks on a full pipe, and no thread of the test's concurrency
    /// pool (which serves the in-process demo API too) is ever blocked waiting for it.
    /// (`@unchecked`: only `Process`'s thread-safe `isRunning` and `processIdentifier` are used
    /// after launch, and `Process` is not `Sendable` on every platform.)
    final class Running: @unchecked Sendable {
        /// The child's process id, for `kill(pid, SIGINT)`.
        let pid: Int32
        private let process: Process
        private let output: Task<Output, Never>
        private let stderrSoFar: GrowingData

        fileprivate init(process: Process, output: Task<Output, Never>, stderrSoFar: GrowingData) {
            self.pid = process.processIdentifier
            self.process = process
            self.output = output
            self.stderrSoFar = stderrSoFar
        }

        /// Whether the child has not exited yet.
        var isRunning: Bool { process.isRunning }

        /// Opens the named pipe `fifo` to write, once the child has opened it to read (a writer can open a pipe
        /// without waiting only then): the descriptor, or -1 if the child exited or 30 s passed first.
        /// Checks every 5 ms.
        func openForWriting(_ fifo: String) async -> Int32 {
            for _ in 0..<6_000 where isRunning {
                let writer = open(fifo, O_WRONLY | O_NONBLOCK)
                if writer >= 0 { return writer }
                try? await Task.sleep(for: .milliseconds(5))
            }
            return -1
        }

        /// Waits until the child has written `text` to standard error (true), or has exited or
        /// `limit` has passed without it (false). Checks every 5 ms.
        func waitForStandardError(containing text: String, within limit: Duration = .seconds(30)) async -> Bool {
            let end = ContinuousClock.now + limit
            while ContinuousClock.now < end {
                if stderrSoFar.data.withLock({ String(decoding: $0, as: UTF8.self).contains(text) }) { return true }
                if !isRunning { break }
                try? await Task.sleep(for: .milliseconds(5))
            }
            return stderrSoFar.data.withLock { String(decoding: $0, as: UTF8.self).contains(text) }
        }

        /// Waits for the child to exit and returns what it printed. If it is still running after
        /// `limit`, it is killed (SIGKILL) and the output says so (`killedAfterTimeout`).
        func finish(within limit: Duration = .seconds(60)) async -> Output {
            let watchdog = Task {
                try await Task.sleep(for: limit)
                guard self.isRunning else { return false }
                kill(self.pid, SIGKILL)
                return true
            }
            var result = await output.value
            watchdog.cancel()
            result.killedAfterTimeout = (try? await watchdog.value) == true
            return result
        }
    }

    /// A process for `reqplan arguments…` (or `executable`) with colors off and both outputs piped
    /// (standard output to `standardOutput` instead, when given).
    private static func makeProcess(
        _ arguments: [String], in directory: URL?, environment: [String: String], executable: URL?,
        standardOutput: FileHandle? = nil
    ) -> (Process, Pipe, Pipe) {
        let process = Process()
        process.executableURL = executable ?? binary
        process.arguments = arguments
        process.currentDirectoryURL = directory ?? packageRoot
        var env = ProcessInfo.processInfo.environment
        env["NO_COLOR"] = "1"
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = standardOutput ?? out
        process.standardError = err
        if standardOutput != nil { try? out.fileHandleForWriting.close() }
        return (process, out, err)
    }

    /// Starts `reqplan arguments…` in `directory` (default: the package root) and returns at once.
    /// - Parameter standardOutput: where the child's standard output goes instead of a pipe read by
    ///   the test (`/dev/full`, a pipe nobody reads); `Output.stdout` is then empty.
    static func start(
        _ arguments: [String], in directory: URL? = nil,
        environment: [String: String] = [:], executable: URL? = nil, standardOutput: FileHandle? = nil
    ) throws -> Running {
        let (process, out, err) = makeProcess(
            arguments, in: directory, environment: environment,
            executable: executable, standardOutput: standardOutput)
        let exit = AsyncStream<(status: Int32, signalled: Bool)>.makeStream()
        process.terminationHandler = { ended in
            exit.continuation.yield((ended.terminationStatus, ended.terminationReason == .uncaughtSignal))
            exit.continuation.finish()
        }
        try process.run()
        let stdout = readToEnd(out.fileHandleForReading)
        let stderrSoFar = GrowingData()
        let stderr = readToEnd(err.fileHandleForReading, soFar: stderrSoFar)
        let output = Task {
            let stdoutData = await stdout.value
            let stderrData = await stderr.value
            var ending = (status: Int32(-1), signalled: false)
            for await value in exit.stream { ending = value }
            return Output(
                status: ending.status, stdout: String(decoding: stdoutData, as: UTF8.self),
                stderr: String(decoding: stderrData, as: UTF8.self), uncaughtSignal: ending.signalled)
        }
        return Running(process: process, output: output, stderrSoFar: stderrSoFar)
    }

    /// Runs `reqplan arguments…` to the end without blocking a thread of the concurrency pool.
    static func run(
        _ arguments: [String], in directory: URL? = nil, environment: [String: String] = [:],
        executable: URL? = nil, standardOutput: FileHandle? = nil, within limit: Duration
    ) async throws -> Output {
        try await start(
            arguments, in: directory, environment: environment, executable: executable,
            standardOutput: standardOutput
        )
        .finish(within: limit)
    }

    /// Reads a pipe to its end on a thread of its own, starting now.
    /// Reads `handle` to its end on a thread of its own; with `soFar`, chunk by chunk, keeping
    /// what has come so far there for a test to look at while the child runs.
    private static func readToEnd(_ handle: FileHandle, soFar: GrowingData? = nil) -> Task<Data, Never> {
        let data = AsyncStream<Data>.makeStream()
        let thread = Thread {
            guard let soFar else {
                data.continuation.yield(handle.readDataToEndOfFile())
                data.continuation.finish()
                return
            }
            while case let chunk = handle.availableData, !chunk.isEmpty {
                soFar.data.withLock { $0.append(chunk) }
            }
            data.continuation.yield(soFar.data.withLock { $0 })
            data.continuation.finish()
        }
        thread.start()
        return Task {
            var result = Data()
            for await chunk in data.stream { result = chunk }
            return result
        }
    }
}
