import Foundation
import ReqPlanSyntax

/// A response's link (OpenAPI's Link Object): an operation a value of the response can feed, and how
/// (`parameters: { petId: $response.body#/id }`). Read with examples (`reqplan import openapi` turns links
/// into data flow).
public struct APILink: Sendable {
    /// What a link gives: an Arazzo-style runtime expression (`$response.body#/id`), or a constant.
    public enum Value: Sendable, Equatable {
        case expression(String)
        case constant(ReqPlanSyntax.Value)
    }

    /// The link's name (its key in `links`).
    public var name: String
    /// The target's `operationId`, when the link names one.
    public var operationID: String?
    /// The target as `operationRef` (`#/paths/~1pets~1{petId}/get`), when the link gives one.
    public var operationReference: String?
    /// Parameter name (optionally `path.`, `query.`, `header.` or `cookie.` before it) → what it is given.
    public var parameters: [(name: String, value: Value)]
    /// What the target's request body is given, when the link says.
    public var requestBody: Value?

    /// Creates a link.
    public init(
        name: String, operationID: String?, operationReference: String?,
        parameters: [(name: String, value: Value)], requestBody: Value? = nil
    ) {
        self.name = name
        self.operationID = operationID
        self.operationReference = operationReference
        self.parameters = parameters
        self.requestBody = requestBody
    }

    /// Whether it targets `operation`: by `operationId`, or by an `operationRef` to its path and method
    /// within the document (`#/paths/~1pets~1{petId}/get`).
    public func targets(_ operation: APIOperation) -> Bool {
        if let operationID { return operationID == operation.id }
        guard let reference = operationReference, let hash = reference.firstIndex(of: "#") else { return false }
        let pointer = reference[reference.index(after: hash)...].split(separator: "/", omittingEmptySubsequences: false)
        guard pointer.count == 4, pointer[0].isEmpty, pointer[1] == "paths" else { return false }
        let path = pointer[2].replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
        let decoded = path.removingPercentEncoding ?? path
        return decoded == operation.path && pointer[3].uppercased() == operation.method
    }
}
