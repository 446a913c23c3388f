import Foundation
import ReqPlanSyntax

/// An API's operations and their types, as a reader of API descriptions fills them (the `ReqPlanOpenAPI`
/// target reads OpenAPI documents); what the planner checks requests and data flow against.
public struct APIDescription: Sendable {
    /// The document's title, for messages.
    public var title: String
    /// Every operation, in document order.
    public var operations: [APIOperation] {
        didSet {
            indexOperations()
            identity = Identity()
        }
    }
    /// What tells one reading of a description from another: copies share it, and a description read again
    /// (or changed) has a new one (`APICheckCache` keeps a step's checks while its descriptions keep theirs).
    final class Identity: Sendable {}
    private(set) var identity = Identity()
    /// The position of the first operation of each `operationId`, and of each method and path: a plan of a
    /// thousand requests bound to a description of a thousand operations finds each in one step.
    private var positionByID: [String: Int] = [:]
    private var positionByLabel: [String: Int] = [:]
    /// Named schemas that references point to.
    public var schemas: APISchemaTable {
        didSet { identity = Identity() }
    }
    /// The URLs of its `servers`, in document order (variables replaced by their defaults).
    public var servers: [String] {
        didSet { identity = Identity() }
    }
    /// Its security schemes, by name (`components.securitySchemes`; Swagger 2.0's `securityDefinitions`).
    public var securitySchemes: [String: APISecurityScheme] {
        didSet { identity = Identity() }
    }
    /// The document's security requirements (`security`), for operations that do not give their own: any
    /// one is enough; empty when it declares none.
    public var security: [APISecurityRequirement] {
        didSet { identity = Identity() }
    }
    /// For a description read in outline (`APIDescriptionLoader.outline`), what reads its operations in full:
    /// `operations` then hold each one's id, method and path only, and `schemas` nothing. Nil when every
    /// operation is read in full.
    public var details: (any APIOperationDetails)?
    /// The files it was read from (absolute paths): the root document and every file its references named.
    public var files: [String]

    /// Creates a description.
    public init(
        title: String, operations: [APIOperation], schemas: APISchemaTable, servers: [String] = [],
        details: (any APIOperationDetails)? = nil, files: [String] = [],
        securitySchemes: [String: APISecurityScheme] = [:], security: [APISecurityRequirement] = []
    ) {
        self.title = title
        self.operations = operations
        self.schemas = schemas
        self.servers = servers
        self.securitySchemes = securitySchemes
        self.security = security
        self.details = details
        self.files = files
        indexOperations()
    }

    private mutating func indexOperations() {
        positionByID = [:]
        positionByLabel = [:]
        for (position, operation) in operations.enumerated() {
            if let id = operation.id, positionByID[id] == nil { positionByID[id] = position }
            if positionByLabel[operation.label] == nil { positionByLabel[operation.label] = position }
        }
    }

    /// Every file read for it so far: `files`, and those a description read in outline read since, for the
    /// operations asked for in full. A change to any of them changes the description.
    public var filesRead: [String] {
        guard let details else { return files }
        return Array(Set(files).union(details.filesRead)).sorted()
    }

    /// The operation with this method and path template.
    public func operation(method: String, path: String) -> APIOperation? {
        positionByLabel["\(method) \(path)"].map { operations[$0] }
    }

    /// The operation with this `operationId`.
    public func operation(id: String) -> APIOperation? {
        positionByID[id].map { operations[$0] }
    }
}

/// One operation: a method on a path template.
public struct APIOperation: Sendable {
    /// `operationId`, when the document gives one.
    public var id: String?
    /// The method, in capitals.
    public var method: String
    /// The path template, as written in the document: `/pets/{petId}`.
    public var path: String
    /// Its parameters, those of its path item included (the operation's own win).
    public var parameters: [APIParameter]
    /// `requestBody`, when it takes one.
    public var requestBody: APIRequestBody?
    /// `responses`, in document order.
    public var responses: [APIResponse]
    /// `summary`, when the document gives one (for editors: completion and hover show it).
    public var summary: String?
    /// The file that holds it (absolute), when the reader says: a description split over files may hold an
    /// operation in a file of its path item's. `nil`: the document's own file (for editors: go to definition).
    public var file: String?
    /// Its own security requirements (`security`): any one is enough, `[]` asks for none; `nil` when it
    /// gives none and the document's apply (`APIDescription.security(of:)`).
    public var security: [APISecurityRequirement]?
    /// `tags`, in order (read with examples: `APIOperation`'s users that write plans group by them).
    public var tags: [String] = []

