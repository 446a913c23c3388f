import Foundation
import ReqPlanTestSupport
import Testing

/// One rule for every value that becomes part of a header line: a control character is refused with
/// RP0517 and one wording, whether a line break is CR LF, a lone CR or a lone LF, and whether it would go
/// into a header, credentials, or a multipart part's `Content-Type` or file name. Values computed from
/// what httpbin echoes; nothing is sent for a refused request.
@Suite(.timeSensitive) struct HeaderLineTests {
    static let plan = """
        reqplan: 1
        inputs:
          base_url: { default: "http://127.0.0.1:1" }
        defaults:
          base_url: ${{ inputs.base_url }}
        steps:
          source:
            request:
              url: /anything
              query: { crlf: "abc\\r\\nX-Injected: 1", cr: "abc\\rX-Injected: 1", lf: "abc\\nX-Injected: 1", soh: "a\\u0001b" }
          header-crlf:
            request: { url: /headers, headers: { X-Token: "${{ steps.source.body.args.crlf }}" } }
          header-cr:
            request: { url: /headers, headers: { X-Token: "${{ steps.source.body.args.cr }}" } }
          header-lf:
            request: { url: /headers, headers: { X-Token: "${{ steps.source.body.args.lf }}" } }
          bearer-soh:
            request: { url: /headers, auth: { bearer: "${{ steps.source.body.args.soh }}" } }
          part-type:
            request:
              method: POST
              url: /post
              multipart: { data: { value: x, content_type: "${{ steps.source.body.args.crlf }}" } }
          part-filename:
            request:
              method: POST
              url: /post
              multipart: { doc: { file: doc.txt, filename: "${{ steps.source.body.args.lf }}" } }
        """

    @Test(ExternalServers.needed(.httpbin))
    func aControlCharacterInAnyHeaderLineIsRefusedWithOneCodeAndWording() async throws {
        let httpbin = try await Httpbin.shared()
        let file = try CommandRunner.temporaryPlan(Self.plan)
        try "hello".write(
            to: file.deletingLastPathComponent().appendingPathComponent("doc.txt"), atomically: true, encoding: .utf8)
        // Nothing is written literally: validate finds nothing to refuse.
        let validation = try await CommandRunner.run(["validate", "--strict", file.path], within: .seconds(30))
        #expect(validation.status == 0, "\(validation.stdout)\(validation.stderr)")

        let result = try await CommandRunner.run(
            ["run", file.path, "--input", "base_url=\(httpbin.url)", "--verbose", "--progress", "lines"],
            within: .seconds(30))
        #expect(result.status == 1, "\(result.stderr)")
        let expected: [(step: String, what: String, character: String)] = [
            ("header-crlf", "header `X-Token`", "U+000D carriage return"),
            ("header-cr", "header `X-Token`", "U+000D carriage return"),
            ("header-lf", "header `X-Token`", "U+000A line feed"),
            ("bearer-soh", "the `Authorization` header of `auth`", "U+0001"),
            ("part-type", "the `content_type` of multipart part `data`", "U+000D carriage return"),
            ("part-filename", "the file name of multipart part `doc`", "U+000A line feed"),
        ]
        for (step, what, character) in expected {
            let message =
                "error[RP0517]: step `\(step)` failed: \(what) contains a control character (\(character)), "
                + "which cannot be sent in a header line"
            #expect(result.stderr.contains(message), "\(step): \(result.stderr)")
            // Refused before sending: the verbose log shows no request of the step.
            #expect(!result.stderr.contains("> \(step):"), "\(step) was sent")
        }
        // No line of the log is an injected header (the source's echo shows it escaped, inside JSON).
        #expect(
            !result.stderr.split(separator: "\n").contains {
                $0.hasPrefix("X-Injected") || $0.hasPrefix("> X-Injected")
            })
        #expect(result.stderr.components(separatedBy: "RP0517").count - 1 == expected.count, "\(result.stderr)")
    }
}
