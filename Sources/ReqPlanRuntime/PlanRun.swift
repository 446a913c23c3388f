import Foundation
import ReqPlanPlanner
import ReqPlanSyntax
import Yams

/// The whole of `reqplan run` as a library call: validate, resolve inputs, execute, so the
/// command-line target only parses and prints. Nothing here touches the process: the CLI turns
/// SIGINT and SIGTERM into cancellation (`RunSupervisor`) and trims freed memory itself; embedders
/// use the `ReqPlan` library, which runs plans on the same executor.
public enum PlanRun {
    /// A plan ready to run.
    public struct Prepared: Sendable {
        public var graph: PlanGraph
        public var inputs: RunInputs
    }

    /// Why a plan cannot run: its diagnostics, with the sources to render them.
    public struct Failure: Error, Sendable {
        public var diagnostics: [Diagnostic]
        public var sources: [SourceFile]

        /// Creates a failure.
        public init(diagnostics: [Diagnostic], sources: [SourceFile]) {
            self.diagnostics = diagnostics
            self.sources = sources
        }

        /// The errors of a plan that is not valid.
        init(invalid report: ValidationReport) {
            self.init(diagnostics: report.diagnostics.filter { $0.severity == .error }, sources: report.sources)
        }
    }

    /// Validates the plan (and its sub-plans) and resolves its inputs.
    /// - Parameters:
    ///   - ignoreUndeclared: drop `--input`s the plan does not declare (for `demo`).
    ///   - allowFilesOutside: let the files the plan names be outside its folder.
    ///   - library: where checked plan files are kept (one per command, so shared sub-plans are read once).
    public static func prepare(
        path: String, limits: ParseLimits, overrides: [String], inputsFile: String?,
        environment: [String: String], ignoreUndeclared: Bool = false, allowFilesOutside: Bool = false,
        library: PlanLibrary = PlanLibrary()
    ) async -> Result<Prepared, Failure> {
        let report = PlanValidator.validate(
            fileAt: path, limits: limits, allowFilesOutside: allowFilesOutside,
            library: library)
        guard report.errorCount == 0, report.graph != nil else { return .failure(Failure(invalid: report)) }
        let sources = report.sources
        let pairs: [(name: String, value: String)]
        switch parseOverrides(overrides, file: path) {
        case .success(let value): pairs = value
        case .failure(let diagnostic): return .failure(Failure(diagnostics: [diagnostic], sources: sources))
        }
        var fileValues: [String: Value] = [:]
        if let inputsFile {
            switch readInputsFile(inputsFile, limit: limits.maxFileSize) {
            case .success(let values): fileValues = values
            case .failure(let diagnostic): return .failure(Failure(diagnostics: [diagnostic], sources: sources))
            }
        }
        return resolveInputs(
            of: report, overrides: pairs, file: fileValues, environment: environment,
            ignoreUndeclared: ignoreUndeclared, naming: .commandLine)
    }

    /// Resolves the inputs of a validated plan.
    /// - Parameters:
    ///   - ignoreUndeclared: drop the `--input`s and inputs-file values the plan does not
    ///     declare (`demo`, and each plan of a suite).
    ///   - naming: how messages name the inputs given (`--input`, or plain names for a library caller).
    public static func resolveInputs(
        of report: ValidationReport, overrides: [(name: String, value: String)], file: [String: Value],
        environment: [String: String], ignoreUndeclared: Bool = false, naming: InputResolver.Naming = .library
    ) -> Result<Prepared, Failure> {
        guard report.errorCount == 0, let graph = report.graph else { return .failure(Failure(invalid: report)) }
        var pairs = overrides
        var fileValues = file
        if ignoreUndeclared {
            let declared = Set(graph.plan.inputs.map(\.name.value))
            pairs.removeAll { !declared.contains($0.name) }
            fileValues = fileValues.filter { declared.contains($0.key) }
        }
        switch InputResolver.resolve(
            plan: graph.plan, overrides: pairs, file: fileValues, environment: environment,
            naming: naming)
        {
        case .failure(let errors): return .failure(Failure(diagnostics: errors.diagnostics, sources: report.sources))
        case .success(var inputs):
            switch InputResolver.resolveSubPlanEnvironment(of: graph, environment: environment) {
            case .failure(let errors):
                return .failure(Failure(diagnostics: errors.diagnostics, sources: report.sources))
            case .success(let variables): inputs.environment.merge(variables, uniquingKeysWith: { own, _ in own })
            }
            return .success(Prepared(graph: graph, inputs: inputs))
        }
    }

