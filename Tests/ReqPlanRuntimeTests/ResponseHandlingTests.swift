import Foundation
import ReqPlanDemoAPI
import ReqPlanPresentation
import ReqPlanSyntax
import Synchronization
import ReqPlanTestSupport
import Testing

@testable import ReqPlanTransport
@testable import ReqPlanRuntime

/// How responses are read: repeated header fields are one value in every place that shows them,
/// and a body that says it is JSON but is not fails every read into it with that reason.
@Suite(.serialized, .timeSensitive) struct ResponseHandlingTests {
    @Test func repeatedHeadersAreCombinedAndSetCookieIsAList() {
        let headers = ResponseHeaders([
            HeaderField("X-Multi", "a"), HeaderField("Content-Type", "application/json"), HeaderField("x-multi", "b"),
            HeaderField("Set-Cookie", "a=1; Path=/"), HeaderField("Set-Cookie", "b=2"),
        ])
        #expect(headers.fields.map(\.name) == ["x-multi", "content-type", "set-cookie"])
        #expect(headers["X-MULTI"] == .string("a, b"))
        #expect(headers["set-cookie"] == .list([.string("a=1; Path=/"), .string("b=2")]))
        #expect(headers["absent"] == nil)
        #expect(headers.fields.first { $0.name == "set-cookie" }?.lines == ["a=1; Path=/", "b=2"])
        #expect(
            headers.value.jsonText()
                == #"{"x-multi":"a, b","content-type":"application/json","set-cookie":["a=1; Path=/","b=2"]}"#)
    }

    @Test func repeatedHeadersAreOneValueInExpectExpressionsAndVerboseOutput() async throws {
        try await DemoAPI.withServer { base in
            let lines = Mutex<[String]>([])
            let log = VerboseLog(redactHeaders: [], redactor: Redactor(secrets: [])) { text in
                lines.withLock { $0.append(text) }
            }
            let result = try await runAgainstDemo(
                demoPlanHeader + """
                    steps:
                      multi:
                        request: { url: /response-headers, query: { X-Multi: [a, b], X-Single: one } }
                        expect: { headers: { X-Multi: { equals: "a, b" }, x-single: { equals: one } } }
                    outputs:
                      lower: ${{ steps.multi.headers['x-multi'] }}
                      upper: ${{ steps.multi.headers['X-Multi'] }}
                      all: ${{ json(steps.multi.headers) }}
                    """, baseURL: base, observer: log)
            #expect(
                result.results["multi"]?.state == .succeeded, "\(String(describing: result.results["multi"]?.reason))")
            let outputs = Dictionary(uniqueKeysWithValues: result.outputs.map { ($0.name, $0.value) })
            #expect(outputs["lower"] == .string("a, b"))
            #expect(outputs["upper"] == .string("a, b"))
            let all = try #require(outputs["all"]?.interpolated)
            #expect(all.components(separatedBy: "\"x-multi\"").count == 2, "one x-multi key in \(all)")
            let response = lines.withLock { $0.joined() }
            #expect(response.contains("< x-multi: a, b\n"))
            #expect(response.components(separatedBy: "x-multi").count == 2, "\(response)")
        }
    }

    @Test func aJSONResponseWhoseBodyIsNotJSONFailsEveryReadWithTheReason() async throws {
        try await DemoAPI.withServer { base in
            let result = try await runAgainstDemo(
                demoPlanHeader + """
                    steps:
                      broken: { request: { url: /invalid-json } }
                      checked: { request: { url: /invalid-json }, expect: { body: { id: { equals: 1 } } } }
                      whole: { request: { url: /invalid-json }, expect: { body: { $: { type: string } } } }
                    outputs:
                      id: ${{ steps.broken.body.id }}
                      text: ${{ steps.broken.body }}
                    """, baseURL: base)
            let reason = "the response says application/json but its body is not JSON: unterminated string at byte 44"
            let checked = try #require(result.results["checked"]?.reason)
            #expect(checked.kind == .expectation)
            #expect(checked.message.contains("cannot check body `id`: " + reason), "\(checked.message)")
            #expect(result.results["whole"]?.state == .succeeded)
            #expect(result.outputErrors.count == 1)
            #expect(
                result.outputErrors.first?.contains("cannot read `steps.broken.body.id`: " + reason) == true,
                "\(result.outputErrors)")
            let text = result.outputs.first { $0.name == "text" }?.value
            #expect(text == .string(#"{"id": 1, "name": "broken", "tags": ["a", "b"#))
        }
    }

    @Test func jsonMediaTypesAreRecognisedByTheirType() {
        #expect(Executor.jsonMediaType("application/json; charset=utf-8") == "application/json")
        #expect(Executor.jsonMediaType("Application/Problem+JSON") == "application/problem+json")
        #expect(Executor.jsonMediaType("text/html") == nil)
        #expect(Executor.jsonMediaType("application/x-ndjson") == nil)
    }

    @Test func jsonErrorsNameTheCharacter() {
        let error = #expect(throws: JSONParseError.self) { try Value.parseJSON(#"{"a": ,}"#) }
        #expect(error?.description == "unexpected `,` at byte 6")
    }
}