    /// Creates an operation.
    public init(
        id: String?, method: String, path: String, parameters: [APIParameter], requestBody: APIRequestBody?,
        responses: [APIResponse], summary: String? = nil, security: [APISecurityRequirement]? = nil
    ) {
        self.id = id
        self.summary = summary
        self.security = security
        self.method = method
        self.path = path
        self.parameters = parameters
        self.requestBody = requestBody
        self.responses = responses
    }

    /// `GET /pets/{petId}` (and the id), for messages.
    public var label: String { "\(method) \(path)" }

    /// The names of the `{…}` parameters of the path template, in order.
    public var pathParameterNames: [String] {
        APIPathTemplate.segments(path).flatMap(\.parameterNames)
    }

    /// The parameters in one place.
    public func parameters(in location: APIParameter.Location) -> [APIParameter] {
        parameters.filter { $0.location == location }
    }

    /// The responses that may answer a request expected to end with one of `statuses`: every declared
    /// status (exact or a `2XX` range) that one of them matches; `default` only when none is declared
    /// for them, as `default` usually describes errors.
    public func responses(matching statuses: [StatusPattern]) -> [APIResponse] {
        let declared = responses.filter { response in
            guard let code = response.status else { return false }
            return statuses.contains { $0.overlaps(code) }
        }
        if !declared.isEmpty { return declared }
        return responses.filter { $0.status == nil }
    }
}

/// A declared response status: a code (`200`) or a class (`2XX`).
public enum APIStatus: Sendable, Hashable, CustomStringConvertible {
    case code(Int)
    case range(Int)

    public var description: String {
        switch self {
        case .code(let code): String(code)
        case .range(let hundreds): "\(hundreds)XX"
        }
    }

    /// Whether a response with status `code` is this one.
    public func contains(_ code: Int) -> Bool {
        switch self {
        case .code(let own): own == code
        case .range(let hundreds): code / 100 == hundreds
        }
    }
}

extension StatusPattern {
    /// Whether some status both match.
    func overlaps(_ status: APIStatus) -> Bool {
        switch status {
        case .code(let code): return matches(code)
        case .range(let hundreds): return (hundreds * 100..<hundreds * 100 + 100).contains { matches($0) }
        }
    }
}

/// One parameter of an operation.
public struct APIParameter: Sendable {
    /// Where it goes.
    public enum Location: String, Sendable, Hashable {
        case path, query, header, cookie
    }
    /// Its name (headers compare ignoring case).
    public var name: String
    /// Where it goes.
    public var location: Location
    /// Whether a request must give it (path parameters always).
    public var required: Bool
    /// Its schema, when declared.
    public var schema: APISchema?
    /// A value the document shows for it (`example`, the first of `examples`), when examples are read.
    public var example: Value?

    /// Creates a parameter.
    public init(name: String, location: Location, required: Bool, schema: APISchema?, example: Value? = nil) {
        self.name = name
        self.location = location
        self.required = required
        self.schema = schema
        self.example = example
    }
}

/// `requestBody` of an operation.
public struct APIRequestBody: Sendable {
    /// Whether a request must send a body.
    public var required: Bool
    /// Media type → schema, in document order.
    public var content: [APIMediaType]

    /// Creates a request body.
    public init(required: Bool, content: [APIMediaType]) {
        self.required = required
        self.content = content
    }
}

/// A media type of a body and its schema.
public struct APIMediaType: Sendable {
    /// `application/json`, `application/*`, `*/*`…
    public var type: String
    /// The schema, when declared.
    public var schema: APISchema?
    /// The description's examples of it (`example`, and each of `examples`): for responses, a field an
    /// example shows is never reported as unknown; for request bodies, read only when examples are.
    public var examples: [Value]

    /// Creates a media type.
    public init(type: String, schema: APISchema?, examples: [Value] = []) {
        self.type = type
        self.schema = schema
        self.examples = examples
    }

    /// Whether this media type is JSON (`application/json`, `…+json`, or a wildcard that covers it).
    public var isJSON: Bool { APIMediaType.isJSON(type) || type == "*/*" || type == "application/*" }

