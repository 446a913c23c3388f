import ReqPlanArazzo
import ReqPlanOpenAPI
import ReqPlanPlanner
import ReqPlanSyntax

extension PlanLibrary {
    /// A library for one command, reading the OpenAPI documents plans bind (`openapi:`) and Arazzo
    /// documents as plans (`--server`, `--workflow`, `--parallel`).
    static func forCommand(
        _ reading: PlanReadingOptions? = nil, apiLoader: any APIDescriptionLoader = OpenAPIDocumentLoader(),
        unsavedText: (@Sendable (String) -> String?)? = nil, readCache: PlanReadCache? = nil,
        apiCheckCache: APICheckCache? = nil
    ) throws -> PlanLibrary {
        PlanLibrary(
            apiLoader: apiLoader,
            documentReader: ArazzoReader(
                servers: try reading?.serverURLs() ?? [:], workflow: reading?.workflow,
                parallel: reading?.parallel ?? false, apiLoader: apiLoader,
                allowFilesOutside: reading?.allowFilesOutside ?? false),
            unsavedText: unsavedText, readCache: readCache, apiCheckCache: apiCheckCache)
    }
}
