import Foundation
import ReqPlanTestSupport
import SwiftCSV
import Testing

@testable import ReqPlanSyntax

#if canImport(Glibc)
    import Glibc
#endif

/// Data files (`DataFile`), the rows of `reqplan load`'s iterations: RFC 4180 CSV with a header row and JSON Lines,
/// read through `FileReader`, every problem located in the file.
@Suite struct DataFileTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/data")

    static func csv(_ text: String, maxErrors: Int = 20) -> Result<DataFile, DataFile.ReadError> {
        DataFile.parse(
            SourceFile(path: "users.csv", text: text), format: .csv, limits: ParseLimits(), maxErrors: maxErrors)
    }

    static func jsonLines(_ text: String, limits: ParseLimits = ParseLimits()) -> Result<DataFile, DataFile.ReadError> {
        DataFile.parse(SourceFile(path: "users.jsonl", text: text), format: .jsonLines, limits: limits)
    }

    /// Each row's values by column name.
    static func rows(_ file: DataFile) -> [[String: Value]] {
        (0..<file.rowCount).map { row in
            Dictionary(
                file.cells(ofRow: row).map { (file.columns[$0.column].value, $0.value) },
                uniquingKeysWith: { first, _ in first })
        }
    }

    /// Each row's texts by column name (CSV: every value is text).
    static func texts(_ file: DataFile) -> [[String: String]] {
        rows(file).map { $0.mapValues(\.interpolated) }
    }

    static func problems(_ result: Result<DataFile, DataFile.ReadError>) -> [Diagnostic] {
        guard case .failure(let failure) = result else { return [] }
        return failure.diagnostics
    }

    static func location(_ diagnostic: Diagnostic?) -> String? {
        diagnostic?.range.map { "\($0.start.line):\($0.start.column)" }
    }

    // MARK: CSV

    @Test func quotedFieldsHoldCommasQuotesAndLineBreaks() throws {
        let file = try Self.csv("id,note\n1,\"a, b\"\n2,\"say \"\"hi\"\"\"\n3,\"two\nlines\"\n4,plain text \n").get()
        #expect(file.format == .csv)
        #expect(file.columns.map(\.value) == ["id", "note"])
        #expect(Self.texts(file).map { $0["note"] } == ["a, b", "say \"hi\"", "two\nlines", "plain text "])
        #expect((0..<file.rowCount).map(file.line(ofRow:)) == [2, 3, 4, 6])
        // A field's range holds its quotes; one over two lines ends on the second.
        let quoted = try #require(file.cells(ofRow: 2).last)
        #expect(quoted.range == SourceRange(start: .init(line: 4, column: 3), end: .init(line: 5, column: 7)))
        #expect(file.cells(ofRow: 0).first?.range == SourceRange(start: .init(line: 2, column: 1), length: 1))
    }

    @Test func aByteOrderMarkAndCRLFAreReadFromTheFile() throws {
        let url = TestFolders.unique("bom").appendingPathExtension("csv")
        try FileManager.default.createDirectory(
            at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data([0xEF, 0xBB, 0xBF] + Array("user,n\r\nada,1\r\n\"b\r\nob\",2\r\n".utf8)).write(to: url)
        let file = try DataFile.read(atPath: url.path, shownAs: "users.csv", limits: ParseLimits()).get()
        #expect(file.columns.map(\.value) == ["user", "n"])
        #expect(file.columns.first?.range.start == SourceLocation(line: 1, column: 1))
        #expect(Self.texts(file) == [["user": "ada", "n": "1"], ["user": "b\r\nob", "n": "2"]])
        #expect(file.line(ofRow: 1) == 3)
    }

    /// Empty lines are no rows; a trailing comma is an empty last field; the last row needs no line break.
    @Test func emptyLinesAreNoRowsAndEmptyFieldsAreEmptyText() throws {
        let file = try Self.csv("\n\na,b\n\n1,\r\n\r\n,\n\"\",x").get()
        #expect(file.columns.first?.range.start.line == 3)
        #expect(Self.texts(file) == [["a": "1", "b": ""], ["a": "", "b": ""], ["a": "", "b": "x"]])
        #expect((0..<file.rowCount).map(file.line(ofRow:)) == [5, 7, 8])
    }

    @Test func aRowWithMoreOrFewerFieldsThanTheHeaderIsAnErrorAtThatRow() {
        let problems = Self.problems(Self.csv("a,b,c\n1,2,3\n4,5\n6,7,8,9\n"))
        #expect(problems.map(\.code) == [.invalidDataFile, .invalidDataFile])
        #expect(
            problems.map(\.message) == [
                "this row ends after 2 fields, but the header names 3 columns (no `c`)",
                "this row has 4 fields, but the header names 3 columns",
            ])
        #expect(problems.map(Self.location) == ["3:3", "4:7"])
        #expect(problems.allSatisfy { $0.file == "users.csv" })
    }

    @Test(
        arguments: [
            ("a,,c\n1,2,3\n", "column 2 of the header has no name", "1:3"),
            ("id,name,id\n1,2,3\n", "column `id` is named twice in the header", "1:9"),
            ("", "the data file has no rows", nil),
            ("\n\n", "the data file has no rows", "1:1"),
            ("user,id\r\n", "the data file has no rows: its header is all there is", "1:1"),
        ] as [(String, String, String?)])
    func aHeaderWithAnEmptyOrRepeatedNameOrNoRowsIsAnError(_ text: String, _ message: String, _ at: String?) {
        let problems = Self.problems(Self.csv(text))
        #expect(problems.map(\.message) == [message])
        #expect(problems.first.flatMap(Self.location) == at)
        #expect(problems.first?.code == .invalidDataFile)
    }

    @Test func quotesOutOfPlaceAreLocated() {
        // A quote left open runs to the end of the file: the error is at the quote that opened it.
        var problems = Self.problems(Self.csv("user,note\nada,\"fine\"\nbob,\"never closed\ncy,x\n"))
        #expect(problems.map(\.message) == ["this quote is never closed: the field runs to the end of the file"])
        #expect(problems.map(Self.location) == ["3:5"])
        problems = Self.problems(Self.csv("user,note\nada,\"fine\"x\n"))
        #expect(problems.map(\.message) == ["text after the closing quote of a quoted field"])
        #expect(problems.map(Self.location) == ["2:11"])
        #expect(problems.first?.notes.first?.range?.start == SourceLocation(line: 2, column: 5))
        problems = Self.problems(Self.csv("user,height\nada,5'11\"\n"))
        #expect(problems.map(\.message) == ["a quote inside a field that does not start with one"])
        #expect(problems.map(Self.location) == ["2:9"])
    }

    /// Columns count Unicode scalars, as every location does.
    @Test func columnsCountCharactersNotBytes() {
        let problems = Self.problems(Self.csv("nom,ville\nJosé,Zürich,😀\n"))
        #expect(problems.map(Self.location) == ["2:13"])
    }

    @Test func problemsPastTheLimitAreCounted() {
        let text = "a,b\n" + String(repeating: "1\n", count: 100)
        let problems = Self.problems(Self.csv(text))
        #expect(problems.count == 20)
        #expect(problems.last?.notes.last?.message == "and 80 more problems not shown")
        #expect(
            Self.problems(Self.csv(text, maxErrors: 1)).last?.notes.last?.message == "and 99 more problems not shown")
    }

    /// A problem is shown as every diagnostic is: `--> file:line:col`, the line, a caret under the field.
    @Test func aProblemIsRenderedWithItsLineAndCaret() throws {
        let source = SourceFile(path: "users.csv", text: "user,age\nada,3,x\n")
        guard case .failure(let failure) = DataFile.parse(source, format: .csv, limits: ParseLimits()) else {
            Issue.record("a ragged row was read")
            return
        }
        let text = DiagnosticRenderer(files: [try #require(failure.source)]).text(
            try #require(failure.diagnostics.first))
        #expect(
            text == """
                error[RP0009]: this row has 3 fields, but the header names 2 columns
                 --> users.csv:2:7
                  |
                2 | ada,3,x
                  |       ^
                  |
                note: the header is here
                 --> users.csv:1:1
                  |
                1 | user,age
                  | ^^^^
                  |
                  = hint: a field holding a comma is quoted: `"a, b"`

                """)
    }

    // MARK: Real files

    /// csv-spectrum (its NOTICE says where from): each CSV reads to the rows its JSON gives.
    @Test(arguments: [
        "comma_in_quotes", "empty", "empty_crlf", "escaped_quotes", "json", "newlines", "newlines_crlf",
        "quotes_and_newlines", "simple", "simple_crlf", "utf8",
    ])
    func csvSpectrumReadsAsItsJSONSays(_ name: String) throws {
        let folder = Self.fixtures.appendingPathComponent("csv-spectrum")
        let file = try DataFile.read(
            atPath: folder.appendingPathComponent(name + ".csv").path, shownAs: name + ".csv", limits: ParseLimits()
        ).get()
        let expected = try Value.parseJSON(
            String(contentsOf: folder.appendingPathComponent(name + ".json"), encoding: .utf8))
        guard case .list(let rows) = expected else {
            Issue.record("\(name).json is not a list")
            return
        }
        let wanted = rows.map { row -> [String: Value] in
            guard case .object(let fields) = row else { return [:] }
            return Dictionary(fields.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
        }
        #expect(Self.rows(file) == wanted)
        // The columns in the header's order, as the JSON lists its keys.
        if case .object(let fields)? = rows.first { #expect(file.columns.map(\.value) == fields.map(\.key)) }
    }

    /// SwiftCSV's own test data (its NOTICE says where from): read, but for the file with rows of 1 and 2 fields
    /// under a header of 3, which SwiftCSV pads without a word.
    @Test func swiftCSVsTestDataIsReadAndItsRaggedRowsAreLocated() throws {
        let folder = Self.fixtures.appendingPathComponent("swiftcsv")
        func read(_ name: String) -> Result<DataFile, DataFile.ReadError> {
            DataFile.read(atPath: folder.appendingPathComponent(name).path, shownAs: name, limits: ParseLimits())
        }
        let quotes = try read("quotes.csv").get()
        #expect(quotes.columns.map(\.value) == ["id", "name, first", "name, last"])
        #expect(Self.texts(quotes)[2]["name, first"] == "Person, with a \"quote\" in their name")
        #expect(Self.texts(quotes)[4]["name, first"] == "Person\\ with a backslash")
        #expect(
            Self.texts(quotes).last == ["id": "12", "name, first": "Newlines\nare the best", "name, last": "Woo hoo"])
        let bom = try read("utf8_with_bom.csv").get()
        #expect(bom.columns.first?.value == "Part Number")
        #expect(
            Self.texts(bom) == [
                [
                    "Part Number": "12345", "Description": "Heizölrückstoßabdämpfung", "Unit Price": "€ 100,00",
                    "Qty": "2",
                ]
            ])
        let wonderland = try read("wonderland.csv").get()
        #expect(wonderland.rowCount == 3)
        #expect(Self.texts(wonderland)[0]["Quote"]?.hasPrefix("\"Where shall I begin") == true)
        let ragged = Self.problems(read("empty_fields.csv"))
        #expect(ragged.map(Self.location) == ["5:1", "7:4"])
        #expect(
            ragged.first?.message == "this row ends after 1 field, but the header names 3 columns (no `name`, `age`)")
    }

    /// Why `DataFile` reads CSV itself: SwiftCSV 0.10.0 accepts what RFC 4180 does not, without a word, reads
    /// some valid files otherwise, and says where nothing is.
    @Test func swiftCSVDoesNotServe() throws {
        // A quote left open at the end of the file: SwiftCSV reads the row; DataFile points at the quote.
        #expect(try EnumeratedCSV(string: "name\n\"ada", delimiter: .comma).rows == [["ada"]])
        #expect(Self.problems(Self.csv("name\n\"ada")).map(Self.location) == ["2:1"])

        // Rows of fewer and more fields than the header: padded or cut, no error.
        let ragged = try NamedCSV(string: "a,b,c\n1,2\n3,4,5,6\n", delimiter: .comma)
        #expect(ragged.rows == [["a": "1", "b": "2", "c": ""], ["a": "3", "b": "4", "c": "5"]])
        #expect(Self.problems(Self.csv("a,b,c\n1,2\n3,4,5,6\n")).count == 2)

        // A trailing empty field at the end of the file is lost.
        #expect(try EnumeratedCSV(string: "a,b\n1,", delimiter: .comma).rows == [["1"]])
        #expect(Self.texts(try Self.csv("a,b\n1,").get()) == [["a": "1", "b": ""]])

        // Its errors say what, never where.
        do {
            _ = try EnumeratedCSV(string: "a\nx\n\"y\"z\n", delimiter: .comma)
            Issue.record("SwiftCSV read text after a closing quote")
        } catch CSVParseError.quotation(let message) {
            #expect(!message.contains("3"), "\(message)")
        }
        #expect(Self.problems(Self.csv("a\nx\n\"y\"z\n")).map(Self.location) == ["3:4"])

        // Spaces that start a field are part of it (RFC 4180 §2.4); SwiftCSV drops them.
        #expect(try EnumeratedCSV(string: "a,b\n  x,y\n", delimiter: .comma).rows == [["x", "y"]])
        #expect(Self.texts(try Self.csv("a,b\n  x,y\n").get()) == [["a": "  x", "b": "y"]])

        // It walks `Character`s: a quote followed by a combining mark is one character, and no quote, so a valid
        // quoted field is refused.
        #expect(throws: CSVParseError.self) { try EnumeratedCSV(string: "a\n\"\u{301}x\"\n", delimiter: .comma) }
        #expect(Self.texts(try Self.csv("a\n\"\u{301}x\"\n").get()) == [["a": "\u{301}x"]])
    }

    // MARK: JSON Lines

    @Test func jsonLinesValuesKeepTheirTypes() throws {
        let text = """
            {"user": "ada", "id": 3, "big": 18446744073709551616, "ratio": 1e300, "admin": true}
            {"user": "bob", "tags": ["a", "b"], "address": {"city": "Zürich"}, "admin": null}

              {}\r
            {"user": "\\ud83c\\udfb2"}
            """
        let file = try Self.jsonLines(text).get()
        #expect(file.format == .jsonLines)
        #expect(file.columns.map(\.value) == ["user", "id", "big", "ratio", "admin", "tags", "address"])
        #expect(file.columns[5].range == SourceRange(start: .init(line: 2, column: 17), length: 6))
        let rows = Self.rows(file)
        #expect(rows.count == 4)
        #expect(
            rows[0] == [
                "user": .string("ada"), "id": .int(3), "big": .largeInt("18446744073709551616"),
                "ratio": .double(1e300),
                "admin": .bool(true),
            ])
        #expect(rows[1]["tags"] == .list([.string("a"), .string("b")]))
        #expect(rows[1]["address"] == .object([.init("city", .string("Zürich"))]))
        #expect(rows[1]["admin"] == .null)
        #expect(rows[2] == [:])
        #expect(rows[3]["user"] == .string("🎲"))
        #expect((0..<file.rowCount).map(file.line(ofRow:)) == [1, 2, 4, 5])
        // A value's range is where it is written, in characters.
        #expect(
            file.cells(ofRow: 1)[file.cells(ofRow: 1).startIndex + 2].range.start == SourceLocation(line: 2, column: 48)
        )
    }

    @Test(
        arguments: [
            ("{\"a\": 1}\n{\"a\": 1,}\n", "this line is not JSON: expected a string key", "2:9"),
            ("[1, 2]\n", "this line is a list, not a JSON object", "1:1"),
            ("  \"ada\"\n", "this line is a string, not a JSON object", "1:3"),
            ("{\"a\": 1, \"a\": 2}\n", "key `a` is given twice on this line", "1:10"),
            ("{\"é\": 1e400}\n", "the number is too large for a double", "1:7"),
            ("{\"n\": [1, -1e999]}\n", "the number at `/1` is too large for a double", "1:7"),
            ("{\"n\": nan}\n", "this line is not JSON: invalid literal", "1:7"),
            ("{\"n\": NaN}\n", "this line is not JSON: unexpected `N`", "1:7"),
            ("{\"n\": Infinity}\n", "this line is not JSON: unexpected `I`", "1:7"),
            ("{\"s\": \"a\u{0}b\"}\n", "a NUL byte (U+0000) in the data file", "1:9"),
            ("{\"s\": \"unterminated}\n", "this line is not JSON: unterminated string", "1:21"),
            ("", "the data file has no rows", nil),
            (" \n\t\n", "the data file has no rows", "1:1"),
        ] as [(String, String, String?)])
    func aLineThatIsNoObjectOfValuesIsAnErrorAtItsPlace(_ text: String, _ message: String, _ at: String?) {
        let problems = Self.problems(Self.jsonLines(text))
        #expect(problems.map(\.message) == [message])
        #expect(problems.first.flatMap(Self.location) == at)
    }

    @Test func valuesNestedPastTheLimitAreRefused() {
        let deep = "{\"a\": " + String(repeating: "[", count: 10) + String(repeating: "]", count: 10) + "}\n"
        let problems = Self.problems(Self.jsonLines(deep, limits: ParseLimits(maxDepth: 5)))
        #expect(problems.map(\.code) == [.nestedTooDeep])
        #expect(problems.map(Self.location) == ["1:7"])
        #expect(Self.problems(Self.jsonLines(deep)).isEmpty)
        // Past JSON's own 512 levels: refused as JSON is, without recursion into it.
        let deeper = "{\"a\": " + String(repeating: "[", count: 100_000) + "}\n"
        #expect(
            Self.problems(Self.jsonLines(deeper)).first?.message
                == "this line is not JSON: JSON nested deeper than 512 levels")
    }

    /// A line of 100,000 keys, the last one a repeat: found in linear time, both places named.
    @Test func aRepeatedKeyAmongManyIsFoundInOnePass() {
        let keys = (0..<100_000).map { "\"k\($0)\": \($0)" }.joined(separator: ", ")
        let problems = Self.problems(Self.jsonLines("{" + keys + ", \"k7\": 0}\n"))
        #expect(problems.map(\.message) == ["key `k7` is given twice on this line"])
        #expect(problems.first?.notes.first?.range?.start == SourceLocation(line: 1, column: 65))
    }

    // MARK: Files

    @Test func theFormatIsTheNamesOrTheOneGiven() throws {
        #expect(DataFile.Format(path: "a/USERS.CSV") == .csv)
        #expect(DataFile.Format(path: "x.ndjson") == .jsonLines)
        #expect(DataFile.Format(path: "x.jsonl") == .jsonLines)
        #expect(DataFile.Format(path: "x.json") == nil)
        // Refused before the file is opened: this one does not exist.
        guard case .failure(let failure) = DataFile.read(atPath: "/nonexistent/users.txt", limits: ParseLimits()) else {
            Issue.record("a .txt file was read")
            return
        }
        #expect(failure.diagnostics.map(\.code) == [.invalidDataFile])
        #expect(
            failure.diagnostics.first?.message
                == "cannot tell the format of the data file `/nonexistent/users.txt` from its name")
        // A process substitution has no extension: the caller gives the format.
        let url = TestFolders.unique("named").appendingPathExtension("txt")
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("{\"a\": 1}\n".utf8).write(to: url)
        #expect(try DataFile.read(atPath: url.path, format: .jsonLines, limits: ParseLimits()).get().rowCount == 1)
    }

    /// A project (`.reqplan` at its root) holding `inside.csv`, and a file of secrets beside it, outside.
    private func project() throws -> (project: URL, outside: URL) {
        let top = TestFolders.unique("data-boundary")
        let project = top.appendingPathComponent("project")
        let outside = top.appendingPathComponent("outside")
        for folder in [project, outside] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        try Data().write(to: project.appendingPathComponent(".reqplan"))
        try Data("user,token\nci,s3cr3t\n".utf8).write(to: outside.appendingPathComponent("credentials.csv"))
        try Data("user\nada\n".utf8).write(to: project.appendingPathComponent("inside.csv"))
        return (project, outside)
    }

    private func readInput(_ name: String, in project: URL, limits: ParseLimits = ParseLimits())
        -> Result<DataFile, DataFile.ReadError>
    {
        DataFile.read(
            atPath: project.appendingPathComponent(name).path, shownAs: name, limits: limits,
            origin: .input(FileBoundary(planFolder: project)))
    }

    @Test(arguments: ["../outside/credentials.csv", "/proc/self/environ"])
    func aLinkOutOfTheProjectIsRefusedAndNothingBehindItShown(_ target: String) throws {
        let (project, _) = try project()
        try FileManager.default.createSymbolicLink(
            atPath: project.appendingPathComponent("users.csv").path, withDestinationPath: target)
        #expect(try readInput("inside.csv", in: project).get().rowCount == 1)
        guard case .failure(let failure) = readInput("users.csv", in: project) else {
            Issue.record("a link to \(target) was read")
            return
        }
        #expect(failure.diagnostics.map(\.code) == [.unreadableFile])
        #expect(failure.diagnostics.first?.message.contains("outside the plan's project (through a link") == true)
        #expect(failure.source == nil)
        #expect(!failure.diagnostics.contains { $0.message.contains("s3cr3t") || $0.message.contains("PATH=") })
    }

    @Test func aFIFOIsRefusedWithoutBlocking() throws {
        let (project, _) = try project()
        #expect(mkfifo(project.appendingPathComponent("fifo.csv").path, 0o600) == 0)
        guard case .failure(let failure) = readInput("fifo.csv", in: project) else {
            Issue.record("a FIFO was read")
            return
        }
        #expect(
            failure.diagnostics.first?.message
                == "cannot read `fifo.csv`: it is a named pipe (FIFO), not a regular file")
    }

    @Test func devicesFoldersAndFilesPastTheLimitAreRefused() throws {
        let (project, _) = try project()
        try FileManager.default.createSymbolicLink(
            atPath: project.appendingPathComponent("zero.csv").path, withDestinationPath: "/dev/zero")
        try FileManager.default.createDirectory(
            at: project.appendingPathComponent("folder.csv"), withIntermediateDirectories: true)
        let boundary = FileBoundary(planFolder: project, allowOutside: true)
        let zero = DataFile.read(
            atPath: project.appendingPathComponent("zero.csv").path, shownAs: "zero.csv", limits: ParseLimits(),
            origin: .input(boundary))
        #expect(
            Self.problems(zero).map(\.message) == [
                "cannot read `zero.csv`: it is a character device, not a regular file"
            ])
        #expect(
            Self.problems(readInput("folder.csv", in: project)).map(\.message) == [
                "cannot read `folder.csv`: it is a folder, not a regular file"
            ])
        // Named by the user, `/dev/zero` is read up to the limit, and no further.
        let userZero = DataFile.read(
            atPath: "/dev/zero", format: .csv, limits: ParseLimits(maxFileSize: 1000, sizeSetting: "--max-data-size"))
        #expect(Self.problems(userZero).map(\.code) == [.fileTooLarge])
        #expect(Self.problems(userZero).first?.hint == "split the data file, or raise the limit with --max-data-size")
        // One byte past the limit.
        let limit = ParseLimits(maxFileSize: "user\nada\n".utf8.count - 1)
        #expect(Self.problems(readInput("inside.csv", in: project, limits: limit)).map(\.code) == [.fileTooLarge])
    }

    @Test func bytesThatAreNotUTF8AreRefusedWithTheirPlace() throws {
        let (project, _) = try project()
        try Data(Array("user\nada\n".utf8) + [0xE9, 0x74, 0xE9] + Array("\n".utf8))
            .write(to: project.appendingPathComponent("latin1.csv"))
        let problems = Self.problems(readInput("latin1.csv", in: project))
        #expect(problems.map(\.code) == [.unreadableFile])
        #expect(problems.first?.message.contains("byte 0xE9 at line 3, column 1") == true)
        // NUL is UTF-8, but no text: located.
        #expect(Self.problems(Self.csv("user\na\u{0}da\n")).map(Self.location) == ["2:2"])
    }

    // MARK: Size

    /// Bounds of the size tests: a debug build reads a million rows of either format in 5 to 15 s alone, and
    /// up to 7 times slower beside the rest of the suite on two cores; work quadratic in the rows (or in a
    /// field's length) would take hours.
    static let sizeBound = Duration.seconds(600)

    /// A million rows are read in one pass, their count and last line right.
    @Test func aMillionRowsAreReadInLinearTime() async throws {
        let text = "user,n\n" + (0..<1_000_000).map { "u\($0),\($0)\n" }.joined()
        let started = ContinuousClock.now
        let file = try await offCooperativePool { try Self.csv(text).get() }
        #expect(ContinuousClock.now - started < Self.sizeBound)
        #expect(file.rowCount == 1_000_000)
        #expect(file.line(ofRow: 999_999) == 1_000_001)
        #expect(file.cells(ofRow: 999_999).map(\.value) == [.string("u999999"), .string("999999")])

        let lines = (0..<1_000_000).map { "{\"user\": \"u\($0)\", \"n\": \($0)}\n" }.joined()
        let jsonLines = try await offCooperativePool { try Self.jsonLines(lines).get() }
        #expect(jsonLines.rowCount == 1_000_000)
        #expect(jsonLines.cells(ofRow: 999_999).last?.value == .int(999_999))
    }

    /// A field of 10 MB, plain, quoted and made of escaped quotes (each `""` one quote, appended in place).
    @Test func aFieldOfTenMegabytesIsReadInOnePass() async throws {
        let size = 10_000_000
        let started = ContinuousClock.now
        let results = try await offCooperativePool { () -> [Int] in
            let plain = try Self.csv("a,b\n" + String(repeating: "x", count: size) + ",1\n").get()
            let quoted = try Self.csv("a\n\"" + String(repeating: "x,\n", count: size / 3) + "\"\n").get()
            let escaped = try Self.csv("a\n\"" + String(repeating: "\"\"", count: size / 2) + "\"\n").get()
            let json = try Self.jsonLines("{\"a\": \"" + String(repeating: "é", count: size / 2) + "\"}\n").get()
            return [plain, quoted, escaped, json].map {
                $0.cells(ofRow: 0).first?.value.interpolated.unicodeScalars.count ?? 0
            }
        }
        #expect(results == [size, size / 3 * 3, size / 2, size / 2])
        #expect(ContinuousClock.now - started < Self.sizeBound)
    }
}
