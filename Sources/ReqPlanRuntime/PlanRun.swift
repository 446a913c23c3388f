import Foundation
import ReqPlanPlanner
import ReqPlanSyntax
import Yams

/// The whole of `reqplan run` as a library call: validate, resolve inputs, execute
/// with an interrupt handler, so the command-line target only parses and prints.
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
        let report = PlanValidator.validate(fileAt: path, limits: limits, allowFilesOutside: allowFilesOutside,
                                            library: library)
        let sources = report.sources
        guard report.errorCount == 0, let graph = report.graph else {
            return .failure(Failure(diagnostics: report.diagnostics.filter { $0.severity == .error }, sources: sources))
        }
        FreedMemory.release()
        var pairs: [(name: String, value: String)] = []
        for text in overrides {
            guard let pair = InputResolver.parseOverride(text) else {
                return .failure(Failure(diagnostics: [Diagnostic(.error, .invalidInput,
                    "--input `\(text)` is not of the form name=value", file: path)], sources: sources))
            }
            if ignoreUndeclared && !graph.plan.inputs.contains(where: { $0.name.value == pair.name }) { continue }
            pairs.append(pair)
        }
        var fileValues: [String: Value] = [:]
        if let inputsFile {
            switch readInputsFile(inputsFile, limit: limits.maxFileSize) {
            case .success(let values): fileValues = values
            case .failure(let diagnostic): return .failure(Failure(diagnostics: [diagnostic], sources: sources))
            }
        }
        switch InputResolver.resolve(plan: graph.plan, overrides: pairs, file: fileValues, environment: environment) {
        case .failure(let errors): return .failure(Failure(diagnostics: errors.diagnostics, sources: sources))
        case .success(var inputs):
            switch InputResolver.resolveSubPlanEnvironment(of: graph, environment: environment) {
            case .failure(let errors): return .failure(Failure(diagnostics: errors.diagnostics, sources: sources))
            case .success(let variables): inputs.environment.merge(variables, uniquingKeysWith: { own, _ in own })
            }
            return .success(Prepared(graph: graph, inputs: inputs))
        }
    }

    /// Reads `--inputs-file`: a JSON or YAML mapping of names to values.
    static func readInputsFile(_ path: String, limit: Int) -> Result<[String: Value], Diagnostic> {
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
                return .failure(Diagnostic(.error, .invalidInput, "the inputs file must be a mapping of names to values",
                                           file: path))
            }
            return .success(mapping.mapValues(Value.init(any:)))
        } catch {
            return .failure(Diagnostic(.error, .invalidInput, "the inputs file is neither JSON nor YAML: \(error)",
                                       file: path))
        }
    }

    /// Runs a prepared plan over the HTTP transport (`HTTPClientTransport`). SIGINT and SIGTERM
    /// cancel the run; the results gathered so far are still returned (with `interrupted` set).
    public static func execute(
        _ prepared: Prepared, configuration: RunConfiguration, transport: HTTPClientTransport.Configuration,
        observer: any ExecutionObserver = NoObserver(), progress: LiveProgress? = nil
    ) async throws -> RunResult {
        try await HTTPClientTransport.with(transport) { client in
            let executor = Executor(graph: prepared.graph, transport: client, inputs: prepared.inputs,
                                    configuration: configuration,
                                    observer: progress.map { ObserverGroup([$0, observer]) } ?? observer)
            guard let progress else {
                return await InterruptSignals.cancellingOnSignal { await executor.run() }
            }
            // The display is redrawn ten times a second while the run goes on. This timer only
            // refreshes what people see; the executor itself never polls.
            return await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    while !Task.isCancelled {
                        progress.redraw()
                        try? await Task.sleep(for: .milliseconds(100))
                    }
                }
                let result = await InterruptSignals.cancellingOnSignal { await executor.run() }
                group.cancelAll()
                await group.waitForAll()
                progress.redraw()
                return result
            }
        }
    }

    /// The `.yaml` files of a folder, sorted.
    public static func examplePlans(in folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".yaml") }.sorted()
            .map { folder + "/" + $0 }
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
