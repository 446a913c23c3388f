import Foundation
import ReqPlanPlanner
import ReqPlanSyntax

extension ArazzoReader {
    /// The document's local OpenAPI source descriptions that can be read, in outline, by name (what cannot
    /// be read is reported when the plan binds it).
    func descriptions(of document: ArazzoDocument, at path: String) -> [String: APIDescription] {
        guard let apiLoader else { return [:] }
        let file = URL(fileURLWithPath: path)
        let boundary = FileBoundary(planFile: file.path, allowOutside: allowFilesOutside)
        var result: [String: APIDescription] = [:]
        for source in document.sources where !source.isArazzo && source.url.value.urlScheme == nil {
            let resolved = FileBoundary.resolve(source.url.value, relativeTo: file.deletingLastPathComponent())
            guard boundary.permits(resolved),
                case .success(let description) = apiLoader.outline(fileAt: resolved.path, boundary: boundary)
            else { continue }
            result[source.name.value] = description
        }
        return result
    }
}
