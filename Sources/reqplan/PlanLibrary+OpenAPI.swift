import ReqPlanOpenAPI
import ReqPlanPlanner

extension PlanLibrary {
    /// A library for one command, reading the OpenAPI documents plans bind (`openapi:`).
    static func forCommand() -> PlanLibrary {
        PlanLibrary(apiLoader: OpenAPIDocumentLoader())
    }
}
