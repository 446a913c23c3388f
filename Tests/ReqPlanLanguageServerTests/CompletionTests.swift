import ReqPlanLanguageServer
import ReqPlanSyntax
import Testing

/// Completion reads where the cursor is from the text around it, so a half-written plan still gets answers.
@Suite struct CompletionTests {
    /// The context at the `|` of `marked` (removed from the text).
    private func context(_ marked: String) -> CompletionContext? {
        let (text, position) = Self.unmark(marked)
        return CompletionContext.at(position, in: text)?.0
    }

    /// The text without its `|`, and the `|`'s position.
    static func unmark(_ marked: String) -> (String, TextPosition) {
        guard let bar = marked.firstIndex(of: "|") else { return (marked, TextPosition(line: 0, character: 0)) }
        var text = marked
        text.remove(at: bar)
        return (text, text.position(of: bar))
    }

    @Test func stepIDsAreNarrowedByWhatIsTypedAndCappedInAnIncompleteList() {
        let steps = (0..<250).map { Completion.StepSummary(id: "s\($0)") }
        let completion = Completion(steps: steps)
        func labels(_ marked: String) -> ([String], Bool) {
            let (text, position) = Self.unmark(marked)
            let list = completion.list(at: position, in: text)
            return (
                list.items.compactMap { if case .string(let label)? = $0["label"] { label } else { nil } },
                list.isIncomplete
            )
        }
        let all = labels("steps:\n  x: { needs: [|] }\n")
        #expect(all.0.count == Completion.maxStepIDs && all.1)
        // What is typed narrows it, letters in order and case aside: `S24` is in s24, s240 to s249, s124, s2_4.
        let typed = labels("steps:\n  x: { needs: [S24|] }\n")
        #expect(!typed.1)
        #expect(
            Set(typed.0) == Set(["s24", "s124", "s204", "s214", "s224", "s234"] + (240..<250).map { "s\($0)" }),
            "\(typed.0)")
    }

    @Test func aKeyOnItsOwnLineIsInTheMappingItsIndentationSays() {
        let plan = """
            reqplan: 1
            steps:
              a:
                request:
                  url: /x
                  me|
                expect: { status: 200 }

            """
        #expect(context(plan) == .key(path: [.key("steps"), .key("a"), .key("request")], present: ["url"]))
    }

    @Test func aKeyOfAListItemIsUnderTheItem() {
        let plan = """
            steps:
              s:
                sequence:
                  - first:
                      request: { url: /x }
                    |
            """
        #expect(
            context(plan) == .key(path: [.key("steps"), .key("s"), .key("sequence"), .item], present: ["first"]))
    }

    @Test(arguments: [
        "steps:\n  a:\n    needs: [b, |\n",
        "steps:\n  a:\n    needs: |\n",
        "steps:\n  a:\n    needs:\n      - b\n      - |\n",
        "steps:\n  a:\n    request: { url: \"/${{ steps.|\" }\n",
        "steps:\n  a:\n    if: ${{ steps.b.state == 'ok' && steps.|",
    ])
    func aStepIDIsCompletedInNeedsAndAfterSteps(marked: String) {
        #expect(context(marked) == .stepID)
    }

    @Test func aResultFieldIsCompletedAfterTheStepID() {
        #expect(context("x: ${{ steps.log-in.| ") == .resultField(step: "log-in"))
        // Not after a name that only ends with `steps`, nor in a closed expression.
        #expect(context("x: ${{ mysteps.a.| }}") == nil)
        #expect(context("x: ${{ steps.a }} steps.a.|") == nil)
    }

    @Test func theWordBeingWrittenIsReplacedFromItsStartInUTF16Units() throws {
        let (text, position) = Self.unmark("a: { description: \"𝄞\", needs: [lo| ] }")
        let found = try #require(CompletionContext.at(position, in: text))
        #expect(found.0 == .stepID)
        #expect(found.wordStart == TextPosition(line: 0, character: position.character - 2))
    }

    @Test func theKeysOfARequestComeFromTheSchemaWithTheirDescriptions() {
        let keys = SchemaOutline.plan.keys(at: [.key("steps"), .key("anything"), .key("request")])
        let names = keys.map(\.name)
        #expect(names.contains("url") && names.contains("method") && names.contains("json"))
        #expect(!names.contains("<<"))
        #expect(keys.first { $0.name == "url" }?.description?.isEmpty == false)
        // A step's own keys: the kinds and the common ones.
        let step = SchemaOutline.plan.keys(at: [.key("steps"), .key("a")]).map(\.name)
        #expect(step.contains("request") && step.contains("needs") && step.contains("group"))
        // The top level.
        let top = SchemaOutline.plan.keys(at: []).map(\.name)
        #expect(top.contains("reqplan") && top.contains("steps") && top.contains("inputs"))
        // A path the schema does not have.
        #expect(SchemaOutline.plan.keys(at: [.key("nope"), .key("x")]).isEmpty)
    }

    @Test func resultFieldsFitTheKindOfStep() throws {
        let source = SourceFile(
            path: "p.yaml",
            text: """
                reqplan: 1
                steps:
                  r: { request: { url: "http://h/r" } }
                  g: { group: { m: { request: { url: "http://h/m" } } } }

                """)
        let plan = try #require(PlanParser.parse(source).plan)
        let completion = Completion(plan: plan)
        func labels(_ marked: String) -> Set<String> {
            let (text, position) = Self.unmark(marked)
            return Set(
                completion.items(at: position, in: text).compactMap { item in
                    if case .string(let label)? = item["label"] { label } else { nil }
                })
        }
        #expect(
            labels("x: ${{ steps.r.|") == [
                "status", "headers", "body", "duration", "state", "error", "attempts", "url", "cookies",
            ])
        #expect(labels("x: ${{ steps.g.|") == ["duration", "state", "error", "results", "errors"])
        #expect(labels("x: ${{ steps.|") == ["r", "g", "m"])
        #expect(labels("x: ${{ steps.nope.|").isEmpty)
    }

    @Test func theStepIDsOfAPlanThatDoesNotReadAreTakenFromItsText() {
        let text = """
            reqplan: 1
            inputs:
              user: {}
            steps:
              login:
                request: { url: [ }
              "fetch":
                needs: [lo
              # a comment
              upload: { request: {
            outputs:
              token: x

            """
        #expect(CompletionContext.stepIDs(in: text) == ["login", "fetch", "upload"])
    }
}
