import Foundation
import ReqPlanPlanner
import ReqPlanRuntime
import ReqPlanSyntax

// JUnit XML (`--report junit:PATH`).
//
// Shape: one root `<testsuites>` holding a FLAT list of `<testsuite>` elements, one per scope:
// the plan itself (its top-level requests), then every group, sequence and for_each that holds
// requests, named by its path (`checkout-flow/cart/add`) and listed in document order. Nested
// `<testsuite>` elements would mirror the plan more closely, but CI test reporters read them
// unevenly: Jenkins' JUnit plugin and GitLab accept nesting, yet many readers (GitHub Actions
// reporters among them) only look at `testsuites > testsuite > testcase`, and tools that add up
// the counts of every `<testsuite>` they meet count nested tests twice. Flat suites named by
// path are read the same way everywhere, keep every count correct at every level (the root
// sums its suites, a suite counts its own test cases) and validate against the common JUnit
// schemas. The `classname` of a test case is the same path with dots
// (`checkout-flow.cart.add`), which Jenkins shows as package and class.
//
// Test cases: one per request, and one per item of a for_each over a request, named by the
// report id (`login`, `upload[2]`; a request inside a for_each's group body: `pay[0]`).
// A group, sequence or for_each gets a test case of its own only when it failed by itself (its
// `timeout`, an `if:` or `for_each` expression that failed) or when a for_each never produced
// items (skipped or cancelled), so that no outcome is lost. A plan timeout, an interrupt and
// outputs that failed to evaluate are test cases of the plan's suite: `(plan timeout)`,
// `(interrupted)`, `(outputs)` — names no step can have.
//
// Outcomes: `failed` → `<failure message type>` (type: the reason kind — expectation, timeout,
// transport, evaluation, body_too_large, authorization) with the request and every attempt as text; `skipped`
// and `cancelled` → `<skipped message>` (the message starts with the state); an interrupt and
// output errors → `<error>`. Times are seconds with millisecond precision.

extension RunReport {
    /// The run as JUnit XML, for CI test reporters (`--report junit:PATH`).
    public func junitXML() -> String {
        JUnitPlan(self).xml()
    }

    /// Seconds with three decimals, as JUnit times are written.
    static func seconds(_ duration: Duration?) -> String {
        JUnitWriter.seconds(duration)
    }
}

/// What the JUnit report says about one plan's run: its steps and the facts of the run, taken from a
/// `RunReport` or read back from a JSON report (a suite's report, `reqplan report merge`), so both
/// are written by the same code. Texts are taken as they are: the run's result is redacted already.
struct JUnitPlan {
    /// The plan's `name`, else its file name without the extension.
    var label: String
    /// The plan's path.
    var file: String
    /// When the run started.
    var startedAt: Date
    /// The exit code of the run.
    var exitCode: Int
    var interrupted: Bool
    var timedOut: Bool
    /// The plan's `timeout`, as written, when known.
    var timeout: String?
    /// How long the run took.
    var duration: Duration
    /// Inputs (secret ones as `***`) and outputs, in order.
    var inputs: [(name: String, value: Value)]
    var outputs: [(name: String, value: Value)]
    var outputErrors: [String]
    /// The top-level steps, members and items nested.
    var steps: [ReportStep]

    /// The JUnit facts of a run.
    init(_ report: RunReport) {
        self.init(
            label: report.planLabel, file: report.graph.plan.source.path, startedAt: report.result.startedAt,
            exitCode: Int(report.result.exitCode), interrupted: report.result.interrupted,
            timedOut: report.result.timedOut, timeout: report.graph.plan.timeout.map { "\($0.value)" },
            duration: report.result.duration, inputs: report.inputValues,
            outputs: report.result.shownOutputs,
            outputErrors: report.result.outputErrors, steps: report.steps)
    }

