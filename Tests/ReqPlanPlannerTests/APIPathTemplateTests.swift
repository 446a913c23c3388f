import Testing

@testable import ReqPlanPlanner

/// Path templates with text beside parameters (RFC 6570 level 1, as OpenAPI allows).
@Suite("Path templates")
struct APIPathTemplateTests {
    @Test(
        "a segment is literal, one parameter, or parameters beside text",
        arguments: [
            ("/a/{id}", [APIPathTemplate.Segment.literal("a"), .parameter("id")]),
            ("/Messages/{Sid}.json", [.literal("Messages"), .mixed([.parameter("Sid"), .text(".json")])]),
            ("/{owner}-{repo}", [.mixed([.parameter("owner"), .text("-"), .parameter("repo")])]),
            ("/files/{name}.{ext}", [.literal("files"), .mixed([.parameter("name"), .text("."), .parameter("ext")])]),
            ("/v{version}/x", [.mixed([.text("v"), .parameter("version")]), .literal("x")]),
            ("/odd/{", [.literal("odd"), .literal("{")]),
        ])
    func segments(path: String, expected: [APIPathTemplate.Segment]) {
        #expect(APIPathTemplate.segments(path) == expected)
    }

    @Test("the names of a path's parameters include those beside text, in order")
    func names() {
        let operation = APIOperation(
            id: nil, method: "GET", path: "/2010-04-01/Accounts/{AccountSid}/Messages/{Sid}.json", parameters: [],
            requestBody: nil, responses: [])
        #expect(operation.pathParameterNames == ["AccountSid", "Sid"])
    }

    @Test("a reserved expansion (`{+parent}`, Google's APIs) names its parameter without the `+`, and keeps `/`")
    func reservedExpansion() {
        let operation = APIOperation(
            id: nil, method: "GET", path: "/v1/{+parent}/items", parameters: [], requestBody: nil, responses: [])
        #expect(operation.pathParameterNames == ["parent"])
        #expect(APIPathTemplate.isReserved("+parent") && !APIPathTemplate.isReserved("parent"))
        #expect("projects/p 1/locations/l1".percentEncodedReserved == "projects/p%201/locations/l1")
        #expect("projects/p1".percentEncodedPathSegment == "projects%2Fp1")
    }

    @Test(
        "a URL segment fits a mixed segment when its text does",
        arguments: [
            ("SM123.json", "{Sid}.json", true), (".json", "{Sid}.json", false), ("SM123.xml", "{Sid}.json", false),
            ("octo-cat-repo", "{owner}-{repo}", true), ("octocat", "{owner}-{repo}", false),
            ("a.b.c", "{name}.{ext}", true), ("abc", "{name}.{ext}", false),
            ("\u{0}.json", "{Sid}.json", true), ("\u{0}.xml", "{Sid}.json", false), ("v\u{0}", "v{n}", true),
        ])
    func fits(url: String, template: String, fits: Bool) {
        guard case .mixed(let pieces) = APIPathTemplate.segment(template) else {
            Issue.record("\(template) is not mixed")
            return
        }
        #expect(APIPathTemplate.matches(url, pieces) == fits)
    }
}
