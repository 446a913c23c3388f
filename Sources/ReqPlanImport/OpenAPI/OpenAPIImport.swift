import ReqPlanPlanner
import ReqPlanSyntax

/// How `reqplan import openapi` lays the operations out.
public enum OpenAPIImportGrouping: String, Sendable, CaseIterable {
    /// One plan, a step per operation.
    case operation
    /// A plan per tag (an operation under its first tag; those with none in `untagged`).
    case tag
}

/// What `reqplan import openapi` writes.
public struct OpenAPIImportOptions: Sendable {
    /// One plan, or one per tag.
    public var grouping: OpenAPIImportGrouping
    /// Only the operations with one of these tags; every operation when empty.
    public var tags: [String]

    /// The options.
    public init(grouping: OpenAPIImportGrouping = .operation, tags: [String] = []) {
        self.grouping = grouping
        self.tags = tags
    }
}

/// A plan written from an API description.
public struct OpenAPIImportedPlan: Sendable {
    /// The tag the plan is for (`--by tag`); `nil` for the one plan of `--by operation`.
    public var tag: String?
    /// A file name for it (`pets.yaml`), unique among the plans written, for `--by tag`.
    public var fileName: String
    /// The plan.
    public var text: String
    /// What was not converted, located in the description where it can be.
    public var diagnostics: [Diagnostic]
}

/// `reqplan import openapi`: starter plans from an API description. Each operation becomes a step bound to
/// it (`operation: api.operationId`, a plain request on its path when it has no `operationId`), with the
/// description's example values (`SampleValues`), the values a response gives another operation turned into
/// data flow (`OperationFlow`: its `links`, else matching names), the description's security schemes given
/// credentials from inputs, and a `DELETE` run after the requests on the resource it deletes.
public enum OpenAPIImport {
    /// The plans of `description`.
    /// - Parameters:
    ///   - description: the description, read with its examples (`OpenAPIDocumentLoader(readsSamples: true)`).
    ///   - api: the name the plan binds it as.
    ///   - file: its path as the plan names it (relative to the plan's folder).
    ///   - shownPath: its path as the user named it, for diagnostics.
    ///   - options: one plan or one per tag, and which tags.
    /// - Returns: the plans, or why there is none (RP1405).
    public static func plans(
        of description: APIDescription, api: String, file: String, shownPath: String,
        options: OpenAPIImportOptions = OpenAPIImportOptions()
    ) -> Result<[OpenAPIImportedPlan], Diagnostic> {
        let known = Set(description.operations.flatMap(\.tags))
        if let unknown = options.tags.first(where: { !known.contains($0) }) {
            return .failure(
                nothing(
                    "the description has no tag `\(unknown)`", file: shownPath,
                    hint: known.isEmpty
                        ? "it tags no operation"
                        : "its tags are " + known.sorted().prefix(20).map { "`\($0)`" }.joined(separator: ", ")))
        }
        let chosen = description.operations.filter { operation in
            options.tags.isEmpty || operation.tags.contains { options.tags.contains($0) }
        }
        guard !chosen.isEmpty else {
            return .failure(nothing("the description has no operation", file: shownPath, hint: nil))
        }
        var groups: [(tag: String?, operations: [APIOperation])] = []
        switch options.grouping {
        case .operation:
            groups = [(nil, chosen)]
        case .tag:
            for operation in chosen {
                let tag =
                    options.tags.isEmpty
                    ? operation.tags.first ?? "untagged" : operation.tags.first { options.tags.contains($0) }
                if let index = groups.firstIndex(where: { $0.tag == tag }) {
                    groups[index].operations.append(operation)
                } else {
                    groups.append((tag, [operation]))
                }
            }
        }
        var taken: Set<String> = []
        return .success(
            groups.map { group in
                var builder = OperationFlow(
                    description: description, operations: group.operations, api: api, file: file,
                    shownPath: shownPath)
                let plan = builder.build()
                let base = StepNaming.identifier(group.tag ?? api, fallback: "plan")
                var name = base
                var number = 2
                while taken.contains(name) {
                    name = "\(base)_\(number)"
                    number += 1
                }
                taken.insert(name)
                let origin = "`\(file)`" + (group.tag.map { ", tag `\($0)`" } ?? "")
                var written = plan
                written.origin = origin
                return OpenAPIImportedPlan(
                    tag: group.tag, fileName: name + ".yaml", text: PlanWriter.text(of: written, format: "openapi"),
                    diagnostics: builder.diagnostics.map(Importer.shownSafely))
            })
    }

    /// The name a description is bound as: its file's name without the extension, as a name of the
    /// language (`petstore.yaml` → `petstore`); for a name that says nothing (`openapi.yaml`, `swagger.json`),
    /// the first two words of its title (`Swagger Petstore - OpenAPI 3.0` → `swagger_petstore`).
    public static func apiName(forFile path: String, title: String) -> String {
        let file = path.split(separator: "/").last.map(String.init) ?? path
        let stem = file.split(separator: ".").first.map(String.init) ?? file
        var name = stem
        if genericNames.contains(stem.lowercased()) {
            let words = title.split { !$0.isLetter && !$0.isNumber }.prefix(2)
            if !words.isEmpty { name = words.joined(separator: "_") }
        }
        return StepNaming.identifier(name, fallback: "api").replacingOccurrences(of: "-", with: "_")
    }

    /// File names that do not name the API.
    private static let genericNames: Set<String> = [
        "openapi", "swagger", "api", "spec", "specification", "index", "schema", "main", "definition", "openapi3",
    ]

    private static func nothing(_ message: String, file: String, hint: String?) -> Diagnostic {
        var diagnostic = Diagnostic.error(.importNothing, message, at: nil, hint: hint)
        diagnostic.file = file
        return diagnostic
    }
}
