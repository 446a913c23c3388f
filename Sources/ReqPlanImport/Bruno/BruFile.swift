import ReqPlanSyntax

/// A `.bru` file of a Bruno collection, as blocks: `name {` … `}` of `key: value` lines (`~key` disabled,
/// `@annotations` before a key, `'''` multi-line values), of text (`body:json`, `script:*`, `tests`, `docs`:
/// the lines between, two spaces of indent removed), or `name [` … `]` of names (`vars:secret`).
///
/// It is also what an OpenCollection YAML file says, in the blocks Bruno writes for it (`BruFile+OpenCollection`):
/// both syntaxes of one collection model read by the same `BrunoReader`.
struct BruFile {
    /// One `key: value` line of a dictionary block.
    struct Entry {
        var key: String
        var value: String
        var enabled: Bool
        var line: Int
        /// Where the entry starts on its line (a `.bru` entry is indented two spaces).
        var column = 3
    }

    /// One block.
    struct Block {
        var name: String
        var entries: [Entry] = []
        /// The text of a text block, or the names of a list block one a line.
        var text: String = ""
        var line: Int
        var column = 1

        /// The value of the enabled `key`, if any.
        subscript(key: String) -> String? {
            entries.last { $0.key == key && $0.enabled }?.value
        }
    }

    private(set) var blocks: [Block] = []

    /// A file of `blocks`, as another syntax gives them.
    init(blocks: [Block]) {
        self.blocks = blocks
    }

    /// Text blocks: their lines are kept as written.
    static func isText(_ name: String) -> Bool {
        name.hasPrefix("body:") && !["body:form-urlencoded", "body:multipart-form", "body:file"].contains(name)
            || name.hasPrefix("script:") || name == "tests" || name == "docs"
    }

    /// The blocks of `text`; a line that fits no block is skipped.
    init(_ text: String) {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map {
            $0.hasSuffix("\r") ? String($0.dropLast()) : String($0)
        }
        var index = 0
        while index < lines.count {
            let line = lines[index].trimmingCharacters(in: .whitespaces)
            index += 1
            guard line.hasSuffix("{") || line.hasSuffix("["), !line.hasPrefix("}") else { continue }
            let name = String(line.dropLast()).trimmingCharacters(in: .whitespaces)
            var block = Block(name: name, line: index)
            var body: [String] = []
            while index < lines.count, lines[index] != "}", lines[index] != "]" {
                body.append(lines[index])
                index += 1
            }
            index += 1
            if line.hasSuffix("[") {
                block.text = body.map { $0.trimmingCharacters(in: .whitespaces.union(.init(charactersIn: ","))) }
                    .filter { !$0.isEmpty }.joined(separator: "\n")
            } else if Self.isText(name) {
                block.text = body.map { $0.hasPrefix("  ") ? String($0.dropFirst(2)) : $0 }.joined(separator: "\n")
            } else {
                block.entries = Self.entries(body, firstLine: block.line + 1)
            }
            blocks.append(block)
        }
    }

    /// The entries of a dictionary block's lines: annotations (`@number`, `@description('''…''')`) skipped,
    /// `'''` values joined.
    private static func entries(_ lines: [String], firstLine: Int) -> [Entry] {
        var entries: [Entry] = []
        var index = 0
        var skippingAnnotation = false
        while index < lines.count {
            let line = lines[index].trimmingCharacters(in: .whitespaces)
            index += 1
            if skippingAnnotation {
                if line.hasPrefix("''')") { skippingAnnotation = false }
                continue
            }
            if line.hasPrefix("@") {
                // `@description('''` opens an annotation that ends at its own `''')`.
                skippingAnnotation = line.hasSuffix("('''")
                continue
            }
            guard let colon = line.firstIndex(of: ":"), !line.isEmpty else { continue }
            var key = String(line[..<colon]).trimmingCharacters(in: .whitespaces)
            var value = String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
            let enabled = !key.hasPrefix("~")
            if !enabled { key.removeFirst() }
            if value.hasPrefix("'''") {
                var text: [String] = []
                while index < lines.count, !lines[index].trimmingCharacters(in: .whitespaces).hasPrefix("'''") {
                    text.append(lines[index].hasPrefix("    ") ? String(lines[index].dropFirst(4)) : lines[index])
                    index += 1
                }
                let closing = index < lines.count ? lines[index].trimmingCharacters(in: .whitespaces) : "'''"
                index += 1
                value = text.joined(separator: "\n") + String(closing.dropFirst(3))
            }
            if key.hasPrefix("\""), key.hasSuffix("\""), key.count >= 2 { key = String(key.dropFirst().dropLast()) }
            entries.append(Entry(key: key, value: value, enabled: enabled, line: firstLine + index - 1))
        }
        return entries
    }

    /// The first block named `name`.
    func block(_ name: String) -> Block? {
        blocks.first { $0.name == name }
    }
}
