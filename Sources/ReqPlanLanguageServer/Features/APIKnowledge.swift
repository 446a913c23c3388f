import Foundation
import ReqPlanPlanner
import ReqPlanSyntax

/// What a document's last check learnt of the API descriptions its plan binds (`openapi:`): each entry's
/// description and file, and each request step's operation with the statuses it can succeed with. Kept
/// per document by the server, so completion and hover read it instead of checking the plan again.
public struct APIKnowledge: Sendable {
    /// The descriptions that could be read, by `openapi:` entry name (in outline: every operation's id,
    /// method, path and summary).
    public var apis: [String: APIDescription]
    /// The file each `openapi:` entry names, absolute.
    public var files: [String: String]
    /// Each request step's operation, read in full, by step id.
    public var operations: [String: BoundOperation]
    /// The statuses each bound step can succeed with: its `expect.status`, else `defaults.expect.status`,
    /// else `2xx` (what the validator checks its `steps.X.body…` paths against).
    public var statuses: [String: [StatusPattern]]
    /// Where the plan's files may be read from: its project, or its folder.
    public var boundary: FileBoundary

    /// Nothing known (a plan that binds no description).
    public init() {
        apis = [:]
        files = [:]
        operations = [:]
        statuses = [:]
        boundary = FileBoundary(root: URL(fileURLWithPath: "/"))
    }

    /// What the check `report` of a plan found; its `openapi:` files are resolved from `folder`.
    public init(_ report: ValidationReport, folder: String) {
        apis = report.apis
        operations = report.operations
        files = [:]
        statuses = [:]
        boundary = FileBoundary(planFolder: URL(fileURLWithPath: folder))
        guard let plan = report.plan else { return }
        for binding in plan.apis {
            let url = FileBoundary.resolve(binding.file.value, relativeTo: URL(fileURLWithPath: folder))
            files[binding.name.value] = url.standardizedFileURL.path
        }
        for step in plan.allSteps where operations[step.id.value] != nil {
            statuses[step.id.value] =
                (step.expect ?? plan.defaults.expect)?.status?.map(\.value) ?? [.classOf(2)]
        }
    }

    /// The schema of the JSON body step `id` answers with when it succeeds: its operation's first response
    /// for those statuses that declares one.
    public func responseSchema(of id: String) -> (schema: APISchema, table: APISchemaTable, label: String)? {
        guard let bound = operations[id] else { return nil }
        let responses = bound.operation.responses(matching: statuses[id] ?? [.classOf(2)])
        guard let schema = responses.lazy.compactMap(\.jsonSchema).first else { return nil }
        return (schema, bound.schemas, bound.label)
    }

    /// The operation `API.operationId` names, with its entry name.
    public func operation(named reference: String) -> (api: String, operation: APIOperation)? {
        guard let dot = reference.firstIndex(of: ".") else { return nil }
        let api = String(reference[..<dot])
        let id = String(reference[reference.index(after: dot)...])
        guard let operation = apis[api]?.operation(id: id) else { return nil }
        return (api, operation)
    }
}
