import Foundation
import Testing
import Yams

@testable import ReqPlanSyntax

/// The plan reader composes plans with its own composer over libyaml's events (`YAMLComposer`), not with
/// Yams. It must compose what Yams composes, and refuse what Yams refuses in the same words: checked over
/// every YAML and JSON file of the repository (the plans, the golden corpus of invalid plans, and the
/// third-party API descriptions and Arazzo documents of the fixtures) and over the cases Yams refuses.
@Suite struct YAMLComposerTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Whether `node` (ours) is `yams` (Yams'): the same shapes, texts, scalar styles and marks; `nil` if so,
    /// else the first difference. A collection read through several aliases is compared once (`compared`): an
    /// alias bomb of the corpus shares a few nodes a billion times.
    static func same(_ node: YAMLNode, _ yams: Node, at path: String = "", compared: inout Set<ObjectIdentifier>)
        -> String?
    {
        let mark = yams.mark.map { SourceLocation(line: $0.line, column: $0.column) }
        guard node.mark == mark else { return "\(path): at \(node.mark), Yams at \(String(describing: mark))" }
        switch (node, yams) {
        case (.scalar(let ours), .scalar(let theirs)):
            guard ours.string == theirs.string, ours.style.rawValue == theirs.style.rawValue else {
                let yams = theirs.string.debugDescription
                return "\(path): \(ours.string.debugDescription) (\(ours.style)), Yams \(yams) (\(theirs.style))"
            }
            return nil
        case (.sequence(let ours), .sequence(let theirs)):
            guard compared.insert(ObjectIdentifier(ours)).inserted else { return nil }
            guard ours.count == theirs.count else { return "\(path): \(ours.count) items, Yams \(theirs.count)" }
            for (index, (item, other)) in zip(ours, theirs).enumerated() {
                if let difference = same(item, other, at: "\(path)[\(index)]", compared: &compared) {
                    return difference
                }
            }
            return nil
        case (.mapping(let ours), .mapping(let theirs)):
            guard compared.insert(ObjectIdentifier(ours)).inserted else { return nil }
            guard ours.count == theirs.count else { return "\(path): \(ours.count) entries, Yams \(theirs.count)" }
            for (entry, other) in zip(ours, theirs) {
                let name = "\(path).\(entry.key.string ?? "?")"
                if let difference = same(entry.key, other.key, at: name, compared: &compared)
                    ?? same(entry.value, other.value, at: name, compared: &compared)
                {
                    return difference
                }
            }
            return nil
        default:
            return "\(path): a different kind of node"
        }
    }

    /// Composes `text` both ways: the same tree, or the same diagnostic.
    static func check(_ text: String, path: String = "test.yaml") {
        let source = SourceFile(path: path, text: text)
        let limits = ParseLimits(maxFileSize: 64 << 20)
        switch (YAMLLoader.composePlan(source, limits: limits), YAMLLoader.compose(source, limits: limits)) {
        case (.success(let ours?), .success(let theirs?)):
            var compared: Set<ObjectIdentifier> = []
            if let difference = same(ours, theirs, compared: &compared) { Issue.record("\(path): \(difference)") }
        case (.success(nil), .success(nil)):
            break
        case (.failure(let ours), .failure(let theirs)):
            #expect(ours == theirs, "\(path)")
        case (let ours, let theirs):
            Issue.record("\(path): composed \(ours), Yams \(theirs)")
        }
    }

    @Test func composesEveryFileOfTheRepositoryAsYamsDoes() throws {
        var checked = 0
        for folder in ["plans", "Examples", "Tests/Corpus", "Tests/Fixtures"] {
            let base = Self.root.appendingPathComponent(folder)
            let files = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil)
            while let url = files?.nextObject() as? URL {
                guard ["yaml", "yml", "json"].contains(url.pathExtension),
                    let data = try? Data(contentsOf: url), let text = String(data: data, encoding: .utf8)
                else { continue }
                Self.check(text, path: url.path.replacingOccurrences(of: Self.root.path + "/", with: ""))
                checked += 1
            }
        }
        // The repository's 890-odd: the plans, the corpus, third-party descriptions and workflows.
        #expect(checked > 800)
    }

    @Test(arguments: [
        // Keys given twice: in a block and a flow mapping, nested (the inner mapping is refused first), two
        // keys at once (the first in sorted order is named), quoted and plain alike, and a key with a tag.
        "a: 1\nb: 2\na: 3\n",
        "x: { a: 1, a: 2 }\n",
        "z: 1\nouter:\n  k: 1\n  k: 2\nz: 2\n",
        "b: 1\na: 1\nb: 2\na: 2\n",
        "a: 1\n\"a\": 2\n",
        "!!int 1: a\n1: b\n",
        "'<<': 1\n<<: 2\n",
        // Many keys (looked up rather than compared), the last given twice.
        (0..<40).map { "k\($0): \($0)\n" }.joined() + "k7: again\n",
        // Documents, aliases, anchors, styles.
        "", "# only a comment\n", "---\n", "---\na: 1\n...\n", "a: 1\n---\nb: 2\n", "a: 1\n--- [\n",
        "a: &x { b: 1 }\nc: *x\nd: *y\n", "a: &x 1\nb: &x 2\nc: *x\n", "a: &s [1, 2]\nb: [*s, *s]\n",
        "s: |\n  one\n  two\nf: >-\n  folded\n  text\nq: 'it''s'\nd: \"tab\\there\"\n",
        "é: ü\n\"日本\": 語\nemoji: 👩‍👩‍👧\n", "\u{FEFF}a: 1\n", "a: [1, 2\n", "a: 'open\n", "a:\n\tb: 1\n",
        "a: b: c\n", "a: \u{07}\n", "k: v\n  bad: indent\n", "[1, 2]\n", "just text\n", "? complex\n: key\n",
        String(repeating: "[", count: 1_100),
    ])
    func composesOrRefusesAsYamsDoes(text: String) {
        Self.check(text)
    }

    /// A duplicate key is located where it is given again, as the composer saw it. (Yams gives only where it
    /// is first given, and the diagnostic searches the text for the second: after a tag, it found the key
    /// itself, `1:7` below.)
    @Test(arguments: [
        ("steps:\n  a: { request: { url: \"/\", url: \"/x\" } }\n", "url", (2, 19), (2, 29)),
        ("!!str a: 1\na: 2\n", "a", (1, 1), (2, 1)),
    ])
    func aDuplicateKeyIsFoundWhereItIsGivenAgain(text: String, key: String, first: (Int, Int), again: (Int, Int)) {
        let source = SourceFile(path: "dup.yaml", text: text)
        guard case .failure(let diagnostic) = YAMLLoader.composePlan(source, limits: ParseLimits()) else {
            Issue.record("composed")
            return
        }
        #expect(diagnostic.message == "duplicate key `\(key)` in the same mapping")
        #expect(diagnostic.range?.start == SourceLocation(line: again.0, column: again.1))
        #expect(diagnostic.notes.first?.range?.start == SourceLocation(line: first.0, column: first.1))
    }
}
