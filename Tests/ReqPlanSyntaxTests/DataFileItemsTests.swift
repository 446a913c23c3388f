import Foundation
import ReqPlanTestSupport
import Testing

@testable import ReqPlanSyntax

/// The rows of a data file read as the items of a `for_each` (`DataFile.Items`): CSV rows as objects of text,
/// JSON Lines lines as any JSON value, no rows as no items.
@Suite struct DataFileItemsTests {
    static func items(_ text: String, _ format: DataFile.Format, limits: ParseLimits = ParseLimits())
        -> Result<DataFile.Items, DataFile.ReadError>
    {
        DataFile.parseItems(
            SourceFile(path: format == .csv ? "rows.csv" : "rows.jsonl", text: text), format: format, limits: limits)
    }

    static func problems(_ result: Result<DataFile.Items, DataFile.ReadError>) -> [String] {
        guard case .failure(let failure) = result else { return [] }
        return failure.diagnostics.map { diagnostic -> String in
            let place = diagnostic.range.map { "\($0.start.line):\($0.start.column)" } ?? "-"
            return "\(diagnostic.code.rawValue) \(place) \(diagnostic.message)"
        }
    }

    /// csv-spectrum (Tests/Fixtures/data/NOTICE): each CSV's items are the objects its JSON lists, keys in the
    /// header's order.
    @Test(arguments: ["comma_in_quotes", "empty_crlf", "escaped_quotes", "json", "newlines_crlf", "utf8"])
    func csvSpectrumRowsAreTheObjectsItsJSONLists(_ name: String) throws {
        let folder = DataFileTests.fixtures.appendingPathComponent("csv-spectrum")
        let items = try DataFile.readItems(
            atPath: folder.appendingPathComponent(name + ".csv").path, shownAs: name + ".csv", format: .csv,
            limits: ParseLimits(), origin: .user
        ).get()
        let expected = try Value.parseJSON(
            String(contentsOf: folder.appendingPathComponent(name + ".json"), encoding: .utf8))
        #expect(Value.list(items.values) == expected)
        if case .list(let rows) = expected, case .object(let fields)? = rows.first {
            #expect(items.fields == fields.map(\.key))
        }
    }

    /// SwiftCSV's quotes.csv: header names that hold commas and quotes, a value over two lines.
    @Test func quotedHeaderNamesAreTheFieldsAsWritten() throws {
        let path = DataFileTests.fixtures.appendingPathComponent("swiftcsv/quotes.csv").path
        let items = try DataFile.readItems(atPath: path, format: .csv, limits: ParseLimits(), origin: .user).get()
        #expect(items.fields == ["id", "name, first", "name, last"])
        #expect(items.values.count == 6)
        #expect(items.values[2]["name, first"] == .string("Person, with a \"quote\" in their name"))
        #expect(items.values[5]["name, first"] == .string("Newlines\nare the best"))
    }

    @Test func noRowsAreNoItems() throws {
        for (text, format) in [("", DataFile.Format.csv), ("\r\n\n", .csv), ("", .jsonLines), ("\n\n", .jsonLines)] {
            let items = try Self.items(text, format).get()
            #expect(items.values.isEmpty)
            #expect(items.fields == nil)
        }
        // A header alone: no items, of known fields.
        let header = try Self.items("sku,name\r\n", .csv).get()
        #expect(header.values.isEmpty)
        #expect(header.fields == ["sku", "name"])
    }

    @Test func aHeaderWithAnEmptyOrRepeatedNameIsLocated() {
        #expect(
            Self.problems(Self.items("sku,,sku\n1,2,3\n", .csv)) == [
                "RP0009 1:5 column 2 of the header has no name",
                "RP0009 1:6 column `sku` is named twice in the header",
            ])
    }

    @Test func jsonLinesLinesAreAnyValueAndTheirKeysTypeTheItemOnlyWhenAllAreObjects() throws {
        let objects = try Self.items(#"{"sku": "a1", "n": 1}"# + "\n" + #"{"sku": "b2", "tags": []}"#, .jsonLines)
            .get()
        #expect(objects.fields == ["sku", "n", "tags"])
        #expect(objects.values[1] == .object([.init("sku", .string("b2")), .init("tags", .list([]))]))
        let mixed = try Self.items("{\"sku\": \"a1\"}\n\"b2\"\n[1, 2]\n3\nnull\n", .jsonLines).get()
        #expect(mixed.fields == nil)
        #expect(
            mixed.values == [
                .object([.init("sku", .string("a1"))]), .string("b2"), .list([.int(1), .int(2)]), .int(3), .null,
            ])
    }

    @Test func numbersAtTheirLimitsKeepTheirDigitsOrAreLocated() throws {
        let numbers = try Self.items(
            "18446744073709551615\n-9223372036854775808\n1e300\n-0\n99999999999999999999999\n", .jsonLines
        ).get()
        // `-0` is the integer 0, as JSON bodies read it.
        #expect(
            numbers.values.map { $0.jsonText() } == [
                "18446744073709551615", "-9223372036854775808", "1e+300", "0", "99999999999999999999999",
            ])
        #expect(
            Self.problems(Self.items("1\n1e400\n{\"a\": [-1e999]}\n", .jsonLines)) == [
                "RP0009 2:1 the number is too large for a double",
                "RP0009 3:7 the number at `/0` is too large for a double",
            ])
    }

    @Test func hostileLinesAreLocated() {
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        let problems = Self.problems(
            Self.items("{\"a\": 1, \"a\": 2}\n\(deep)\n\"a\u{0}b\"\n{\"x\": \n", .jsonLines))
        #expect(problems.count == 4, "\(problems)")
        #expect(problems[0] == "RP0009 1:10 key `a` is given twice on this line")
        #expect(problems[1].hasPrefix("RP0009 2:") && problems[1].contains("nested deeper than 512"))
        #expect(problems[2].hasPrefix("RP0009 3:3 a NUL byte"))
        #expect(problems[3].hasPrefix("RP0009 4:") && problems[3].contains("not JSON"))
        // 512 levels are read; one more is past the limit, at the bracket that opens it.
        let within = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        #expect(Self.problems(Self.items(within, .jsonLines)) == [])
        let past = "[" + within + "]"
        #expect(
            Self.problems(Self.items(past, .jsonLines)) == [
                "RP0009 1:513 this line is not JSON: JSON nested deeper than 512 levels"
            ])
    }
}
