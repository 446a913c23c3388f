import Foundation
import ReqPlanOpenAPI
import ReqPlanPlanner
import ReqPlanSyntax
import ReqPlanTestSupport
import Testing

/// Descriptions published as JSON, read as every JSON file reqplan reads.
@Suite struct JSONDescriptionTests {
    /// A character above U+FFFF, escaped as JSON escapes it (`"\ud83c\udfb2"`), was refused as "invalid Unicode
    /// character escape"; it is the character, in a description composed whole and in one composed in halves
    /// (`JSONHalves`, from 256 KiB).
    @Test(arguments: [10, 2_000])
    func aSurrogatePairEscapeIsOneCharacter(operations: Int) async throws {
        let paths = (0..<operations).map { index in
            """
            "/dice/\(index)": {"get": {"operationId": "roll\(index)", "summary": "Roll \\ud83c\\udfb2 \(index)",
              "description": "\(String(repeating: "Rolls the die. ", count: 8))",
              "responses": {"200": {"description": "\\ud83c\\udfb2\\ud83c\\udfb2"}}}}
            """
        }
        let text = """
            {"openapi": "3.1.0", "info": {"title": "Dice \\ud83c\\udfb2", "version": "1"},
            "paths": {\(paths.joined(separator: ",\n"))}}
            """
        #expect((operations > 10) == (text.utf8.count > 256 << 10))
        let folder = TestFolders.unique("json-description")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("dice.json")
        try text.write(to: file, atomically: true, encoding: .utf8)
        let description = try await offCooperativePool {
            try OpenAPIDocumentLoader().load(fileAt: file.path, boundary: FileBoundary(root: folder)).get()
        }
        #expect(description.operation(id: "roll0")?.summary == "Roll 🎲 0")
        let last = operations - 1
        #expect(description.operation(id: "roll\(last)")?.summary == "Roll 🎲 \(last)")
    }
}
