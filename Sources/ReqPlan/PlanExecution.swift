import Foundation
import ReqPlanTransport
import ReqPlanPipeline
import ReqPlanPlanner
import ReqPlanRuntime
import ReqPlanSyntax
import ReqPlanURLSession
import Synchronization

extension RequestPlan {
    /// Prepares a run with inputs by name; `PlanExecution.start()` runs it and `events` tells how it goes.
    /// - Parameters:
    ///   - inputs: values of the plan's inputs (the others take their defaults or environment variables).
    ///   - options: the transport, concurrency and environment of the run.
    /// - Throws: `ReqPlanError.invalidInputs` when an input is undeclared, missing or of the wrong type.
    public func execution(inputs: [String: Value] = [:], options: RunOptions = RunOptions()) throws(ReqPlanError)
        -> PlanExecution
    {
        switch PlanRun.resolveInputs(of: report, overrides: [], file: inputs, environment: options.environment) {
        case .failure(let failure): throw .invalidInputs(failure.diagnostics, sources: failure.sources)
        case .success(let prepared):
            return PlanExecution(prepared: prepared, plan: self, options: options)
        }
    }

    /// Prepares a run with inputs from an `Encodable` value whose properties are the inputs' names.
    /// - Throws: `ReqPlanError.inputsNotEncodable` when `inputs` does not encode as a JSON object,
    ///   `ReqPlanError.invalidInputs` when the inputs do not fit the plan.
    public func execution<Inputs: Encodable>(inputs: Inputs, options: RunOptions = RunOptions())
        throws(ReqPlanError) -> PlanExecution
    {
        try execution(inputs: Self.values(of: inputs), options: options)
    }

    /// Runs the plan to its end with inputs by name, without progress events.
    /// - Returns: how the run ended; a cancelled run still returns what it gathered (`wasCancelled`).
    /// - Throws: `ReqPlanError.invalidInputs` when the inputs do not fit the plan.
    public func run(inputs: [String: Value] = [:], options: RunOptions = RunOptions()) async throws
        -> RunOutcome
    {
        var options = options
        options.eventBufferSize = 0
        return try await execution(inputs: inputs, options: options).start()
    }

    /// Runs the plan to its end with inputs from an `Encodable` value, without progress events.
    public func run<Inputs: Encodable>(inputs: Inputs, options: RunOptions = RunOptions()) async throws
        -> RunOutcome
    {
        try await run(inputs: Self.values(of: inputs), options: options)
    }

    /// The inputs an `Encodable` value gives, through its JSON form.
    static func values<Inputs: Encodable>(of inputs: Inputs) throws(ReqPlanError) -> [String: Value] {
        let text: String
        do {
            text = String(decoding: try JSONEncoder().encode(inputs), as: UTF8.self)
        } catch {
            throw .inputsNotEncodable("the inputs could not be encoded: \(error)")
        }
        guard case .object(let fields)? = try? Value.parseJSON(text) else {
            throw .inputsNotEncodable("the inputs must encode as a JSON object of input names to values")
        }
        return Dictionary(fields.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
    }
}

/// One run of a plan, ready to start: `events` is the run's progress, `start()` runs it in the calling task.
///
/// ```swift
/// let execution = try plan.execution(inputs: ["base_url": .string(base)])
/// async let outcome = execution.start()
/// for await event in execution.events { print(event) }
/// print(try await outcome.output("token", as: String.self))
/// ```
///
/// Cancellation is Swift's: cancelling the task that awaits `start()` cancels the run, which ends with the
/// steps that were running and those not started `cancelled`, and returns what it gathered.
public final class PlanExecution: Sendable {
    /// The run's progress, in the order the executor reports it; it ends when the run ends (or when the
    /// execution is released without having started). A reader that falls behind by more than
    /// `RunOptions.eventBufferSize` events loses the oldest.
    public let events: AsyncStream<ProgressEvent>
    private let continuation: AsyncStream<ProgressEvent>.Continuation
    private let prepared: PlanRun.Prepared
    private let plan: RequestPlan
    private let options: RunOptions
    private let started = Atomic<Bool>(false)

    init(prepared: PlanRun.Prepared, plan: RequestPlan, options: RunOptions) {
        (events, continuation) = AsyncStream.makeStream(
            of: ProgressEvent.self, bufferingPolicy: .bufferingNewest(max(0, options.eventBufferSize)))
        self.prepared = prepared
        self.plan = plan
        self.options = options
    }

    deinit {
        continuation.finish()
    }

    /// Runs the plan to its end, in the calling task, over the options' transport.
    /// - Returns: how the run ended; a cancelled run still returns what it gathered (`wasCancelled`).
    /// - Throws: `ReqPlanError.runAlreadyStarted` on a second call; an error of the transport's setup.
    public func start() async throws -> RunOutcome {
        guard !started.exchange(true, ordering: .relaxed) else { throw ReqPlanError.runAlreadyStarted }
        defer { continuation.finish() }
        let secrets = SecretStore()
        var configuration = RunConfiguration(
            concurrency: options.concurrency,
            files: FileAccess(planDirectory: plan.directory, allowOutside: plan.allowsFilesOutside))
        configuration.secrets = secrets
        let observer = ProgressEventObserver(continuation: continuation)
        let result: RunResult
        switch options.transport.choice {
        case .nio(var settings):
            settings.secrets = secrets
            result = try await plan.pipeline.execute(
                prepared, configuration: configuration, transport: settings, observer: observer)
        case .urlSession(var settings):
            settings.secrets = secrets
            result = try await URLSessionTransport.with(settings) { transport in
                await execute(over: transport, configuration: configuration, observer: observer)
            }
        case .custom(let transport):
            result = await execute(over: transport, configuration: configuration, observer: observer)
        }
        return RunOutcome(result, secretInputs: prepared.inputs.secrets)
    }

    private func execute(
        over transport: any Transport, configuration: RunConfiguration,
        observer: any ExecutionObserver
    ) async -> RunResult {
        await Executor(
            graph: prepared.graph, transport: transport, inputs: prepared.inputs,
            configuration: configuration, observer: observer
        ).run()
    }
}
