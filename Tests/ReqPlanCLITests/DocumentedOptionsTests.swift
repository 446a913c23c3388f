import Foundation
import ReqPlanTestSupport
import Testing

/// docs/run.md says it lists every command and option: each command's `--help`, for every command
/// `reqplan --help` lists (and the commands those list, `report merge`), is compared with it, so a new
/// command or option cannot go undocumented, and an option the docs name must exist.
@Suite(.timeSensitive) struct DocumentedOptionsTests {
    /// A command below `reqplan` (`["report", "merge"]`; `[]` for `reqplan` itself) and the long options its
    /// help lists.
    struct Command: CustomStringConvertible {
        var path: [String]
        var options: Set<String>

        var description: String { (["reqplan"] + path).joined(separator: " ") }
    }

    /// Options every command has, from ArgumentParser.
    static let builtIn: Set<String> = ["--help", "--version"]

    /// Every command, found by reading `--help` from the top down.
    static func commands() async throws -> [Command] {
        var found: [Command] = []
        var pending: [[String]] = [[]]
        while let path = pending.popLast() {
            let help = try await CommandRunner.run(path + ["--help"], within: .seconds(30))
            #expect(help.status == 0, "\(path): \(help.stderr)")
            found.append(Command(path: path, options: Self.listedOptions(help.stdout)))
            for line in Self.sections(of: help.stdout)["SUBCOMMANDS"] ?? [] {
                if let name = line.firstMatch(of: /^  ([a-z][a-z0-9-]*)/) {
                    pending.append(path + [String(name.output.1)])
                }
            }
        }
        return found.sorted { $0.description < $1.description }
    }

    /// The long options a help text lists under `OPTIONS:`.
    static func listedOptions(_ help: String) -> Set<String> {
        Set(
            (sections(of: help)["OPTIONS"] ?? []).compactMap { line in
                line.firstMatch(of: /^  (?:-[A-Za-z], )?(--[a-z0-9][a-z0-9-]*)/).map { String($0.output.1) }
            })
    }

    /// The lines of each section of a help text (`OPTIONS:`, `SUBCOMMANDS:`), by the section's name.
    static func sections(of help: String) -> [String: [String]] {
        var sections: [String: [String]] = [:]
        var current = ""
        for line in help.split(separator: "\n", omittingEmptySubsequences: false) {
            if let heading = line.wholeMatch(of: /([A-Z][A-Z ]*):/) {
                current = String(heading.output.1)
            } else {
                sections[current, default: []].append(String(line))
            }
        }
        return sections
    }

    /// docs/run.md.
    static func runDoc() throws -> String {
        try String(contentsOf: CommandRunner.packageRoot.appendingPathComponent("docs/run.md"), encoding: .utf8)
    }

    /// The long options written in `text` (`--format`, of `--format json`).
    static func options(in text: some StringProtocol) -> Set<String> {
        Set(String(text).matches(of: /--[a-z0-9][a-z0-9-]*/).map { String($0.output) })
    }

    /// The first cell of a table's row, its escaped `\|` read as `|`.
    static func firstCell(_ row: some StringProtocol) -> String {
        let cells = String(row).replacing("\\|", with: "\u{1}").split(separator: "|")
        return String(cells.first ?? "").replacing("\u{1}", with: "|")
    }

    /// The options of the table that follows `heading` in `doc`: those its rows' first cells name.
    static func tableOptions(after heading: String, in doc: String) throws -> Set<String> {
        let start = try #require(doc.range(of: heading), "no `\(heading)` in docs/run.md")
        let lines = doc[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false)
        let table = lines.drop { !$0.hasPrefix("|") }.prefix { $0.hasPrefix("|") }
        #expect(!table.isEmpty, "no table after `\(heading)` in docs/run.md")
        return table.dropFirst(2).reduce(into: []) { options, row in
            options.formUnion(Self.options(in: Self.firstCell(row)))
        }
    }

    /// Every command is in docs/run.md, and every option of every command is named there.
    @Test func everyCommandAndOptionOfTheHelpIsInTheDocs() async throws {
        let doc = try Self.runDoc()
        let commands = try await Self.commands()
        #expect(commands.count >= 10, "\(commands)")
        #expect(commands.contains { $0.path == ["report", "merge"] }, "the commands of a command too")
        for command in commands {
            if !command.path.isEmpty {
                #expect(
                    doc.contains("`\(command)`") || doc.contains("`\(command) "),
                    "docs/run.md does not list the command `\(command)`")
            }
            // `--version` is the top command's; the subcommands' help repeats it.
            let ignored = command.path.isEmpty ? ["--help"] : Self.builtIn
            for option in command.options.subtracting(ignored).sorted() {
                #expect(
                    doc.firstMatch(of: try Regex(option + "(?![a-z0-9-])")) != nil,
                    "`\(command) \(option)` is not in docs/run.md")
            }
        }
    }

    /// The options tables of `validate`, `run` and `load` list exactly the options of their command.
    @Test(arguments: [
        ("validate", "Options of `validate`:"), ("run", "## `reqplan run`"), ("load", "## `reqplan load`"),
    ])
    func anOptionsTableListsExactlyTheCommandsOptions(command: String, heading: String) async throws {
        let help = try await CommandRunner.run([command, "--help"], within: .seconds(30))
        let listed = Self.listedOptions(help.stdout).subtracting(Self.builtIn)
        let table = try Self.tableOptions(after: heading, in: try Self.runDoc())
        #expect(!listed.isEmpty)
        for option in listed.subtracting(table).sorted() {
            Issue.record("`reqplan \(command) \(option)` is not in its table in docs/run.md")
        }
        for option in table.subtracting(listed).sorted() {
            Issue.record("docs/run.md's table of `\(command)` has `\(option)`, which it does not take")
        }
    }

    /// The `--report` row of `run`'s table names every kind of report `run --help` lists (`json:PATH`, …).
    @Test func theReportRowNamesEveryKindOfReport() async throws {
        let help = try await CommandRunner.run(["run", "--help"], within: .seconds(30))
        let kinds = Set(help.stdout.matches(of: /([a-z]+):PATH/).map { String($0.output.1) })
        #expect(kinds.isSuperset(of: ["json", "junit", "html"]), "\(help.stdout)")
        let doc = try Self.runDoc()
        let row = try #require(
            doc.split(separator: "\n").first { $0.hasPrefix("| `--report KIND:PATH` |") }, "no --report row")
        for kind in kinds.sorted() {
            #expect(row.contains("`\(kind)`"), "docs/run.md's --report row does not name `\(kind)`: \(row)")
        }
    }

    /// Every option the commands table of docs/run.md writes beside a command is one that command takes.
    @Test func everyOptionTheCommandsTableWritesExists() async throws {
        let doc = try Self.runDoc()
        let commands = try await Self.commands()
        let start = try #require(doc.range(of: "## Commands"))
        let rows = doc[start.upperBound...].split(separator: "\n").drop { !$0.hasPrefix("|") }.prefix {
            $0.hasPrefix("|")
        }
        for row in rows.dropFirst(2) {
            let cell = Self.firstCell(row)
            // The command the cell names: the longest path of a command written after `reqplan `.
            let command =
                commands.filter { !$0.path.isEmpty && cell.contains("`\($0)") }
                .max { $0.path.count < $1.path.count } ?? commands.first { $0.path.isEmpty }
            let known = (command?.options ?? []).union(Self.builtIn)
            for option in Self.options(in: cell).subtracting(known).sorted() {
                Issue.record("docs/run.md writes `\(option)` for `\(command?.description ?? "?")`: \(cell)")
            }
        }
    }
}
