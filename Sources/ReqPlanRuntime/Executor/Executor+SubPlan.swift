import Foundation
import ReqPlanPlanner
import ReqPlanSyntax
import Synchronization

// Sub-plans and vars at run time.
//
// A `plan` step runs like a group whose members are the sub-plan's top-level steps (the planner nested
// them under it): they are tasks of the step's scope, so they share the run's transport (its cookie jar
// and connections), its concurrency limits and its cancellation. Inside, the sub-plan's own `on_failure`
// and `concurrency` hold, and its own `timeout` bounds it like the step's. When the step starts, the
// sub-plan's inputs are evaluated in the calling plan and checked against their declared types; when its
// steps have ended, its outputs are evaluated in the sub-plan and become `steps.X.outputs`. Secret inputs
// and outputs join the run's secrets, so every output hides them from then on.

/// The values of one run of a plan file (an instance): its inputs, and its vars, each computed once.
final class InstanceState: Sendable {
    /// The inputs, by name.
    let inputs: [String: Value]
    private let vars: [String: VarSlot]

    init(inputs: [String: Value], variables: [Variable]) {
        self.inputs = inputs
        var slots: [String: VarSlot] = [:]
        for variable in variables where slots[variable.name.value] == nil {
            slots[variable.name.value] = VarSlot(variable)
        }
        self.vars = slots
    }

    /// The value of var `name`, computed by `compute` the first time it is asked for; `nil` for an unknown var.
    func variable(_ name: String, compute: (Variable) -> Result<Value, EvaluationError>) -> Result<
        Value, EvaluationError
    >? {
        vars[name]?.value(compute)
    }
}

/// One var of an instance: its value once computed (or why it could not be).
private final class VarSlot: Sendable {
    let variable: Variable
    private let slot = Mutex<Result<Value, EvaluationError>?>(nil)

    init(_ variable: Variable) { self.variable = variable }

    /// The value, computing it under the slot's lock the first time, so it is computed exactly once. A var
    /// may read other vars (their slots are locked in turn); the planner refuses circles between vars, so
    /// locks are always taken in the order of that acyclic graph and cannot deadlock.
    func value(_ compute: (Variable) -> Result<Value, EvaluationError>) -> Result<Value, EvaluationError> {
        slot.withLock { slot in
            if let value = slot { return value }
            let value = compute(variable)
            slot = value
            return value
        }
    }
}

extension Executor {
    /// The value of var `name` of `instance`, seen from `frame`.
    func variableValue(_ name: String, frame: Frame, instance: Int) -> Result<Value, EvaluationError>? {
        frame.state(of: instance)?.variable(name) { variable in
            let context = evaluationContext(frame: frame, instance: instance, succeeded: true, failed: false)
            do throws(EvaluationError) {
                return .success(try ExpressionEvaluator.evaluate(variable.value, in: context))
            } catch {
                return .failure(EvaluationError("var `\(name)`: \(error.message)", at: error.range))
            }
        }
    }

    /// Runs a `plan` step: its inputs, its steps under its own scope and timeout, then its outputs.
    func runSubPlan(_ node: StepNode, _ call: SubPlanCall, frame: Frame, scope: Scope, context: EvaluationContext)
        async -> StepResult
    {
        guard let instance = graph.subPlanInstance(of: node.nodeID) else {
            return StepResult(
                id: node.id, state: .failed,
                reason: StepReason(.evaluation, "sub-plan `\(call.file.value)` was not loaded"))
        }
        let sub = graph.instances[instance].plan
        let values: [String: Value]
        switch subPlanInputs(call, of: sub, in: context) {
        case .failure(let problem): return StepResult(id: node.id, state: .failed, reason: problem.reason)
        case .success(let resolved): values = resolved
        }
        frame.record(InstanceState(inputs: values, variables: sub.vars), for: instance)
        var result = await runComposite(node, scope: scope, subPlan: sub) { inner in
            await self.runMembers(node.children, frame: frame, scope: inner)
        }

        // Outputs are evaluated once the steps have ended, with the results there are (as a plan's are).
        let subContext = evaluationContext(frame: frame, instance: instance, succeeded: true, failed: false)
        var outputs: [Value.Field] = []
        var errors: [String] = []
        for output in sub.outputs {
            do {
                let value = try ExpressionEvaluator.evaluate(output.value, in: subContext)
                if output.isSecret { configuration.secrets.addValue(value) }
                outputs.append(.init(output.name.value, value))
            } catch {
                outputs.append(.init(output.name.value, .null))
                errors.append("output `\(output.name.value)`: \(secretNet.redact(error.message))")
            }
        }
        result.outputs = .object(outputs)
        if !errors.isEmpty && result.state == .succeeded {
            result.state = .failed
            result.reason = StepReason(.evaluation, errors.joined(separator: "; "))
        }
        if result.state == .succeeded, let conditions = node.step.expect?.conditions, !conditions.isEmpty {
            judge(&result, by: conditions, in: context)
        }
        return result
    }

