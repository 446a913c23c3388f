import ReqPlanPlanner
import ReqPlanSyntax

/// `--parallel`: a sequential workflow (no step declares `dependsOn`) run by its data flow. A step waits for
/// the steps whose outputs or responses it reads (the planner orders those, as for any plan) and, so that no
/// write is reordered, for every earlier step that it could conflict with: one on an overlapping resource
/// path (`/pet` and `/pet/{petId}/coupons`) where either is not a safe method, and every earlier step when
/// either one's operation is not known (a workflow step, an operation its description does not list).
extension WorkflowTranslator {
    /// A step's operation, as far as ordering needs it.
    struct Resource {
        var method: String
        var segments: [Substring]

        var isSafe: Bool { ["GET", "HEAD", "OPTIONS", "TRACE"].contains(method) }

        /// Whether the two may touch the same resource: each segment equal, or a parameter, over the
        /// shorter path.
        func overlaps(_ other: Resource) -> Bool {
            zip(segments, other.segments).allSatisfy { $0 == $1 || $0.contains("{") || $1.contains("{") }
        }
    }

    /// The earlier steps that step `index` of a sequential workflow waits for under `--parallel`.
    func stepsOrderedBefore(_ index: Int) -> [Located<String>] {
        let step = workflow.steps[index]
        let mine = resource(of: step)
        return workflow.steps[..<index].compactMap { earlier in
            guard let mine, let theirs = resource(of: earlier) else {
                return Located(earlier.id.value, at: step.id.range)
            }
            guard !(mine.isSafe && theirs.isSafe), mine.overlaps(theirs) else { return nil }
            return Located(earlier.id.value, at: step.id.range)
        }
    }

    /// The method and path of the operation a step calls; nil when not known.
    func resource(of step: ArazzoStep) -> Resource? {
        let openAPI = document.sources.filter { !$0.isArazzo }
        switch step.target {
        case .operationID(let written)?:
            // Respect's `SOURCE.opId` names what the specification's `$sourceDescriptions.SOURCE.opId` does.
            let respect = respectOperationID(written.value, among: openAPI).flatMap {
                shorthand -> (source: String?, id: String)? in
                shorthand.literal.isEmpty ? (source: shorthand.source, id: shorthand.id) : nil
            }
            guard let (named, id) = respect ?? Self.sourceAndOperationID(written.value),
                let source = named ?? (openAPI.count == 1 ? openAPI.first?.name.value : nil),
                let operation = descriptions[source]?.operation(id: id)
            else { return nil }
            return Resource(method: operation.method, segments: Self.segments(operation.path))
        case .operationPath(let written)?:
            // `{$sourceDescriptions.NAME.url}#/paths/~1pet~1{petId}/get`
            guard let hash = written.value.firstIndex(of: "#"),
                let tokens = try? RuntimeExpression.pointer(
                    String(written.value[written.value.index(after: hash)...]), offset: 0)
            else { return nil }
            guard tokens.count == 3, tokens[0] == "paths" else { return nil }
            return Resource(method: tokens[2].uppercased(), segments: Self.segments(tokens[1]))
        default:
            return nil
        }
    }

    private static func segments(_ path: String) -> [Substring] {
        path.split(separator: "/", omittingEmptySubsequences: true)
    }
}
