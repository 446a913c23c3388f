import Foundation
import ReqPlanTestSupport
import Testing

@testable import ReqPlanSyntax

/// A plan parsed with a `PlanReadCache` reads again only the top-level steps that changed, and what it reads
/// is what parsing the plan whole reads: the same AST and the same diagnostics, whatever the edit.
@Suite struct PlanReadCacheTests {
    static let plans = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("plans")

    /// A plan of `count` steps of several shapes (requests, groups, for_each, expressions between them).
    static func longPlan(steps count: Int) -> String {
        var text = "reqplan: 1\nname: long\ninputs: { token: { default: t } }\ndefaults:\n  base_url: http://h\n"
        text += "steps:\n"
        for index in 0..<count {
            switch index % 4 {
            case 0:
                text += "  s\(index):\n    request: { method: POST, url: /items, json: { name: n\(index) } }\n"
            case 1:
                text += "  s\(index):\n    needs: [s\(index - 1)]\n"
                text += "    request:\n      url: \"/items/${{ steps.s\(index - 1).body.id }}\"\n"
                text += "      headers: { Authorization: \"Bearer ${{ inputs.token }}\" }\n"
            case 2:
                text += "  # a comment between steps\n  g\(index):\n    group:\n"
                text += "      m\(index): { request: { url: /a } }\n      n\(index): { request: { url: /b } }\n"
            default:
                text += "  s\(index):\n    for_each: [1, 2]\n    as: n\n    request: { url: \"/x/${{ n }}\" }\n\n"
            }
        }
        text += "outputs:\n  first: \"${{ steps.s1.status }}\"\n"
        return text
    }

    /// The AST and the diagnostics, in a form that compares.
    static func summary(_ result: ParseResult) -> (plan: String, diagnostics: [String]) {
        var plan = ""
        // Every field but the source text (whose line index holds string indices of either text) and the text
        // around the steps (there only when the plan was read step by step).
        for child in result.plan.map({ Mirror(reflecting: $0).children }) ?? Mirror(reflecting: 0).children
        where child.label != "source" && child.label != "textAroundSteps" {
            // A set's order is its storage's, not the plan's.
            if let set = child.value as? Set<String> {
                dump(set.sorted(), to: &plan, name: child.label)
            } else {
                dump(child.value, to: &plan, name: child.label)
            }
        }
        return (plan, result.diagnostics.map { "\($0)" }.sorted())
    }

    /// What an edit inserts: the pieces of plans that break them most.
    static let pieces = [
        "x", "y", "${{", "}}", "\t", "é", ":", ": ", "- ", "\n", "  ", "[", "]", "{", "}", "steps.", "\"", "'", "&a ",
        "*a", "<<: ", "#", "", "needs: [s0]", "  s0: { request: { url: /dup } }\n", "request", "url: /z",
    ]

    /// Applies `edits` random edits to `text` (each to the text the last left, or with `accumulating` false
    /// each to `text` itself, as typing and taking back), parsing after each with the cache and without;
    /// returns the first round where they differ, if any, and how many steps the cache kept and read. Runs on
    /// a thread of its own, off the tests' shared pool.
    /// How many top-level steps of `result` the cache kept from `previous` (the same `Step` object: a kept step
    /// is not read again), and how many were read; every step is read when there is no previous parse.
    static func keptAndRead(_ result: ParseResult, after previous: ParseResult?) -> (kept: Int, read: Int) {
        let steps = result.plan?.steps ?? []
        let before = Set((previous?.plan?.steps ?? []).map(ObjectIdentifier.init))
        let kept = steps.count { before.contains(ObjectIdentifier($0)) }
        return (kept, steps.count - kept)
    }

    static func editRandomly(_ original: String, path: String, edits: Int, seed: UInt64, accumulating: Bool = true)
        async throws -> (mismatch: String?, kept: Int, read: Int)
    {
        try await offCooperativePool {
            var random = SeededGenerator(seed: seed)
            let cache = PlanReadCache()
            var text = original
            var counts = (kept: 0, read: 0)
            var previous: ParseResult?
            for round in 0...edits {
                if round > 0 { text = randomEdit(of: accumulating ? text : original, pieces: pieces, using: &random) }
                let source = SourceFile(path: path, text: text)
                let result = PlanParser.parse(source, cache: cache)
                // The rounds the cache served: an edit that breaks the plan's layout has it read whole.
                let these = keptAndRead(result, after: previous)
                if these.kept > 0 { counts = (counts.kept + these.kept, counts.read + these.read) }
                previous = result
                let cached = summary(result)
                let whole = summary(PlanParser.parse(source))
                if cached.plan != whole.plan || cached.diagnostics != whole.diagnostics {
                    return ("round \(round) of \(path), seed \(seed):\n\(text)", 0, 0)
                }
            }
            return (nil, counts.kept, counts.read)
        }
    }

