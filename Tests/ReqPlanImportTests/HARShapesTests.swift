import ReqPlanImport
import ReqPlanSyntax
import Testing

/// What `reqplan import har` takes besides a whole log, as other tools write it, and how it names and reads
/// the requests of a long session.
@Suite struct HARShapesTests {
    private func imported(_ json: String) -> ImportResult {
        Importer.importPlan(.har, from: [SourceFile(path: "t.har", text: json)])
    }

    /// A list of entries, one entry, or one request (a browser's "Copy as HAR" of one request, Insomnia's and
    /// haralyzer's inputs) are read as a log of them; anything else is RP1401, with a hint naming what is read.
    @Test(arguments: [
        #"[{"request": {"method": "GET", "url": "https://a.example/x"}}]"#,
        #"{"request": {"method": "GET", "url": "https://a.example/x"}, "response": {"status": 200}}"#,
        #"{"method": "GET", "url": "https://a.example/x"}"#,
    ])
    func aFragmentOfALogIsReadAsItsEntries(_ json: String) throws {
        let result = imported(json)
        let text = try #require(result.text, "\(result.diagnostics)")
        #expect(text.contains("url: /x"), "\(text)")
    }

    @Test(arguments: [#"{"log": {}}"#, #"[1, 2]"#, #""a string""#, #"{"url": "https://a.example/x"}"#])
    func somethingElseIsNotAHAR(_ json: String) throws {
        let result = imported(json)
        #expect(result.text == nil)
        let error = try #require(result.diagnostics.first { $0.severity == .error })
        #expect(error.message.contains("is not a HAR log"), "\(error.message)")
        #expect(error.hint?.contains("one request") == true)
    }

    /// `params` without `text` (HAR 1.2 allows either): a form, or multipart when a part is a file, whose path
    /// is an input (the importer reads no file, the run checks where it may read).
    @Test func paramsWithoutTextAreAFormOrMultipart() throws {
        let form = try #require(
            imported(
                #"{"method": "POST", "url": "https://a.example/f", "postData": {"mimeType": "application/x-www-form-urlencoded", "params": [{"name": "a", "value": "1 2"}]}}"#
            ).text)
        #expect(form.contains("form:\n        a: \"1 2\""), "\(form)")
        let multipart = try #require(
            imported(
                #"{"method": "POST", "url": "https://a.example/f", "postData": {"params": [{"name": "up", "fileName": "/etc/passwd"}, {"name": "n", "value": "v"}]}}"#
            ).text)
        #expect(multipart.contains("file: \"${{ inputs.file }}\""), "\(multipart)")
        #expect(multipart.contains("default: \"/etc/passwd\"") && multipart.contains("filename: passwd"))
    }

    /// A session of 3,000 requests to one path gets `get_items`, `get_items_2` … `get_items_3000` in order
    /// (each numbered in one step: it was quadratic), and an empty log is "no request", with no hint of static
    /// assets when none was left out.
    @Test func manyRequestsToOnePathAreNumberedInOrder() throws {
        let entries = (0..<3000).map { _ in #"{"request": {"method": "GET", "url": "https://a.example/items"}}"# }
        let text = try #require(imported("[" + entries.joined(separator: ",") + "]").text)
        #expect(text.contains("  get_items:\n") && text.contains("  get_items_2:\n"))
        #expect(text.contains("  get_items_3000:\n") && !text.contains("get_items_3001"))
        let empty = imported(#"{"log": {"entries": []}}"#)
        let error = try #require(empty.diagnostics.first)
        #expect(error.message == "no request to import" && error.hint == nil)
    }
}
