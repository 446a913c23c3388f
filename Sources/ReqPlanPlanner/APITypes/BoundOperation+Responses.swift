import Foundation
import ReqPlanSyntax

/// Where a response breaks its operation's description: which declared response it was checked against,
/// and the first wrong value.
public struct APIResponseMismatch: Sendable, Hashable, CustomStringConvertible {
    /// The declared response: `200`, `2XX` or `default`, and its media type.
    public var response: String
    /// The first wrong value.
    public var mismatch: APISchemaMismatch

    public var description: String { "(\(response)) \(mismatch)" }
}

extension APIOperation {
    /// The declared response that describes a response with `status`: its exact code, else its class
    /// (`2XX`), else `default`.
    public func response(for status: Int) -> APIResponse? {
        responses.first { $0.status == .code(status) }
            ?? responses.first { $0.status == .range(status / 100) }
            ?? responses.first { $0.status == nil }
    }
}

extension BoundOperation {
    /// The first place a JSON response breaks the schema its status and content type have in the
    /// description; `nil` when it fits, or when nothing describes it (an undeclared status without
    /// `default`, a content type other than JSON, a media type without a schema).
    /// - Parameters:
    ///   - status: the response's status.
    ///   - contentType: its `Content-Type`.
    ///   - body: its body, parsed.
    public func responseMismatch(status: Int, contentType: String?, body: Value) -> APIResponseMismatch? {
        guard let contentType, APIMediaType.isJSON(contentType), let response = operation.response(for: status)
        else { return nil }
        let essence = contentType.split(separator: ";").first.map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        }
        let media = response.content.first { $0.type.lowercased() == essence } ?? response.content.first { $0.isJSON }
        guard let media, let schema = media.schema else { return nil }
        guard let mismatch = APISchemaValidator(table: schemas).firstMismatch(body, against: schema) else { return nil }
        let name = response.status.map(\.description) ?? "default"
        return APIResponseMismatch(response: "\(name) \(media.type)", mismatch: mismatch)
    }
}
