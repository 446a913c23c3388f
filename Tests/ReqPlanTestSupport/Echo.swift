import Foundation
import ReqPlanTransport
import Testing

/// What the demo API's `/echo` saw.
public struct Echo {
    public var method: String
    public var protocolVersion: String
    /// Header names in lower case, in the order received.
    public var headers: [(name: String, value: String)]
    public var body: String

    public init(_ response: TransportResponse) throws {
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any],
            "not an echo: \(String(decoding: response.body, as: UTF8.self))")
        method = object["method"] as? String ?? ""
        protocolVersion = object["protocol"] as? String ?? ""
        headers = (object["headers"] as? [[String: String]] ?? []).map { ($0["name"] ?? "", $0["value"] ?? "") }
        body = (object["body"] as? [String: Any])?["text"] as? String ?? ""
    }

    /// The values of header `name` (lower case).
    public func header(_ name: String) -> [String] {
        headers.filter { $0.name == name }.map(\.value)
    }
}
