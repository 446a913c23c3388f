import Foundation
import ReqPlanImport
import ReqPlanOpenAPI
import ReqPlanPlanner
import ReqPlanSyntax

extension Pipeline {
    // MARK: Import

    /// `reqplan import openapi`: starter plans from the description at `path` (`OpenAPIImport`), read with
    /// its examples, `tags` and `links`, within the description's project as a plan's files are.
    /// - Parameters:
    ///   - path: the description, as the user named it.
    ///   - output: where the plan is written (a file), or the folder of the plans of `--by tag`; `nil` for
    ///     standard output (then the description is named relative to the working folder).
    ///   - options: one plan or one per tag, and which tags.
    /// - Returns: the plans, or why there is none (RP0801 for a description that cannot be read, RP1405).
    public func importOpenAPI(fileAt path: String, writingTo output: String?, options: OpenAPIImportOptions)
        -> Result<[OpenAPIImportedPlan], Diagnostic>
    {
        let description = URL(fileURLWithPath: path).standardizedFileURL
        let boundary = FileBoundary(
            planFile: description.path, allowOutside: reading.allowFilesOutside,
            outsideSetting: "--allow-files-outside")
        switch OpenAPIDocumentLoader(readsSamples: true).load(fileAt: description.path, boundary: boundary) {
        case .failure(let error):
            var diagnostic = Diagnostic.error(.apiDescriptionUnreadable, error.message, at: nil)
            diagnostic.file = path
            return .failure(diagnostic)
        case .success(let read):
            let folder: URL
            switch (output, options.grouping) {
            case (let output?, .tag): folder = URL(fileURLWithPath: output, isDirectory: true).standardizedFileURL
            case (let output?, .operation):
                folder = URL(fileURLWithPath: output).standardizedFileURL.deletingLastPathComponent()
            case (nil, _): folder = URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
            }
            return OpenAPIImport.plans(
                of: read, api: OpenAPIImport.apiName(forFile: path, title: read.title),
                file: Self.relativePath(of: description, from: folder.standardizedFileURL), shownPath: path,
                options: options)
        }
    }
}
