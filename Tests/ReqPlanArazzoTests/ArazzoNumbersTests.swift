import Foundation
import ReqPlanArazzo
import ReqPlanOpenAPI
import ReqPlanPlanner
import ReqPlanSyntax
import ReqPlanTestSupport
import Testing

/// Numbers from outside (HOSTILE.md, "Numbers") in Arazzo documents and the descriptions they name: every
/// number, replaced in turn by one at its limits, gives a clean, located result and never a crash (`retryAfter:
/// .inf`, `retryLimit: 9223372036854775807` crashed `validate`, `run`, `plan`, `graph` and the language server).
@Suite struct ArazzoNumbersTests {
    static let folder = ArazzoFixtures.folder

    static func library() -> PlanLibrary {
        PlanLibrary(apiLoader: CachingAPIDescriptionLoader(OpenAPIDocumentLoader()), documentReader: ArazzoReader())
    }

    @Test func everyNumberOfADocumentAtItsLimitsIsCheckedWithoutACrash() throws {
        let documents =
            try FileManager.default.contentsOfDirectory(atPath: Self.folder.appendingPathComponent("golden").path)
            .filter { $0.hasSuffix(".arazzo.yaml") }.sorted().map { "golden/" + $0 } + [
                "run/pet-coupons.arazzo.yaml", "run/goto.arazzo.yaml",
            ]
        var keys: Set<String> = []
        var checked = 0
        let library = Self.library()
        for name in documents {
            let file = Self.folder.appendingPathComponent(name)
            let text = try String(contentsOf: file, encoding: .utf8)
            for (offset, length, key) in try NumberPlaces.numbers(in: text) {
                keys.insert(key)
                let values =
                    ["retryAfter", "retryLimit", "timeout"].contains(key) ? NumberPlaces.hostile : NumberPlaces.fewer
                for number in values {
                    let mutated = NumberPlaces.replacing(text, at: offset, length: length, with: number)
                    let report = PlanValidator.validate(SourceFile(path: file.path, text: mutated), library: library)
                    checked += 1
                    for diagnostic in report.diagnostics where diagnostic.severity == .error {
                        #expect(
                            diagnostic.range != nil || diagnostic.file != file.path,
                            "\(name), `\(key)` = \(number): \(diagnostic.message) has no location")
                    }
                }
            }
        }
        #expect(checked > 100)
        for field in ["retryAfter", "retryLimit", "timeout", "value"] {
            #expect(keys.contains(field), "no document holds a number at `\(field)`")
        }
    }

    /// The description's numbers (`minimum`, `maxLength`, `example`, …) at their limits: the document that binds
    /// it is checked against it without a crash.
    @Test func everyNumberOfItsDescriptionAtItsLimitsIsReadWithoutACrash() throws {
        let description = try String(
            contentsOf: Self.folder.appendingPathComponent("examples/pet-coupons.openapi.yaml"), encoding: .utf8)
        let document = try String(
            contentsOf: Self.folder.appendingPathComponent("run/pet-coupons.arazzo.yaml"), encoding: .utf8
        ).replacingOccurrences(of: "../examples/pet-coupons.openapi.yaml", with: "api.yaml")
        let temporary = TestFolders.unique("arazzo-numbers")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        let documentFile = temporary.appendingPathComponent("flow.arazzo.yaml")
        try Data(document.utf8).write(to: documentFile)
        var checked = 0
        for (offset, length, _) in try NumberPlaces.numbers(in: description) {
            for number in NumberPlaces.fewer {
                try Data(NumberPlaces.replacing(description, at: offset, length: length, with: number).utf8).write(
                    to: temporary.appendingPathComponent("api.yaml"))
                let library = PlanLibrary(apiLoader: OpenAPIDocumentLoader(), documentReader: ArazzoReader())
                _ = PlanValidator.validate(fileAt: documentFile.path, library: library)
                checked += 1
            }
        }
        #expect(checked > 20)
    }
}