    /// `--input name=value` texts as pairs, or the diagnostic for the first that is not of that form.
    public static func parseOverrides(_ texts: [String], file: String? = nil)
        -> Result<[(name: String, value: String)], Diagnostic>
    {
        var pairs: [(name: String, value: String)] = []
        for text in texts {
            guard let pair = InputResolver.parseOverride(text) else {
                return .failure(
                    Diagnostic(
                        .error, .invalidInput, "--input `\(text)` is not of the form name=value",
                        file: file))
            }
            pairs.append(pair)
        }
        return .success(pairs)
    }

    /// Reads `--inputs-file`: a JSON or YAML mapping of names to values.
    public static func readInputsFile(_ path: String, limit: Int) -> Result<[String: Value], Diagnostic> {
        let text: String
        switch TextFile.read(atPath: path, limit: limit, what: "the inputs file") {
        case .failure(let failure):
            return .failure(Diagnostic(.error, .invalidInput, "inputs file: \(failure.text)", file: path))
        case .success(let value):
            text = value
        }
        if let value = try? Value.parseJSON(text), case .object(let fields) = value {
            return .success(Dictionary(fields.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last }))
        }
        do {
            guard let any = try Yams.load(yaml: text) else { return .success([:]) }
            guard let mapping = any as? [String: Any] else {
                return .failure(
                    Diagnostic(
                        .error, .invalidInput, "the inputs file must be a mapping of names to values",
                        file: path))
            }
            return .success(mapping.mapValues(Value.init(any:)))
        } catch {
            return .failure(
                Diagnostic(
                    .error, .invalidInput, "the inputs file is neither JSON nor YAML: \(error)",
                    file: path))
        }
    }

    /// Runs a prepared plan over the HTTP transport (`HTTPClientTransport`). Cancelling the calling
    /// task, or the supervisor, cancels the run; the results gathered so far are still returned (with
    /// `interrupted` set).
    /// - Parameters:
    ///   - observer: what watches the run (a progress display, a verbose log: `ReqPlanPresentation`).
    ///   - refresh: called ten times a second while the run goes on, and once at the end (to redraw a
    ///     progress display; the run itself never polls).
    ///   - supervisor: what the run goes on under (the CLI's cancels it on SIGINT and SIGTERM).
    public static func execute(
        _ prepared: Prepared, configuration: RunConfiguration, transport: HTTPClientTransport.Configuration,
        observer: any ExecutionObserver = NoObserver(), refresh: (@Sendable () -> Void)? = nil,
        supervisor: any RunSupervisor = UnsupervisedRun()
    ) async throws -> RunResult {
        try await HTTPClientTransport.with(transport) { client in
            let executor = Executor(
                graph: prepared.graph, transport: client, inputs: prepared.inputs,
                configuration: configuration, observer: observer)
            return await refreshing(every: .milliseconds(100), refresh, supervisor: supervisor) { await executor.run() }
        }
    }

    /// Runs `body` under `supervisor`; meanwhile calls `refresh` every `interval`, and once after. The
    /// timer only refreshes what people see (a progress display): the executor itself never polls.
    static func refreshing<Value: Sendable>(
        every interval: Duration, _ refresh: (@Sendable () -> Void)?, supervisor: any RunSupervisor,
        _ body: @escaping @Sendable () async -> Value
    ) async -> Value {
        guard let refresh else { return await supervisor.supervise(body) }
        return await withTaskGroup(of: Void.self) { group in
            group.addTask {
                while !Task.isCancelled {
                    refresh()
                    try? await Task.sleep(for: interval)
                }
            }
            let value = await supervisor.supervise(body)
            group.cancelAll()
            await group.waitForAll()
            refresh()
            return value
        }
    }
}

extension Value {
    /// A value from what Yams or JSONSerialization produce.
    init(any: Any) {
        switch any {
        case let value as Bool: self = .bool(value)
        case let value as Int: self = .int(value)
        case let value as Double: self = .double(value)
        case let value as String: self = .string(value)
        case let value as [Any]: self = .list(value.map(Value.init(any:)))
        case let value as [String: Any]:
            self = .object(value.keys.sorted().map { .init($0, Value(any: value[$0] as Any)) })
        default: self = .null
        }
    }
}