    init(
        label: String, file: String, startedAt: Date, exitCode: Int, interrupted: Bool, timedOut: Bool,
        timeout: String?, duration: Duration, inputs: [(name: String, value: Value)],
        outputs: [(name: String, value: Value)], outputErrors: [String], steps: [ReportStep]
    ) {
        self.label = label
        self.file = file
        self.startedAt = startedAt
        self.exitCode = exitCode
        self.interrupted = interrupted
        self.timedOut = timedOut
        self.timeout = timeout
        self.duration = duration
        self.inputs = inputs
        self.outputs = outputs
        self.outputErrors = outputErrors
        self.steps = steps
    }

    /// The document of one plan: a suite per scope, the plan's first, carrying the properties.
    func xml() -> String {
        let suites = self.suites()
        var xml = XMLWriter()
        JUnitWriter.start(&xml, name: label, suites: suites, duration: duration)
        for (index, suite) in suites.enumerated() {
            JUnitWriter.write(suite, timestamp: timestamp, properties: index == 0 ? properties : nil, to: &xml)
        }
        xml.end()
        return xml.text
    }

    /// The run's start, ISO 8601 in UTC to the second (`2025-01-31T09:30:00Z`).
    var timestamp: String {
        Self.timestampStyle.format(startedAt)
    }

    private static let timestampStyle = Date.ISO8601FormatStyle(timeZone: .gmt)

    /// Properties of the plan's suite: the plan, the run, the inputs and the outputs.
    var properties: [(String, String)] {
        var properties: [(String, String)] = [
            ("plan.file", file),
            ("run.started_at", RunReport.timeText(startedAt)),
            ("run.exit_code", String(exitCode)),
            ("run.interrupted", String(interrupted)),
            ("run.timed_out", String(timedOut)),
        ]
        for (name, value) in inputs { properties.append(("input." + name, Self.propertyText(value))) }
        for output in outputs { properties.append(("output." + output.name, Self.propertyText(output.value))) }
        return properties
    }

    private static func propertyText(_ value: Value) -> String {
        if case .string(let text) = value { return text }
        return value.jsonText()
    }

    // MARK: Suites and cases

    /// The suites in document order, the plan's first; suites without test cases are left out.
    func suites() -> [JUnitSuite] {
        var suites = [JUnitSuite(name: label, classname: Self.classname([label]))]
        suites[0].start = .zero
        suites[0].end = duration
        var suiteOfScope: [[String]: Int] = [:]

        /// The suite of the group, sequence, for_each or sub-plan at `path` (the ids as written in each
        /// file, outermost first: `App/login/checks` for group `checks` of sub-plan `login`).
        func suite(for path: [String]) -> Int {
            if let index = suiteOfScope[path] { return index }
            suites.append(
                JUnitSuite(
                    name: ([label] + path).joined(separator: "/"),
                    classname: Self.classname([label] + path)))
            suiteOfScope[path] = suites.count - 1
            return suites.count - 1
        }

        /// `prefix` is the id of the sub-plan step the steps are in, with a `/` (`login/`), or empty.
        func visit(_ step: ReportStep, suite index: Int, path: [String], prefix: Substring) {
            switch step.kind {
            case .request:
                suites[index].cases.append(
                    JUnitCase(
                        name: step.id, duration: Self.duration(of: step.result),
                        outcome: outcome(of: step), operation: step.operation))
            case .group where step.isItem:
                for child in step.children { visit(child, suite: index, path: path, prefix: prefix) }
            case .group, .sequence, .forEach, .plan:
                let scope = path + [String(step.step.dropFirst(prefix.count))]
                let own = suite(for: scope)
                suites[own].include(step.result)
                let stepResult = step.result
                let failedItself = stepResult.state == .failed && stepResult.reason?.kind != .members
                let noItems = step.kind == .forEach && stepResult.children == nil && stepResult.state != .succeeded
                if failedItself || noItems {
                    suites[own].cases.append(
                        JUnitCase(
                            name: step.id, duration: Self.duration(of: stepResult),
                            outcome: outcome(of: step)))
                }
                // A sub-plan's steps have ids `login/token`.
                let inner = step.kind == .plan ? Substring(step.step + "/") : prefix
                for child in step.children { visit(child, suite: own, path: scope, prefix: inner) }
            }
        }
        for step in steps { visit(step, suite: 0, path: [], prefix: "") }

        if timedOut {
            let limit = timeout.map { " after \($0)" } ?? ""
            suites[0].cases.append(
                JUnitCase(
                    name: "(plan timeout)", duration: duration,
                    outcome: .failure(
                        type: StepReason.Kind.timeout.rawValue, message: "the plan timed out\(limit)",
                        details:
                            "the plan's `timeout` ran out: running steps were cancelled and the others did not start")))
        }
        if interrupted {
            suites[0].cases.append(
                JUnitCase(
                    name: "(interrupted)", duration: duration,
                    outcome: .error(
                        type: "interrupted", message: "the run was interrupted (SIGINT or SIGTERM)",
                        details: "running steps were cancelled and the others did not start")))
        }
        if !outputErrors.isEmpty {
            suites[0].cases.append(
                JUnitCase(
                    name: "(outputs)", duration: nil,
                    outcome: .error(
                        type: StepReason.Kind.evaluation.rawValue, message: outputErrors[0],
                        details: outputErrors.joined(separator: "\n"))))
        }
        return suites.enumerated().filter { $0.offset == 0 || !$0.element.cases.isEmpty }.map(\.element)
    }

