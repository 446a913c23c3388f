import ReqPlanPlanner
import ReqPlanSyntax

/// What `reqplan fix` prints: the change to each file as a unified diff (`diff -u`, `git diff`, read by
/// `patch -p1` and `git apply`), and a line per file on what was fixed and what is left.
public enum FixOutput {
    /// The unified diff from `result.original` to `result.fixed`, headed `--- a/PATH` and `+++ b/PATH`, with
    /// three lines of context; empty when nothing changed.
    public static func diff(_ result: PlanFixResult) -> String {
        guard result.changed else { return "" }
        return unifiedDiff(from: result.original, to: result.fixed, path: result.displayPath)
    }

    /// One line on the file: how many problems were fixed, and whether the file was left as it was because
    /// errors remain.
    /// - Parameter written: whether the fixed text was written (`--write`), or only shown.
    public static func summary(_ result: PlanFixResult, written: Bool) -> String {
        let fixed = result.applied.count
        let problems = "\(fixed) problem\(fixed == 1 ? "" : "s")"
        let errors = result.errorsLeft
        let remaining = "\(errors) error\(errors == 1 ? "" : "s")"
        if result.refused {
            return "\(result.displayPath): not changed: \(remaining) would remain that no fix fixes "
                + "(--allow-errors fixes \(problems) anyway)\n"
        }
        guard result.changed else {
            return errors == 0 ? "" : "\(result.displayPath): nothing to fix safely; \(remaining) remain\n"
        }
        let verb = written ? "fixed" : "would fix"
        return "\(result.displayPath): \(verb) \(problems)" + (errors == 0 ? "\n" : "; \(remaining) remain\n")
    }

    /// The unified diff of two texts. Lines that differ are found by their common start and end, then, where
    /// the lines between are as many on both sides (a fix changes text within lines), line by line; else the
    /// lines between are one change. Linear in the size of the texts, and exact for the changes `fix` makes.
    /// A line is written with its own line break (`\r\n` stays), and one without is followed by
    /// `\ No newline at end of file`, as `diff` writes it.
    static func unifiedDiff(from old: String, to new: String, path: String, context: Int = 3) -> String {
        let before = lines(old)
        let after = lines(new)
        // The changed blocks: (start in before, count, start in after, count).
        var blocks: [(old: Int, oldCount: Int, new: Int, newCount: Int)] = []
        var prefix = 0
        while prefix < before.count, prefix < after.count, before[prefix] == after[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < before.count - prefix, suffix < after.count - prefix,
            before[before.count - 1 - suffix] == after[after.count - 1 - suffix]
        {
            suffix += 1
        }
        let oldMiddle = before.count - prefix - suffix
        let newMiddle = after.count - prefix - suffix
        if oldMiddle == newMiddle {
            var line = prefix
            while line < prefix + oldMiddle {
                guard before[line] != after[line] else {
                    line += 1
                    continue
                }
                let start = line
                while line < prefix + oldMiddle, before[line] != after[line] { line += 1 }
                blocks.append((start, line - start, start, line - start))
            }
        } else {
            blocks.append((prefix, oldMiddle, prefix, newMiddle))
        }
        guard !blocks.isEmpty else { return "" }
        var out = "--- a/\(path)\n+++ b/\(path)\n"
        var index = 0
        while index < blocks.count {
            // A hunk: blocks whose context lines meet, with `context` lines around.
            var last = index
            while last + 1 < blocks.count,
                blocks[last + 1].old - (blocks[last].old + blocks[last].oldCount) <= 2 * context
            {
                last += 1
            }
            let oldStart = max(0, blocks[index].old - context)
            let oldEnd = min(before.count, blocks[last].old + blocks[last].oldCount + context)
            let newStart = oldStart + blocks[index].new - blocks[index].old
            let newEnd = oldEnd + (blocks[last].new + blocks[last].newCount - blocks[last].old - blocks[last].oldCount)
            out += "@@ -\(range(oldStart, oldEnd - oldStart)) +\(range(newStart, newEnd - newStart)) @@\n"
            var line = oldStart
            for block in blocks[index...last] {
                while line < block.old {
                    out += shown(" ", before[line])
                    line += 1
                }
                for changed in block.old..<(block.old + block.oldCount) { out += shown("-", before[changed]) }
                for changed in block.new..<(block.new + block.newCount) { out += shown("+", after[changed]) }
                line = block.old + block.oldCount
            }
            while line < oldEnd {
                out += shown(" ", before[line])
                line += 1
            }
            index = last + 1
        }
        return out
    }

    /// A line of a hunk: its mark, the line with its line break, or with a note that it has none.
    private static func shown(_ mark: String, _ line: Substring) -> String {
        line.last.map(isLineBreak) == true ? mark + line : mark + line + "\n\\ No newline at end of file\n"
    }

    /// A hunk's range: `start,count` with `start` counted from 1 (from 0 for an empty range, as `diff` writes it).
    private static func range(_ start: Int, _ count: Int) -> String {
        count == 0 ? "\(start),0" : "\(start + 1),\(count)"
    }

    /// Whether `character` ends a line: `\n`, `\r\n` (one `Character`) or a lone `\r`.
    private static func isLineBreak(_ character: Character) -> Bool {
        character == "\n" || character == "\r\n" || character == "\r"
    }

    /// The lines of `text`, each with its line break (`\n`, `\r\n` or a lone `\r`, as `SourceFile` reads
    /// them); the last one may have none.
    private static func lines(_ text: String) -> [Substring] {
        var lines: [Substring] = []
        var start = text.startIndex
        var index = start
        while index < text.endIndex {
            let character = text[index]
            index = text.index(after: index)
            // `\r\n` is one Character.
            if isLineBreak(character) {
                lines.append(text[start..<index])
                start = index
            }
        }
        if start < text.endIndex { lines.append(text[start...]) }
        return lines
    }
}
