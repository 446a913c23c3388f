import Foundation
import ReqPlanArazzo
import ReqPlanPlanner
import ReqPlanSyntax

extension Pipeline {
    /// What `reqplan export arazzo` made of a plan: the plan's check, and when it passed, the export.
    public struct ArazzoExport: Sendable {
        /// The plan's check (its diagnostics, when it has errors).
        public var report: ValidationReport
        /// The document, or what was refused; `nil` when the plan has errors.
        public var result: ArazzoExporter.Result?
    }

    // MARK: Export

    /// The plan at `path`, checked, written as an Arazzo 1.1 document (`ArazzoExporter`): its source
    /// descriptions named relative to the document's folder.
    /// - Parameters:
    ///   - path: the plan.
    ///   - documentPath: where the document will be written; `nil` for standard output (then the
    ///     descriptions are named relative to the plan's folder, as if the document were beside it).
    public func exportArazzo(fileAt path: String, writingTo documentPath: String?) -> ArazzoExport {
        let report = validate(fileAt: path)
        guard report.errorCount == 0, let graph = report.graph else { return ArazzoExport(report: report, result: nil) }
        let planFolder = URL(fileURLWithPath: path).standardizedFileURL.deletingLastPathComponent()
        let documentFolder = URL(fileURLWithPath: documentPath ?? path).standardizedFileURL.deletingLastPathComponent()
        var urls: [String: String] = [:]
        for binding in graph.plan.apis {
            let description = URL(fileURLWithPath: binding.file.value, relativeTo: planFolder).standardizedFileURL
            urls[binding.name.value] = Self.relativePath(of: description, from: documentFolder)
        }
        return ArazzoExport(
            report: report, result: ArazzoExporter.export(graph, operations: report.operations, descriptionURLs: urls))
    }

    /// `file`'s path relative to `folder` (`../specs/api.yaml`).
    static func relativePath(of file: URL, from folder: URL) -> String {
        let target = file.pathComponents
        let base = folder.pathComponents
        var common = 0
        while common < min(target.count - 1, base.count), target[common] == base[common] { common += 1 }
        let parts = Array(repeating: "..", count: base.count - common) + target[common...]
        return parts.joined(separator: "/")
    }
}
