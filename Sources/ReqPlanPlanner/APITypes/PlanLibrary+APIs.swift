import Foundation
import ReqPlanSyntax

/// An API description file read for one boundary.
struct APICacheKey: Hashable {
    var file: String
    var boundary: FileBoundary
}

extension PlanLibrary {
    /// Reads the API descriptions `plan` binds (`openapi:`) and checks the plan against them.
    /// - Parameter subPlanOutputs: the types of the outputs of its `plan` steps, by step id.
    func checkAPIs(_ plan: Plan, _ context: Context, subPlanOutputs: [String: [String: FlowType]]) -> (
        plan: Plan, diagnostics: [Diagnostic], operations: [String: BoundOperation], outputs: [String: FlowType],
        apis: [String: APIDescription]
    ) {
        var diagnostics: [Diagnostic] = []
        var loaded: [String: LoadedAPI] = [:]
        // A description that is not read (said where it is named) leaves its operations unchecked.
        for binding in plan.apis where binding.unread == nil {
            switch description(for: binding, context) {
            case .success(let description):
                let given = commandLineCredentials.applied(
                    to: binding, declared: Set(description.securitySchemes.keys))
                loaded[binding.name.value] = LoadedAPI(binding: given, description: description)
            case .failure(var diagnostic):
                diagnostic.file = context.display
                diagnostics.append(diagnostic)
            }
        }
        let checked =
            apiCheckCache.map { APIChecker.check(plan, apis: loaded, subPlanOutputs: subPlanOutputs, cache: $0) }
            ?? APIChecker.check(plan, apis: loaded, subPlanOutputs: subPlanOutputs)
        return (
            checked.plan, diagnostics + checked.diagnostics, checked.operations, checked.outputs,
            loaded.mapValues(\.description)
        )
    }

    private func description(for binding: APIBinding, _ context: Context) -> Result<APIDescription, Diagnostic> {
        let resolved = FileBoundary.resolve(binding.file.value, relativeTo: context.folder)
        if let problem = problem(
            with: resolved, written: binding.file, what: "API description `\(binding.file.value)`", context)
        {
            return .failure(problem)
        }
        guard let apiLoader else {
            return .failure(
                .error(
                    .apiDescriptionUnreadable, "API description `\(binding.name.value)` cannot be read here",
                    at: binding.file.range,
                    hint: "this program was built without a reader of API descriptions; use the `reqplan` command"))
        }
        let file = resolved.standardizedFileURL.resolvingSymlinksInPath().path
        let key = APICacheKey(file: file, boundary: context.boundary)
        let result: Result<APIDescription, APIDescriptionLoadError>
        if let cached = apiCache.withLock({ $0[key] }) {
            result = cached
        } else {
            result = apiLoader.outline(fileAt: file, boundary: context.boundary)
            apiCache.withLock { $0[key] = result }
        }
        return result.mapError { $0.diagnostic(at: binding.file) }
    }
}

extension APIDescriptionLoadError {
    /// The error reported at the `openapi:` entry that names the description (`file`).
    func diagnostic(at file: Located<String>) -> Diagnostic {
        .error(
            .apiDescriptionUnreadable, "API description `\(file.value)` cannot be loaded: \(message)", at: file.range,
            hint: "reqplan reads OpenAPI 3.0 and 3.1 documents and Swagger 2.0 ones, in YAML or JSON")
    }
}