    /// The success criteria of an Arazzo step that runs a workflow, judged once it has run: each reads the
    /// workflow's outputs as `response.outputs` and the status of the last response it received as
    /// `response.status` (null when it received none). A criterion that does not hold fails the step.
    private func judge(_ result: inout StepResult, by conditions: [ResponseCondition], in context: EvaluationContext) {
        var inner = context
        inner.items["response"] = .object([
            .init("status", Self.lastStatus(in: result).map(Value.int) ?? .null),
            .init("outputs", result.outputs ?? .object([])),
        ])
        var problems: [String] = []
        for condition in conditions {
            let found = ExpectationChecker.check(condition, in: inner).map(secretNet.redact)
            result.checks.append(ExpectationCheck(.condition(condition), at: condition.written.range, problems: found))
            problems += found
        }
        if !problems.isEmpty {
            result.state = .failed
            result.reason = StepReason(.expectation, problems.joined(separator: "; "))
        }
    }

    /// The status of the response that came last among `result`'s steps (by when they ended), if any did.
    static func lastStatus(in result: StepResult) -> Int? {
        var latest: (end: Duration, status: Int)?
        var pending = result.children ?? []
        while let child = pending.popLast() {
            pending += child.children ?? []
            if let status = child.status, let end = child.end, latest.map({ end >= $0.end }) ?? true {
                latest = (end, status)
            }
        }
        return latest?.status
    }

    /// The sub-plan's inputs: given by the step (evaluated in the calling plan), else from their environment
    /// variable, else their default; each of its declared type.
    private func subPlanInputs(_ call: SubPlanCall, of sub: Plan, in context: EvaluationContext)
        -> Result<[String: Value], InputProblem>
    {
        let given = Dictionary(call.inputs.map { ($0.name.value, $0.value) }, uniquingKeysWith: { first, _ in first })
        var values: [String: Value] = [:]
        for input in sub.inputs {
            let name = input.name.value
            let type = input.effectiveType
            let required = input.required?.value == true
            var value: Value?
            if let template = given[name] {
                do {
                    value = try ExpressionEvaluator.evaluate(template, in: context)
                } catch {
                    return .failure(
                        InputProblem(
                            .evaluation,
                            "input `\(name)` of `\(call.file.value)`: \(secretNet.redact(error.message))"))
                }
            } else if let variable = input.env?.value, let text = inputs.environment[variable],
                !(required && text.isEmpty)
            {
                guard let converted = InputResolver.convert(text, to: input.knownType) else {
                    return .failure(
                        InputProblem(
                            .evaluation,
                            "environment variable `\(variable)` for input `\(name)` of `\(call.file.value)` "
                                + "is not \(type.withArticle)"
                        ))
                }
                value = converted
            }
            if value == nil, !required { value = input.defaultValue?.value }
            if value == nil, !required, input.env != nil || input.required != nil { value = .null }
            guard let value else {
                let source = input.env.map { " (its environment variable `\($0.value)` is not set)" } ?? ""
                return .failure(
                    InputProblem(.evaluation, "input `\(name)` of `\(call.file.value)` has no value\(source)"))
            }
            if !input.acceptsAnyType, value != .null, value.type != type {
                return .failure(
                    InputProblem(
                        .evaluation,
                        "input `\(name)` of `\(call.file.value)` must be \(type.withArticle), "
                            + "got \(value.type.withArticle)"
                    ))
            }
            if input.secret { configuration.secrets.addValue(value) }
            values[name] = value
        }
        return .success(values)
    }
}

/// Why a sub-plan could not be given its inputs.
struct InputProblem: Error {
    let reason: StepReason

    init(_ kind: StepReason.Kind, _ message: String) {
        reason = StepReason(kind, message)
    }
}
