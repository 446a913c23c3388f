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

/// An Arazzo document a source description of `type: arazzo` names, read: its workflows run as sub-plans of
/// its file.
struct ArazzoSource {
    /// Its path as the source description writes it, relative to the document that names it.
    var path: String
    var document: ArazzoDocument
}

extension ArazzoReader {
    /// The document's Arazzo source descriptions (`type: arazzo`), read, by name; and why the others could
    /// not be, located at their `url`.
    func workflowSources(of document: ArazzoDocument, at path: String, limits: ParseLimits)
        -> (sources: [String: ArazzoSource], problems: [Diagnostic])
    {
        let file = URL(fileURLWithPath: path)
        let boundary = FileBoundary(planFile: file.path, allowOutside: allowFilesOutside)
        var sources: [String: ArazzoSource] = [:]
        var problems: [Diagnostic] = []
        func problem(_ message: String, _ source: SourceDescription, hint: String? = nil) {
            var diagnostic = Diagnostic.error(.unknownSourceDescription, message, at: source.url.range, hint: hint)
            diagnostic.file = document.source.path
            problems.append(diagnostic)
        }
        for source in document.sources where source.isArazzo {
            let written = source.url.value
            guard written.urlScheme == nil else {
                // Said once, where it is named; a step that runs one of its workflows is an error of its own.
                var diagnostic = Diagnostic.warning(
                    .unknownSourceDescription,
                    "source description `\(source.name.value)` is at a remote URL, which reqplan does not fetch: its "
                        + "workflows cannot be run", at: source.url.range,
                    hint: "save the document beside this one and name it by a relative path")
                diagnostic.file = document.source.path
                problems.append(diagnostic)
                continue
            }
            let resolved = FileBoundary.resolve(written, relativeTo: file.deletingLastPathComponent())
            guard boundary.permits(resolved) else {
                problem(
                    "`\(written)` is outside the document's folder", source,
                    hint: "move it inside, or pass --allow-files-outside")
                continue
            }
            let text: String
            switch FileReader.text(
                atPath: resolved.path, origin: .input(boundary), limit: limits.maxFileSize, what: "`\(written)`",
                shownAs: written)
            {
            case .failure(let failure):
                problem(failure.text, source, hint: failure.hint)
                continue
            case .success(let read): text = read
            }
            let other = SourceFile(path: written, text: text)
            guard recognises(other) else {
                problem("`\(written)` is not an Arazzo document: it has no `arazzo` key", source)
                continue
            }
            guard case .success(let root?) = DataDocument.tree(other, what: "Arazzo document", limits: limits) else {
                problem("`\(written)` cannot be read as an Arazzo document", source, hint: "validate it on its own")
                continue
            }
            var parser = ArazzoParser(source: other)
            guard let read = parser.read(root) else {
                problem("`\(written)` cannot be read as an Arazzo document", source, hint: "validate it on its own")
                continue
            }
            sources[source.name.value] = ArazzoSource(path: written, document: read)
        }
        return (sources, problems)
    }
}