    /// Whether a Content-Type value names JSON.
    public static func isJSON(_ contentType: String) -> Bool {
        // Over the UTF-8 bytes, without building strings: it is asked for each body of each step checked.
        var essence = contentType.utf8.prefix { $0 != UInt8(ascii: ";") }[...]
        let blank: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        while let first = essence.first, blank(first) { essence = essence.dropFirst() }
        while let last = essence.last, blank(last) { essence = essence.dropLast() }
        func endsWith(_ suffix: String) -> Bool {
            guard essence.count >= suffix.utf8.count else { return false }
            // ASCII letters compared without case (`| 0x20` lowers an upper-case letter, and leaves `/` and `+`).
            return zip(essence.suffix(suffix.utf8.count), suffix.utf8).allSatisfy { byte, wanted in
                byte == wanted || (byte | 0x20 == wanted && wanted >= UInt8(ascii: "a") && wanted <= UInt8(ascii: "z"))
            }
        }
        return (essence.count == "application/json".utf8.count && endsWith("application/json")) || endsWith("+json")
    }
}

/// One declared response of an operation.
public struct APIResponse: Sendable {
    /// The status; `nil` for `default`.
    public var status: APIStatus?
    /// Media type → schema.
    public var content: [APIMediaType]
    /// Its `links`, in document order, when examples are read: how a value of this response feeds another
    /// operation.
    public var links: [APILink]

    /// Creates a response.
    public init(status: APIStatus?, content: [APIMediaType], links: [APILink] = []) {
        self.status = status
        self.content = content
        self.links = links
    }

    /// The schema of its JSON content, when it declares one.
    public var jsonSchema: APISchema? {
        content.first { $0.isJSON }?.schema
    }

    /// The examples of its JSON content.
    public var jsonExamples: [Value] {
        content.first { $0.isJSON }?.examples ?? []
    }
}

/// Why an API description could not be read.
public struct APIDescriptionLoadError: Error, Sendable {
    /// The reason, one line.
    public var message: String

    /// Creates an error.
    public init(_ message: String) {
        self.message = message
    }
}

/// Reads API description documents into `APIDescription`s. The planner does not read OpenAPI itself: the
/// command line (and the library's users) pass a loader to `PlanLibrary` (`ReqPlanOpenAPI` has one).
public protocol APIDescriptionLoader: Sendable {
    /// Reads the document at `path` (absolute), and the local files its references name.
    /// - Parameters:
    ///   - path: the document.
    ///   - boundary: where the files its references name may be.
    /// - Returns: the description, or why it cannot be read.
    func load(fileAt path: String, boundary: FileBoundary) -> Result<APIDescription, APIDescriptionLoadError>

    /// Reads the document at `path` in outline where it can: every operation's id, method and path, and
    /// `details` to read in full the few a plan binds, so that checking a plan against a large description
    /// costs what the operations it uses cost. The default reads it whole (`load`).
    func outline(fileAt path: String, boundary: FileBoundary) -> Result<APIDescription, APIDescriptionLoadError>
}

extension APIDescriptionLoader {
    /// Reads the whole document (`load`).
    public func outline(fileAt path: String, boundary: FileBoundary) -> Result<APIDescription, APIDescriptionLoadError>
    {
        load(fileAt: path, boundary: boundary)
    }
}

/// Reads in full the operations of a description read in outline.
public protocol APIOperationDetails: Sendable {
    /// The operations at `indices` of the outline's `operations`, in full, every one of them, and a table
    /// of the schemas they refer to; or why they cannot be read.
    func details(of indices: [Int]) -> Result<APIOperationsInFull, APIDescriptionLoadError>

    /// The files read so far (absolute paths): the outline's, and those read for operations in full.
    var filesRead: [String] { get }
}

extension APIOperationDetails {
    /// None known.
    public var filesRead: [String] { [] }
}

/// Operations of a description read in full (`APIOperationDetails`).
public struct APIOperationsInFull: Sendable {
    /// The operations, by their position in the outline's `operations`.
    public var operations: [Int: APIOperation]
    /// Every schema they refer to, by name.
    public var schemas: APISchemaTable

    /// Creates the result.
    public init(operations: [Int: APIOperation], schemas: APISchemaTable) {
        self.operations = operations
        self.schemas = schemas
    }
}