    private func outcome(of step: ReportStep) -> JUnitCase.Outcome {
        let stepResult = step.result
        let message = stepResult.reason?.message
        switch stepResult.state {
        case .succeeded:
            return .passed
        case .failed where stepResult.handledBy != nil:
            // The workflow's control flow took this failure (an Arazzo `onFailure` action): not a failure of the
            // run, and not hidden either.
            return .skipped(
                message: "failed, handled by \(stepResult.handledBy ?? "an action")" + (message.map { ": " + $0 } ?? "")
            )
        case .failed:
            return .failure(
                type: stepResult.reason?.kind.rawValue ?? "failure", message: message ?? "failed",
                details: failureDetails(step))
        case .skipped, .cancelled:
            return .skipped(message: stepResult.state.rawValue + (message.map { ": " + $0 } ?? ""))
        }
    }

    /// The text of a `<failure>`: the reason, the request, and every attempt.
    private func failureDetails(_ step: ReportStep) -> String {
        let stepResult = step.result
        var lines: [String] = []
        if let reason = stepResult.reason {
            lines.append("\(step.kind.rawValue) `\(step.id)` failed: \(reason.message)")
        }
        if let method = stepResult.method, let url = stepResult.url { lines.append("request: \(method) \(url)") }
        if let operation = step.operation { lines.append("operation: \(operation)") }
        if let place = step.failedExpectation { lines.append("expectation: \(place)") }
        if let excerpt = stepResult.responseExcerpt {
            lines.append("response\(stepResult.status.map { " (\($0))" } ?? "") began: \(excerpt)")
        }
        for attempt in stepResult.attempts {
            var line =
                "attempt \(attempt.number)" + (attempt.visit.map { " (visit \($0))" } ?? "")
                + (attempt.poll.map { " (poll \($0))" } ?? "") + ": "
            line += attempt.status.map { "status \($0)" } ?? "no response"
            line += " in \(Self.milliseconds(attempt.duration)) ms"
            if let error = attempt.error { line += ": " + error }
            if let delay = attempt.retryDelay {
                line += "; \(attempt.poll == nil ? "retried" : "next try") after \(Self.milliseconds(delay)) ms"
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }

    // MARK: Formatting

    private static func duration(of stepResult: StepResult) -> Duration? {
        guard let start = stepResult.start, let end = stepResult.end else { return nil }
        return end - start
    }

    private static func milliseconds(_ duration: Duration) -> String {
        duration.millisecondsValue.jsonText()
    }

    /// A JUnit class name: the path joined with dots (dots inside a part become `_`).
    private static func classname(_ path: [String]) -> String {
        path.map { $0.replacingOccurrences(of: ".", with: "_") }.joined(separator: ".")
    }
}

/// Writes JUnit elements: the root with its counts, and one `<testsuite>` with its cases.
enum JUnitWriter {
    /// Opens `<testsuites>` with the sums of `suites`' counts.
    static func start(_ xml: inout XMLWriter, name: String, suites: [JUnitSuite], duration: Duration?) {
        let total = suites.reduce(into: JUnitCounts()) { $0.add($1.counts) }
        xml.start("testsuites", [("name", name)] + total.attributes + [("time", seconds(duration))])
    }

    /// One `<testsuite>`, with `properties` first when given.
    static func write(
        _ suite: JUnitSuite, timestamp: String, properties: [(String, String)]?, to xml: inout XMLWriter
    ) {
        var attributes = [("name", suite.name)] + suite.counts.attributes
        attributes.append(("time", seconds(suite.duration)))
        attributes.append(("timestamp", timestamp))
        xml.start("testsuite", attributes)
        if let properties {
            xml.start("properties")
            for (name, value) in properties { xml.element("property", [("name", name), ("value", value)]) }
            xml.end()
        }
        for testCase in suite.cases {
            let attributes = [
                ("name", testCase.name), ("classname", testCase.classname ?? suite.classname),
                ("time", seconds(testCase.duration)),
            ]
            if case .passed = testCase.outcome, testCase.operation == nil {
                xml.element("testcase", attributes)
                continue
            }
            xml.start("testcase", attributes)
            switch testCase.outcome {
            case .passed:
                break
            case .failure(let type, let message, let details):
                xml.element("failure", [("message", message), ("type", type)], content: details)
            case .error(let type, let message, let details):
                xml.element("error", [("message", message), ("type", type)], content: details)
            case .skipped(let message):
                xml.element("skipped", [("message", message)])
            }
            if let operation = testCase.operation { xml.element("system-out", [], content: "operation: \(operation)") }
            xml.end()
        }
        xml.end()
    }

    /// Seconds with three decimals (`0.125`); `0.000` when there is no duration.
    static func seconds(_ duration: Duration?) -> String {
        let millis = max(0, (duration?.microseconds ?? 0) + 500) / 1000
        let fraction = String(millis % 1000)
        return "\(millis / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}

/// Test counts of a suite or of the whole report.
struct JUnitCounts {
    var tests = 0
    var failures = 0
    var errors = 0
    var skipped = 0

    mutating func add(_ other: JUnitCounts) {
        tests += other.tests
        failures += other.failures
        errors += other.errors
        skipped += other.skipped
    }

    var attributes: [(String, String)] {
        [
            ("tests", String(tests)), ("failures", String(failures)), ("errors", String(errors)),
            ("skipped", String(skipped)),
        ]
    }
}

/// One `<testcase>`.
struct JUnitCase {
    enum Outcome {
        case passed
        case failure(type: String, message: String, details: String)
        case error(type: String, message: String, details: String)
        case skipped(message: String)
    }

    var name: String
    var duration: Duration?
    var outcome: Outcome
    /// The class name, when it is not its suite's (a suite's report gathers a plan's scopes in one suite).
    var classname: String? = nil
    /// A request's operation (`openapi:`), written as `<system-out>operation: …</system-out>`.
    var operation: String? = nil
}

/// One `<testsuite>`: a scope of the plan and the test cases directly in it.
struct JUnitSuite {
    var name: String
    var classname: String
    var cases: [JUnitCase] = []
    /// The earliest start and latest end of the scope's runs (a step inside a for_each runs once per item).
    var start: Duration?
    var end: Duration?

    var duration: Duration? {
        guard let start, let end else { return nil }
        return end - start
    }

    mutating func include(_ stepResult: StepResult) {
        guard let stepStart = stepResult.start, let stepEnd = stepResult.end else { return }
        start = min(start ?? stepStart, stepStart)
        end = max(end ?? stepEnd, stepEnd)
    }

    var counts: JUnitCounts {
        var counts = JUnitCounts()
        for testCase in cases {
            counts.tests += 1
            switch testCase.outcome {
            case .passed: break
            case .failure: counts.failures += 1
            case .error: counts.errors += 1
            case .skipped: counts.skipped += 1
            }
        }
        return counts
    }
}
