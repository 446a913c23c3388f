import Foundation
import ReqPlanPlanner
import Testing

/// `APIMediaType.isJSON`, read over bytes for speed, says what the plain reading of a Content-Type says.
@Suite struct APIMediaTypeTests {
    /// The plain reading: the essence (before `;`, trimmed, lower-cased) is `application/json` or ends in
    /// `+json`.
    static func plainReading(_ contentType: String) -> Bool {
        let essence =
            contentType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        return essence == "application/json" || essence.hasSuffix("+json")
    }

    @Test(arguments: [
        "application/json", "Application/JSON; charset=utf-8", "  application/problem+json ", "application/jsonx",
        "text/json", "application/json-patch+json", "application/x-ndjson", "", ";", "+json",
        "APPLICATION/VND.API+JSON",
        "application/json\t;q=1", "xapplication/json", "application/jsoN", "application/+JSON", "application/json;",
        "multipart/form-data", "*/*", "application/vnd.github.v3+json; charset=utf-8", "application/hal+jsoñ",
    ])
    func isJSONReadsAsThePlainReadingDoes(contentType: String) {
        #expect(APIMediaType.isJSON(contentType) == Self.plainReading(contentType), "\(contentType)")
    }
}
