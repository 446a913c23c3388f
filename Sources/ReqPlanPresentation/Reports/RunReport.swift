import Foundation
import ReqPlanPlanner
import ReqPlanRuntime
import ReqPlanSyntax

/// A finished run, arranged for the machine-readable reports of `reqplan run --report`:
/// JSON (`jsonText()`), JUnit XML (`junitXML()`), Chrome trace events (`traceJSON()`) and HAR (`HARLog`).
///
/// Every step becomes a `ReportStep` with a stable id, nested as in the plan: members inside
/// their group or sequence, items inside their for_each, members of a for_each's group body
/// inside their item. No secret reaches a report: the run's result shows `***` where a secret went into a
/// value and its free text has been through the textual net (`Redactor`), and secret inputs are `***`;
/// redaction happens to values, before any encoding, so no secret value can break a report's structure.
public struct RunReport: Sendable {
    /// How the run ended.
    public let result: RunResult
    /// The plan that ran.
    public let graph: PlanGraph
    /// The run's inputs; secret ones are written as `***`.
    public let inputs: RunInputs
    /// The top-level steps, in document order, with their members and items nested.
    public let steps: [ReportStep]
    /// Every exchange the run made, for the HAR report (`TrafficRecorder`); empty when none was recorded.
    public var exchanges: [RecordedExchange] = []

    /// Arranges `result`, the run of `graph` with `inputs`, for reports.
    /// - Parameter exchanges: the exchanges `TrafficRecorder` recorded, for the HAR report.
    public init(result: RunResult, graph: PlanGraph, inputs: RunInputs, exchanges: [RecordedExchange] = []) {
        self.result = result
        self.graph = graph
        self.inputs = inputs
        self.exchanges = exchanges
        // What the plan's own text adds (an expectation as written, a request's detail) goes through the net
        // too: a secret written literally in the plan is in no report.
        let net = Redactor(secrets: inputs.secrets + result.secrets)
        self.steps = ReportTreeBuilder(graph: graph, result: result).roots().map { $0.netted(by: net) }
    }

    /// The textual net of this run's reports: its secret inputs and the secrets it learnt.
    var net: Redactor { Redactor(secrets: inputs.secrets + result.secrets) }

    /// The plan's graph as reports draw it, its details through the net.
    var graphPicture: GraphPicture { GraphPicture(graph).netted(by: net) }

    /// The report of `kind` as text.
    public func render(_ kind: ReportKind) -> String {
        switch kind {
        case .json: jsonText()
        case .junit: junitXML()
        case .trace: traceJSON()
        case .har: HARLog(pages: [harPage]).jsonText()
        case .html: htmlText()
        }
    }

    /// Renders the report a destination asks for and writes it there whole or not at all
    /// (`OutputFile`), creating missing folders.
    /// - Throws: an `OutputFile.WriteError` naming the reason when the file cannot be written.
    public func write(to destination: ReportDestination) throws(OutputFile.WriteError) {
        try OutputFile.write(render(destination.kind), toPath: destination.path)
    }

    /// What the plan is called in reports: its `name`, else its file name without the extension.
    public var planLabel: String {
        Self.label(name: graph.plan.name?.value, file: graph.plan.source.path)
    }

    /// What a plan is called in reports: its `name` when it has one, else its file name without the extension.
    static func label(name: String?, file: String) -> String {
        if let name, !name.isEmpty { return name }
        let stem = URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
        return stem.isEmpty ? "plan" : stem
    }

    /// Every step of the report in document order (pre-order: a step before its members and items).
    public var allSteps: [ReportStep] {
        ReportStep.documentOrder(steps)
    }

    // MARK: Shared formatting

    /// The run's start as ISO 8601 in UTC with milliseconds, e.g. `2025-01-31T09:30:00.250Z`.
    var startedAtText: String {
        Self.timeText(result.startedAt)
    }

    /// A time as ISO 8601 in UTC with milliseconds, e.g. `2025-01-31T09:30:00.250Z`.
    static func timeText(_ date: Date) -> String {
        timeStyle.format(date)
    }

    /// The time `timeText` wrote, read back.
    static func time(from text: String) -> Date? {
        try? timeStyle.parse(text)
    }

    /// ISO 8601 in UTC with milliseconds (a value, made once: a formatter object per report cost a suite of
    /// 200 plans 8 ms).
    private static let timeStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt)

    /// The input values in declaration order; secret ones as `***`, and the others through the textual
    /// net (an input not declared secret may have been sent as a credential, which made it a secret).
    var inputValues: [(name: String, value: Value)] {
        let secretNames = Set(graph.plan.inputs.filter(\.secret).map(\.name.value))
        let net = Redactor(secrets: inputs.secrets + result.secrets)
        return graph.plan.inputs.compactMap { input in
            let name = input.name.value
            guard let value = inputs.values[name] else { return nil }
            return (name, secretNames.contains(name) ? .string(ExpressionEvaluator.secretMarker) : net.redact(value))
        }
    }
}

/// The kinds of report `reqplan run --report KIND:PATH` writes.
public enum ReportKind: String, Sendable, Hashable, CaseIterable {
    /// The whole run as JSON (`reqplan-run/1`).
    case json
    /// JUnit XML for CI test reporters.
    case junit
    /// Chrome trace-event JSON for Perfetto and `chrome://tracing`.
    case trace
    /// HAR 1.2: every exchange the run made, for browsers' and proxies' tools.
    case har
    /// One self-contained HTML page: the run's waterfall, its graph and every step.
    case html
}

/// One `--report KIND:PATH`: which report, and the file to write it to.
public struct ReportDestination: Sendable, Hashable, CustomStringConvertible {
    /// Why a `--report` value is not `KIND:PATH`.
    public struct ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        /// One sentence naming the problem and the expected form.
        public var message: String
        /// The message.
        public var description: String { message }
    }

    /// The report.
    public var kind: ReportKind
    /// The file to write.
    public var path: String

    /// Creates a destination.
    public init(kind: ReportKind, path: String) {
        self.kind = kind
        self.path = path
    }

    /// Parses `KIND:PATH` (`json:run.json`, `junit:reports/junit.xml`, `trace:trace.json`, `har:run.har`); the path
    /// is everything after the first colon.
    /// - Throws: `ParseError` when there is no colon, the kind is unknown or the path is empty.
    public init(parsing text: String) throws(ParseError) {
        let kinds = ReportKind.allCases.map { "`\($0.rawValue):PATH`" }.joined(separator: ", ")
        guard let colon = text.firstIndex(of: ":") else {
            throw ParseError(message: "--report `\(text)` is not of the form KIND:PATH; use one of \(kinds)")
        }
        let name = String(text[..<colon])
        let path = String(text[text.index(after: colon)...])
        guard let kind = ReportKind(rawValue: name.lowercased()) else {
            throw ParseError(message: "--report `\(text)`: unknown report kind `\(name)`; use one of \(kinds)")
        }
        guard !path.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw ParseError(message: "--report `\(text)`: the path after `\(name):` is empty")
        }
        self.init(kind: kind, path: path)
    }

    /// `KIND:PATH`, as given on the command line.
    public var description: String { "\(kind.rawValue):\(path)" }
}

extension Duration {
    /// The duration in whole microseconds (rounded down).
    var microseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000 + attoseconds / 1_000_000_000_000
    }

    /// Milliseconds with microsecond precision, as a JSON number (`12.345`, or `12` when whole).
    var millisecondsValue: Value {
        let micros = microseconds
        if micros % 1000 == 0 { return .int(Int(micros / 1000)) }
        return .double(Double(micros) / 1000)
    }
}
