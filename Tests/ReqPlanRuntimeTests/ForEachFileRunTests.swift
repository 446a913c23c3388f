import Foundation
import ReqPlanDemoAPI
import ReqPlanSyntax
import ReqPlanTestSupport
import Testing

@testable import ReqPlanRuntime

/// `for_each: { file: … }` run against the demo API: each row's values reach its request, results in the file's
/// order.
@Suite(.serialized, .timeSensitive) struct ForEachFileRunTests {
    @Test func eachRowOfAThirdPartyCSVReachesItsRequestInTheFilesOrder() async throws {
        // SwiftCSV's quotes.csv (Tests/Fixtures/data/NOTICE): header names with commas, quotes, a line break.
        let csv = try String(
            contentsOf: DemoFixtures.data.appendingPathComponent("swiftcsv/quotes.csv"), encoding: .utf8)
        try await DemoAPI.withServer { base in
            let folder = try PlanFolder(
                [
                    "data/people.csv": csv,
                    "main.yaml": """
                    reqplan: 1
                    defaults: { base_url: "BASE_URL" }
                    steps:
                      people:
                        for_each: { file: data/people.csv }
                        as: person
                        concurrency: 3
                        request:
                          method: POST
                          url: /items
                          json: { ref: "${{ person.id }}", first: "${{ person['name, first'] }}", last: "${{ person['name, last'] }}" }
                        expect: { status: 201 }
                    outputs:
                      sent: ${{ steps.people.results[*].body.first }}
                      refs: ${{ steps.people.results[*].body.ref }}
                    """,
                ], baseURL: base)
            let (_, result) = try await folder.run()
            #expect(result.exitCode == 0, "\(result.results.mapValues(\.reason))")
            let outputs = Dictionary(uniqueKeysWithValues: result.outputs.map { ($0.name, $0.value) })
            #expect(
                outputs["sent"]
                    == .list(
                        [
                            "Alex", "Joe", "Person, with a \"quote\" in their name", "Person, with escaped comma",
                            "Person\\ with a backslash", "Newlines\nare the best",
                        ].map(Value.string)))
            #expect(outputs["refs"] == .list(["4", "5", "9", "10", "10", "12"].map(Value.string)))
        }
    }
}

/// Where the test data files are.
enum DemoFixtures {
    static let data = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/data")
}
