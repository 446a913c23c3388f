import ReqPlanSyntax

extension APIChecker {
    /// Reads in full the operations the plan binds, of each description read in outline (one call per
    /// description for all its bound operations). A description whose operations cannot be read is
    /// reported at its `openapi:` entry, and the requests bound to it are not checked.
    /// - Parameter only: the steps to read the operations of (default: every bound step).
    mutating func readBoundOperationsInFull(of only: Set<String>? = nil) {
        for binding in plan.apis {
            let name = binding.name.value
            guard let api = apis[name], let details = api.description.details else { continue }
            let steps = bound.filter { $0.value.api == name && only?.contains($0.key) != false }
            guard !steps.isEmpty else { continue }
            var positions: [String: Int] = [:]
            for (index, operation) in api.description.operations.enumerated() where positions[operation.label] == nil {
                positions[operation.label] = index
            }
            let wanted = Set(steps.values.compactMap { positions[$0.operation.label] }).sorted()
            switch details.details(of: wanted) {
            case .success(let read):
                for (step, operation) in steps {
                    guard let position = positions[operation.operation.label], let full = read.operations[position]
                    else { continue }
                    bound[step] = BoundOperation(api: name, operation: full, schemas: read.schemas)
                }
            case .failure(let error):
                diagnostics.emit(error.diagnostic(at: api.binding.file))
                for step in steps.keys { bound[step] = nil }
            }
        }
    }
}
