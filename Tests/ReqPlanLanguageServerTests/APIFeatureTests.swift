import Foundation
import ReqPlanLanguageServer
import ReqPlanOpenAPI
import ReqPlanPlanner
import ReqPlanSyntax
import Testing

/// Completion, hover and definition from the API descriptions a plan binds, against descriptions as their
/// publishers wrote them (`Tests/Fixtures/openapi`: the OpenAPI Initiative's Petstore, Asana's).
@Suite struct APIFeatureTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/openapi")

    static let petstorePlan = """
        reqplan: 1
        openapi:
          petstore: petstore.yaml
        defaults: { base_url: "http://127.0.0.1:1" }
        steps:
          list:
            request: { operation: petstore.listPets }
          show:
            request:
              operation: petstore.showPetById
              path:
                petId: "${{ steps.list.body[0].name }}"
        outputs:
          name: "${{ steps.show.body.name }}"

        """

    /// A folder holding `plan.yaml` (`plan`) beside a copy of the description `description` (a path under
    /// `Tests/Fixtures/openapi`), and what checking it taught about its APIs.
    final class Checked {
        let folder: URL
        let knowledge: APIKnowledge
        let report: ValidationReport

        init(_ plan: String, description: String) throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent(
                "reqplan-lsp-api-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let source = APIFeatureTests.fixtures.appendingPathComponent(description)
            try FileManager.default.copyItem(
                at: source, to: folder.appendingPathComponent(source.lastPathComponent))
            let path = folder.appendingPathComponent("plan.yaml").path
            try plan.write(toFile: path, atomically: true, encoding: .utf8)
            report = PlanValidator.validate(
                fileAt: path, library: PlanLibrary(apiLoader: OpenAPIDocumentLoader()))
            knowledge = APIKnowledge(report, folder: folder.path)
        }

        deinit { try? FileManager.default.removeItem(at: folder) }
    }

    /// `text` with `line` (0-based) replaced by `replacement`, and the position at the end of it.
    static func editing(_ text: String, line: Int, to replacement: String) -> (String, TextPosition) {
        var lines = text.components(separatedBy: "\n")
        lines[line] = replacement
        return (lines.joined(separator: "\n"), TextPosition(line: line, character: replacement.utf16.count))
    }

    static func labels(_ items: [Value]?) -> [String] {
        (items ?? []).compactMap { item in
            if case .string(let label)? = item["label"] { return label }
            return nil
        }
    }

    static func item(_ label: String, in items: [Value]?) -> Value? {
        items?.first { $0["label"] == .string(label) }
    }

    // MARK: Plumbing

    @Test func theCheckKeepsTheBoundAPIsAndEachStepsOperationEvenWithErrors() throws {
        let broken = Self.petstorePlan.replacingOccurrences(
            of: "outputs:", with: "  bad: { needs: [nope], request: { operation: petstore.listPets } }\noutputs:")
        let checked = try Checked(broken, description: "petstore.yaml")
        #expect(checked.report.errorCount > 0)
        #expect(checked.report.graph == nil)
        #expect(checked.knowledge.apis["petstore"]?.title == "Swagger Petstore")
        #expect(checked.knowledge.operations["show"]?.operation.label == "GET /pets/{petId}")
        // Read in full: its responses are there.
        #expect(checked.knowledge.operations["show"]?.operation.responses.isEmpty == false)
        #expect(
            checked.knowledge.files["petstore"]
                == checked.folder.appendingPathComponent("petstore.yaml").standardizedFileURL.path)
    }

    // MARK: Completion

    @Test func operationsAreOfferedAfterTheAPINameWithMethodPathAndSummary() throws {
        let checked = try Checked(Self.petstorePlan, description: "petstore.yaml")
        let (text, position) = Self.editing(Self.petstorePlan, line: 9, to: "      operation: petstore.")
        let items = APICompletion(knowledge: checked.knowledge).items(at: position, in: text)
        #expect(Self.labels(items) == ["listPets", "createPets", "showPetById"])
        // Those whose id holds what is typed, as an editor's fuzzy match would.
        let (typed, after) = Self.editing(Self.petstorePlan, line: 9, to: "      operation: petstore.PBy")
        #expect(Self.labels(APICompletion(knowledge: checked.knowledge).items(at: after, in: typed)) == ["showPetById"])
        let show = try #require(Self.item("showPetById", in: items))
        #expect(show["detail"] == .string("GET /pets/{petId}"))
        #expect(show["documentation"]?["value"] == .string("Info for a specific pet"))
        // The id being written is replaced, not the API name.
        #expect(TextRange(show["textEdit"]?["range"])?.start == TextPosition(line: 9, character: 26))

        // In flow style, and before the dot: the bound names.
        let (flow, end) = Self.editing(Self.petstorePlan, line: 6, to: "    request: { operation: pe")
        let names = APICompletion(knowledge: checked.knowledge).items(at: end, in: flow)
        #expect(Self.labels(names) == ["petstore"])
        #expect(names?.first?["textEdit"]?["newText"] == .string("petstore."))
    }

    @Test func pathParameterNamesAreOfferedUnderTheRequestsPath() throws {
        let checked = try Checked(Self.petstorePlan, description: "petstore.yaml")
        let completion = APICompletion(knowledge: checked.knowledge)
        // Block style, on a new line under `path:` (`petId` is written: nothing left).
        let (block, at) = Self.editing(Self.petstorePlan, line: 11, to: "        pe")
        let items = completion.items(at: at, in: block)
        #expect(Self.labels(items) == ["petId"])
        #expect(Self.item("petId", in: items)?["detail"] == .string("path parameter of GET /pets/{petId}: string"))
        let (written, _) = Self.editing(Self.petstorePlan, line: 11, to: "        petId: x\n        ")
        #expect(Self.labels(completion.items(at: TextPosition(line: 12, character: 8), in: written)) == [])
        // Flow style, the operation on the same line.
        let (flow, end) = Self.editing(
            Self.petstorePlan, line: 6, to: "    request: { operation: petstore.showPetById, path: { ")
        #expect(Self.labels(completion.items(at: end, in: flow)) == ["petId"])
    }

    @Test func queryAndHeaderParameterNamesAreOfferedUnderTheirKeys() throws {
        let checked = try Checked(Self.petstorePlan, description: "petstore.yaml")
        let completion = APICompletion(knowledge: checked.knowledge)
        let (query, end) = Self.editing(
            Self.petstorePlan, line: 6, to: "    request: { operation: petstore.listPets, query: { ")
        let items = completion.items(at: end, in: query)
        #expect(Self.labels(items) == ["limit"])
        #expect(Self.item("limit", in: items)?["detail"] == .string("query parameter of GET /pets: integer"))
        // `listPets` takes no header parameter, and `limit` is not one of its path's.
        let (headers, there) = Self.editing(
            Self.petstorePlan, line: 6, to: "    request: { operation: petstore.listPets, headers: { ")
        #expect(Self.labels(completion.items(at: there, in: headers)) == [])
        let (path, at) = Self.editing(
            Self.petstorePlan, line: 6, to: "    request: { operation: petstore.listPets, path: { ")
        #expect(Self.labels(completion.items(at: at, in: path)) == [])
    }

    @Test func responseFieldsFollowTheSuccessSchemaThroughPropertiesAndItems() throws {
        let checked = try Checked(Self.petstorePlan, description: "petstore.yaml")
        let completion = APICompletion(knowledge: checked.knowledge)
        let (text, position) = Self.editing(Self.petstorePlan, line: 13, to: "  name: \"${{ steps.show.body.")
        let items = completion.items(at: position, in: text)
        #expect(Self.labels(items) == ["id", "name", "tag"])
        #expect(Self.item("id", in: items)?["detail"] == .string("integer"))
        #expect(Self.item("tag", in: items)?["detail"] == .string("string (optional)"))
        // `listPets` answers a list of pets: fields after an element, none on the list itself.
        let (element, end) = Self.editing(Self.petstorePlan, line: 13, to: "  name: \"${{ steps.list.body[0].na")
        #expect(Self.labels(completion.items(at: end, in: element)) == ["id", "name", "tag"])
        let (list, after) = Self.editing(Self.petstorePlan, line: 13, to: "  name: \"${{ steps.list.body.")
        #expect(Self.labels(completion.items(at: after, in: list)) == [])
        // Outside these places API completion gives way to the others.
        let (other, there) = Self.editing(Self.petstorePlan, line: 13, to: "  name: \"${{ steps.")
        #expect(completion.items(at: there, in: other) == nil)
    }

    // MARK: Hover

    @Test func hoverOverAnOperationShowsItsMethodPathAndSummary() throws {
        let checked = try Checked(Self.petstorePlan, description: "petstore.yaml")
        let value = try #require(
            APIHover(knowledge: checked.knowledge).hover(
                at: TextPosition(line: 9, character: 30), in: Self.petstorePlan))
        #expect(
            value["contents"]?["value"]
                == .string("**`petstore.showPetById`**: `GET /pets/{petId}`\n\nInfo for a specific pet"))
        #expect(
            TextRange(value["range"])
                == TextRange(start: .init(line: 9, character: 17), end: .init(line: 9, character: 37)))
    }

    @Test func hoverOverAResponsePathShowsItsTypeAndDescription() throws {
        let plan = try String(
            contentsOf: Self.fixtures.appendingPathComponent("real/asana/plan.yaml"), encoding: .utf8)
        let checked = try Checked(plan, description: "real/asana/asana_oas.yaml")
        let hover = APIHover(knowledge: checked.knowledge)
        // `  status: ${{ steps.task.body.data.approval_status }}`, over `approval_status`.
        let lines = plan.components(separatedBy: "\n")
        let line = try #require(lines.firstIndex { $0.contains("body.data.approval_status") })
        let column = try #require(lines[line].range(of: "approval_status")).lowerBound.utf16Offset(in: lines[line]) + 3
        let value = try #require(hover.hover(at: TextPosition(line: line, character: column), in: plan))
        guard case .string(let markdown)? = value["contents"]?["value"] else {
            Issue.record("\(value)")
            return
        }
        #expect(markdown.hasPrefix("**`steps.task.body.data.approval_status`**: `string"), "\(markdown)")
        #expect(markdown.contains("from the response of `asana.getTask`"))
        // Asana's own words for the field.
        #expect(markdown.contains("approval status"), "\(markdown)")

        // And completion shows the same description.
        let (text, position) = Self.editing(plan, line: line, to: "  status: ${{ steps.task.body.data.appro")
        let item = try #require(
            Self.item("approval_status", in: APICompletion(knowledge: checked.knowledge).items(at: position, in: text)))
        guard case .string(let documentation)? = item["documentation"]?["value"] else {
            Issue.record("\(item)")
            return
        }
        #expect(documentation.contains("approval status"))

        // Asana's 247 operations: the first `maxOperations`, the list marked incomplete, until what is typed
        // narrows it.
        let (all, end) = Self.editing(plan, line: line, to: "    request: { operation: asana.")
        let first = try #require(APICompletion(knowledge: checked.knowledge).list(at: end, in: all))
        #expect(first.items.count == APICompletion.maxOperations && first.isIncomplete)
        let (narrowed, there) = Self.editing(plan, line: line, to: "    request: { operation: asana.getTaskF")
        let some = try #require(APICompletion(knowledge: checked.knowledge).list(at: there, in: narrowed))
        #expect(!some.isIncomplete)
        #expect(Self.labels(some.items).contains("getTasksForProject"))
        #expect(!Self.labels(some.items).contains("getTask"))
    }

    // MARK: Definition

    @Test func definitionOfAnOperationIsItsOperationIdLineInTheDescription() throws {
        let checked = try Checked(Self.petstorePlan, description: "petstore.yaml")
        let found = try #require(
            OperationDefinition(knowledge: checked.knowledge).definition(
                at: TextPosition(line: 9, character: 30), in: Self.petstorePlan))
        #expect(found.uri.filePath == checked.folder.appendingPathComponent("petstore.yaml").standardizedFileURL.path)
        // `      operationId: showPetById` is line 66.
        #expect(found.range == TextRange(start: .init(line: 65, character: 6), end: .init(line: 65, character: 30)))
    }

    /// A plan that reads is asked through its steps, as the parser read them: the same place as from the text,
    /// and nothing off the reference.
    @Test func definitionFromThePlanIsTheOneFromTheText() throws {
        let checked = try Checked(Self.petstorePlan, description: "petstore.yaml")
        let plan = try #require(checked.report.plan)
        let definition = OperationDefinition(knowledge: checked.knowledge)
        let position = TextPosition(line: 9, character: 30)
        let fromPlan = try #require(definition.definition(at: position, in: plan))
        let fromText = try #require(definition.definition(at: position, in: Self.petstorePlan))
        #expect(fromPlan.uri == fromText.uri)
        #expect(fromPlan.range == fromText.range)
        #expect(definition.definition(at: TextPosition(line: 0, character: 1), in: plan) == nil)
    }

    @Test func definitionInADescriptionSplitOverFilesIsInThePathItemsFile() throws {
        // `multi-file/`: `/things/{thingId}.json` is `$ref: "paths/thing%20by%20id.yaml"`; a link in
        // `components/common/links.yaml` names `showThing` too, and is not it.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "reqplan-lsp-api-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.copyItem(at: Self.fixtures.appendingPathComponent("multi-file"), to: folder)
        let plan = """
            reqplan: 1
            openapi:
              things: openapi.yaml
            defaults: { base_url: "http://127.0.0.1:1" }
            steps:
              show: { request: { operation: things.showThing, path: { thingId: "1" } } }

            """
        let path = folder.appendingPathComponent("plan.yaml").path
        try plan.write(toFile: path, atomically: true, encoding: .utf8)
        let report = PlanValidator.validate(fileAt: path, library: PlanLibrary(apiLoader: OpenAPIDocumentLoader()))
        let knowledge = APIKnowledge(report, folder: folder.path)
        let found = try #require(
            OperationDefinition(knowledge: knowledge).definition(at: TextPosition(line: 5, character: 40), in: plan))
        let file = folder.appendingPathComponent("paths/thing by id.yaml").standardizedFileURL.path
        #expect(found.uri.filePath == file)
        // `  operationId: showThing` is line 7.
        #expect(found.range.start == TextPosition(line: 6, character: 2))
    }

    @Test func anOperationIDIsFoundInJSONAtItsUTF16ColumnsAndNotInALongerID() throws {
        let line = "  \"x\": {\"summary\": \"Café 𝄞\", \"operationId\": \"getPet\"}"
        let text = "{\r\n  \"y\": {\"operationId\": \"getPets\"},\r\n" + line + "\r\n}\n"
        let range = try #require(OperationDefinition.operationIDLine("getPet", in: text))
        let start = try #require(line.range(of: "\"operationId")).lowerBound.utf16Offset(in: line)
        #expect(range == TextRange(start: .init(line: 2, character: start), end: .init(line: 2, character: start + 23)))
        #expect(OperationDefinition.operationIDLine("getPe", in: text) == nil)
    }

    @Test func anOperationWithoutItsIdInTheFileIsFoundByPathAndMethod() throws {
        let description = try String(
            contentsOf: Self.fixtures.appendingPathComponent("petstore.yaml"), encoding: .utf8)
        let operation = APIOperation(
            id: nil, method: "GET", path: "/pets/{petId}", parameters: [], requestBody: nil, responses: [])
        let range = try #require(OperationDefinition.pathAndMethod(operation, in: description))
        #expect(range.start == TextPosition(line: 63, character: 4))
    }

    // MARK: Half-written text

    @Test func everyPlaceOfEveryPrefixOfABoundPlanIsAnsweredWithoutTrapping() throws {
        let checked = try Checked(Self.petstorePlan, description: "petstore.yaml")
        let completion = APICompletion(knowledge: checked.knowledge)
        let hover = APIHover(knowledge: checked.knowledge)
        let definition = OperationDefinition(knowledge: checked.knowledge)
        var answered = 0
        // Every prefix of the text (what a user has typed so far), asked at its end and beyond it.
        for length in 0...Self.petstorePlan.utf16.count {
            let prefix = String(Self.petstorePlan.utf16.prefix(length)) ?? ""
            let lines = prefix.components(separatedBy: "\n")
            let end = TextPosition(line: lines.count - 1, character: lines.last?.utf16.count ?? 0)
            for position in [end, TextPosition(line: end.line, character: end.character + 3)] {
                if completion.items(at: position, in: prefix) != nil { answered += 1 }
                _ = hover.hover(at: position, in: prefix)
                _ = definition.definition(at: position, in: prefix)
            }
        }
        // The places above were met on the way.
        #expect(answered > 20)
    }

    // MARK: Through the server

    /// With `trace` on, each check says in `$/logTrace` how many steps' API checks it did again and how many it
    /// kept from the check before: editing one step checks that step again, and keeps the other.
    @Test func theTraceSaysWhatEachCheckKept() async throws {
        let checked = try Checked(Self.petstorePlan, description: "petstore.yaml")
        let uri = DocumentURI(filePath: checked.folder.appendingPathComponent("plan.yaml").path).text
        // As `reqplan lsp` keeps them: the descriptions read once, what was read and found of each step.
        let (descriptions, steps, checks) = (
            CachingAPIDescriptionLoader(OpenAPIDocumentLoader()), PlanReadCache(), APICheckCache()
        )
        let client = TestClient {
            PlanLibrary(apiLoader: descriptions, unsavedText: $0, readCache: steps, apiCheckCache: checks)
        }
        _ = await client.initialize(trace: "verbose")
        client.notify("textDocument/didOpen", .document(uri, version: 1, text: Self.petstorePlan))
        func traces() -> [Value] { client.messages.filter { $0["method"] == .string("$/logTrace") } }
        let first = await client.first { $0["method"] == .string("$/logTrace") }
        let message = first?["params"]?["message"]?.text ?? ""
        #expect(
            message.hasPrefix("checked \(checked.folder.appendingPathComponent("plan.yaml").path) in "), "\(message)")
        #expect(message.hasSuffix(" ms: API checks of 2 steps done again, 0 kept"), "\(message)")
        #expect(first?["params"]?["verbose"] == .string("0 errors, 1 warning"))
        // `show` reads another field of `list`'s body: it is checked again, `list` is kept.
        let edited = Self.petstorePlan.replacingOccurrences(of: "body[0].name", with: "body[0].tag")
        #expect(edited != Self.petstorePlan)
        client.notify("textDocument/didChange", .change(uri, version: 2, text: edited))
        let second = await client.first { $0["method"] == .string("$/logTrace") && $0 != first }
        #expect(
            second?["params"]?["message"]?.text.hasSuffix("API checks of 1 step done again, 1 kept") == true,
            "\(String(describing: second)) \(traces())")
        // Traced no more once the client says `off`.
        client.notify("$/setTrace", .object([.init("value", .string("off"))]))
        client.notify("textDocument/didChange", .change(uri, version: 3, text: Self.petstorePlan))
        // Its diagnostics published (the third time), and the trace, had there been one, with them.
        for _ in 0..<12_000
        where client.messages.count(where: { $0["method"] == .string("textDocument/publishDiagnostics") }) < 3 {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(traces().count == 2, "\(traces())")
    }

    @Test func theServerCompletesOperationsFromTheDocumentsLastCheck() async throws {
        let checked = try Checked(Self.petstorePlan, description: "petstore.yaml")
        let uri = DocumentURI(filePath: checked.folder.appendingPathComponent("plan.yaml").path).text
        let (text, position) = Self.editing(Self.petstorePlan, line: 9, to: "      operation: petstore.")
        let client = TestClient { PlanLibrary(apiLoader: OpenAPIDocumentLoader(), unsavedText: $0) }
        _ = await client.initialize()
        client.notify("textDocument/didOpen", .document(uri, version: 1, text: text))
        // Checked: the half-written operation is unknown.
        _ = try #require(await client.diagnostics(of: uri) { !$0.isEmpty })
        let answer = await client.request(
            1, "textDocument/completion",
            .object([
                .init("textDocument", .object([.init("uri", .string(uri))])), .init("position", position.value),
            ]))
        guard case .list(let items)? = answer?["result"]?["items"] else {
            Issue.record("\(String(describing: answer))")
            return
        }
        #expect(Self.labels(items) == ["listPets", "createPets", "showPetById"])
        let hover = await client.request(
            2, "textDocument/hover",
            .object([
                .init("textDocument", .object([.init("uri", .string(uri))])),
                .init("position", TextPosition(line: 6, character: 35).value),
            ]))
        #expect(
            hover?["result"]?["contents"]?["value"] == .string("**`petstore.listPets`**: `GET /pets`\n\nList all pets"))
        let definition = await client.request(
            3, "textDocument/definition",
            .object([
                .init("textDocument", .object([.init("uri", .string(uri))])),
                .init("position", TextPosition(line: 6, character: 35).value),
            ]))
        let description = checked.folder.appendingPathComponent("petstore.yaml").standardizedFileURL.path
        #expect(definition?["result"]?["uri"] == .string(DocumentURI(filePath: description).text))
        // `      operationId: listPets` is line 13.
        #expect(TextRange(definition?["result"]?["range"])?.start == TextPosition(line: 12, character: 6))
        #expect(await client.end() == 1)
    }
}