    @Test(arguments: [1, 2, 3, 4])
    func randomEditsOfALongPlanReadWhatTheWholePlanReads(seed: UInt64) async throws {
        let counts = try await Self.editRandomly(
            Self.longPlan(steps: 80), path: "long.yaml", edits: 50, seed: seed, accumulating: seed % 2 == 0)
        #expect(counts.mismatch == nil)
        if seed % 2 == 1 {
            // Most edits land in one step: the others are kept.
            #expect(counts.kept > 5 * counts.read, "kept \(counts.kept), read \(counts.read)")
        }
    }

    @Test func randomEditsOfTheExamplePlansReadWhatTheWholePlanReads() async throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.plans.path).filter {
            $0.hasSuffix(".yaml")
        }
        .sorted()
        #expect(files.count > 5)
        for (index, file) in files.enumerated() {
            let text = try String(contentsOfFile: Self.plans.appendingPathComponent(file).path, encoding: .utf8)
            let mismatch = try await Self.editRandomly(text, path: file, edits: 30, seed: UInt64(index)).mismatch
            #expect(mismatch == nil)
        }
    }

    @Test func aKeystrokeInOneStepReadsThatStepAlone() throws {
        let text = Self.longPlan(steps: 400)
        let cache = PlanReadCache()
        let first = PlanParser.parse(SourceFile(path: "long.yaml", text: text), cache: cache)
        let before = Self.keptAndRead(first, after: nil)
        #expect(before.read == 400 && before.kept == 0)
        let edited = text.replacingOccurrences(of: "name: n200 }", with: "name: n200x }")
        #expect(edited != text)
        let result = PlanParser.parse(SourceFile(path: "long.yaml", text: edited), cache: cache)
        let after = Self.keptAndRead(result, after: first)
        #expect(after.read == 1 && after.kept == 399)
        #expect(
            Self.summary(result).plan
                == Self.summary(PlanParser.parse(SourceFile(path: "long.yaml", text: edited))).plan)
    }

    /// Edits whose effect crosses steps: what the plan says before its steps, and ids declared in one step
    /// that another's read depends on. Each is parsed with the cache after the one before it.
    @Test func editsThatChangeWhatOtherStepsReadAreSeen() throws {
        let original = Self.longPlan(steps: 40)
        let edits: [(String, String)] = [
            // No base URL: every relative URL of every step is now a mistake.
            ("defaults:\n  base_url: http://h\n", "defaults:\n  timeout: 5s\n"),
            // A group member with the id of a step in another block, before and after it.
            ("      m2: { request: { url: /a } }", "      s0: { request: { url: /a } }"),
            ("      m30: { request: { url: /a } }", "      s37: { request: { url: /a } }"),
            // An invalid member id, and a `needs` naming it from another step.
            ("      n6: { request: { url: /b } }", "      9bad: { request: { url: /b } }"),
            ("    needs: [s12]", "    needs: [s12, 9bad]"),
            // The base URL back.
            ("defaults:\n  timeout: 5s\n", "defaults:\n  base_url: http://h\n"),
        ]
        let cache = PlanReadCache()
        var text = original
        var previous = PlanParser.parse(SourceFile(path: "long.yaml", text: text), cache: cache)
        var kept = 0
        for (old, new) in edits {
            #expect(text.contains(old), "\(old)")
            text = text.replacingOccurrences(of: old, with: new)
            let source = SourceFile(path: "long.yaml", text: text)
            let result = PlanParser.parse(source, cache: cache)
            kept += Self.keptAndRead(result, after: previous).kept
            previous = result
            let cached = Self.summary(result)
            let whole = Self.summary(PlanParser.parse(source))
            #expect(cached.diagnostics == whole.diagnostics, "after \(new)")
            #expect(cached.plan == whole.plan, "after \(new)")
        }
        #expect(kept > 100)
    }

    @Test func aPlanOfAnotherLayoutIsReadWhole() {
        for text in [
            "reqplan: 1\nsteps: { a: { request: { url: http://h/ } } }\n",
            "reqplan: 1\nsteps:\n  \"a\": { request: { url: http://h/ } }\n",
            "reqplan: 1\nsteps:\n  a: { request: { url: http://h/ } }\r\n",
            "reqplan: 1\nsteps:\n  a: { request: { url: http://h/ } }\n---\nreqplan: 1\n",
            "reqplan: 1\nsteps:\n  a: { request: { url: http://h/ } }\n  a: { request: { url: http://h/ } }\n",
        ] {
            #expect(StepBlocks.cut(SourceFile(path: "p.yaml", text: text)) == nil, "\(text)")
        }
        let blocks = StepBlocks.cut(
            SourceFile(path: "p.yaml", text: "reqplan: 1\nsteps:\n  a:\n    request: { url: /x }\n\n  b: {}\nname: n\n")
        )
        #expect(blocks?.blocks.map(\.id) == ["a", "b"])
        #expect(blocks?.blocks.map(\.firstLine) == [3, 6])
        #expect(blocks?.outline == "reqplan: 1\nsteps:\n\n\n\n\nname: n\n")
        let last = StepBlocks.cut(SourceFile(path: "p.yaml", text: "reqplan: 1\nsteps:\n  a: {}\n  b: {}\n"))
        #expect(last?.outline == "reqplan: 1\nsteps:\n\n\n")
    }
}
