import Foundation
import ReqPlanPipeline
import ReqPlanPlanner
import ReqPlanRuntime
import ReqPlanSyntax

/// A plan file read, checked and planned, ready to run any number of times: the entry point of the
/// `ReqPlan` library.
///
/// Loading runs the same static pipeline as `reqplan validate`, through the same composition root
/// (`Pipeline`): YAML → AST → DAG, sub-plans included, the OpenAPI descriptions a plan binds (`openapi:`)
/// read and checked against, and Arazzo documents read as plans (each workflow one). A plan with errors does
/// not load, and throws `ReqPlanError.invalidPlan` with every diagnostic found, as `reqplan validate` words it.
/// Nothing here touches the process: no signal handlers, no terminal output.
public struct RequestPlan: Sendable {
    /// What validation found.
    let report: ValidationReport
    /// The planned graph.
    let graph: PlanGraph
    /// The folder files named by the plan (`body_file`, multipart `file`) are read from.
    let directory: URL
    /// Whether the plan may read files outside `directory`.
    let allowsFilesOutside: Bool
    /// What read it, and runs it.
    let pipeline: Pipeline

    /// Reads and checks the plan file at `path`, and the files it names.
    /// - Parameters:
    ///   - path: the plan file.
    ///   - limits: size and alias-expansion limits.
    ///   - allowFilesOutside: let the files the plan names be outside its folder.
    /// - Throws: `ReqPlanError.invalidPlan` when the file cannot be read or the plan has errors.
    public init(contentsOf path: String, limits: ParseLimits = ParseLimits(), allowFilesOutside: Bool = false)
        throws(ReqPlanError)
    {
        try self.init(contentsOf: path, reading: PlanReading(limits: limits, allowFilesOutside: allowFilesOutside))
    }

    /// Reads and checks the plan file or Arazzo document at `path`, as `reqplan validate` with the same
    /// options would (`--server`, `--workflow`, `--parallel`: `reading`'s fields).
    /// - Parameters:
    ///   - path: the plan file, or an Arazzo document (its plan runs its workflows, or `reading.workflow`).
    ///   - reading: limits, files outside the plan's folder, and how an Arazzo document is read.
    /// - Throws: `ReqPlanError.invalidPlan` when the file cannot be read or the plan has errors.
    public init(contentsOf path: String, reading: PlanReading) throws(ReqPlanError) {
        let pipeline = Pipeline(reading: reading)
        try self.init(
            pipeline.validate(fileAt: path), directory: URL(fileURLWithPath: path).deletingLastPathComponent(),
            pipeline: pipeline)
    }

    /// Reads and checks the plan file at `url` (a file URL), and the files it names.
    /// - Throws: `ReqPlanError.invalidPlan` when the file cannot be read or the plan has errors.
    public init(contentsOf url: URL, limits: ParseLimits = ParseLimits(), allowFilesOutside: Bool = false)
        throws(ReqPlanError)
    {
        try self.init(contentsOf: url.path, limits: limits, allowFilesOutside: allowFilesOutside)
    }

    /// Checks plan text held in memory.
    /// - Parameters:
    ///   - yaml: the plan.
    ///   - name: how diagnostics name it.
    ///   - directory: where its sub-plans and request files are found (default: the current folder).
    ///   - limits: size and alias-expansion limits.
    /// - Throws: `ReqPlanError.invalidPlan` when the plan has errors.
    public init(
        yaml: String, name: String = "plan.yaml", directory: URL? = nil,
        limits: ParseLimits = ParseLimits()
    ) throws(ReqPlanError) {
        let folder = directory ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        let source = SourceFile(path: folder.appendingPathComponent(name).path, text: yaml)
        let pipeline = Pipeline(reading: PlanReading(limits: limits))
        try self.init(pipeline.validate(source), directory: folder, pipeline: pipeline)
    }

    /// Reads and checks a plan shipped as a resource of `bundle` (a `.yaml` file by default).
    /// - Parameters:
    ///   - resource: the resource's name, without its extension.
    ///   - fileExtension: its extension.
    ///   - bundle: the bundle holding it (in a package target, `Bundle.module`).
    /// - Throws: `ReqPlanError.planNotFound` when the bundle has no such resource, else as
    ///   `init(contentsOf:)`.
    public init(
        resource: String, withExtension fileExtension: String = "yaml", in bundle: Bundle,
        limits: ParseLimits = ParseLimits()
    ) throws(ReqPlanError) {
        guard let url = bundle.url(forResource: resource, withExtension: fileExtension) else {
            throw .planNotFound("no plan `\(resource).\(fileExtension)` in bundle \(bundle.bundlePath)")
        }
        try self.init(contentsOf: url, limits: limits)
    }

    private init(_ report: ValidationReport, directory: URL, pipeline: Pipeline) throws(ReqPlanError) {
        guard report.errorCount == 0, let graph = report.graph else {
            throw .invalidPlan(report.diagnostics.filter { $0.severity == .error }, sources: report.sources)
        }
        self.report = report
        self.graph = graph
        self.directory = directory
        self.allowsFilesOutside = pipeline.reading.allowFilesOutside
        self.pipeline = pipeline
    }

    /// The plan's `name`, if it has one.
    public var name: String? { graph.plan.name?.value }

    /// The names of the inputs the plan declares, in order.
    public var inputNames: [String] { graph.plan.inputs.map(\.name.value) }

    /// The names of the plan's outputs, in order.
    public var outputNames: [String] { graph.plan.outputs.map(\.name.value) }

    /// The warnings validation found (a plan with warnings still runs).
    public var warnings: [Diagnostic] { report.diagnostics.filter { $0.severity == .warning } }

    /// The warnings rendered as `reqplan validate` prints them, without colours.
    public var warningsText: String { DiagnosticRenderer(colors: false, files: report.sources).text(warnings) }
}
