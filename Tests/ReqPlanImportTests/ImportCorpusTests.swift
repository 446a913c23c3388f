import Foundation
import ReqPlanImport
import ReqPlanPlanner
import ReqPlanSyntax
import ReqPlanTestSupport
import Testing

/// The golden corpus of `reqplan import`: each input in `Tests/Fixtures/import/<format>/` beside
/// `NAME.plan.yaml`, the plan written, and `NAME.warnings`, what the import says on standard error; and each
/// plan written is valid under `validate --strict`.
///
/// Run with `RECORD_GOLDEN=1` to (re)write the goldens from the current output (the recording run fails).
@Suite("Golden corpus of imports")
struct ImportCorpusTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/import")

    /// The inputs of a format: `curl/*.sh`, `har/*.har`, `postman/*.postman_collection.json`, sorted.
    static func cases(_ format: ImportFormat) -> [String] {
        let folder = fixtures.appendingPathComponent(format.rawValue)
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        if format == .bruno {
            // A Bruno collection is a folder holding `bruno.json`; one saved as OpenCollection YAML is a folder
            // holding `opencollection.yml` (in `opencollection/`), or one `.yml` file of it all.
            let openCollection = fixtures.appendingPathComponent("opencollection")
            let yaml = ((try? FileManager.default.contentsOfDirectory(atPath: openCollection.path)) ?? []).filter {
                $0.hasSuffix(".yml")
                    || FileManager.default.fileExists(
                        atPath: openCollection.appendingPathComponent($0 + "/opencollection.yml").path)
            }
            return files.filter {
                FileManager.default.fileExists(atPath: folder.appendingPathComponent($0 + "/bruno.json").path)
            }.sorted().map { "bruno/" + $0 } + yaml.sorted().map { "opencollection/" + $0 }
        }
        return files.filter { suffix(of: $0, format) != nil }.sorted().map { format.rawValue + "/" + $0 }
    }

    /// The suffix of `name` that makes it an input of `format`, if it has one.
    static func suffix(of name: String, _ format: ImportFormat) -> String? {
        suffixes[format, default: []].first { name.hasSuffix($0) }
    }

    static let suffixes: [ImportFormat: [String]] = [
        .curl: [".sh"], .har: [".har"], .postman: [".postman_collection.json"],
        .insomnia: [".insomnia.yaml", ".insomnia.json"], .hurl: [".hurl"], .bruno: [".yml"],
    ]

    /// The format of a case: its folder's, OpenCollection YAML being Bruno's.
    static func format(of name: String) -> ImportFormat? {
        name.hasPrefix("opencollection/") ? .bruno : ImportFormat(rawValue: String(name.prefix { $0 != "/" }))
    }

    static let allCases = ImportFormat.allCases.flatMap(cases)

    /// The files a case imports: its input, and beside a Postman collection its environment
    /// (`NAME.postman_environment.json`), when there is one.
    static func sources(of name: String) throws -> [SourceFile] {
        if name.hasPrefix("bruno/") || name.hasPrefix("opencollection/") {
            let read = CollectionFolder.read(atPath: fixtures.appendingPathComponent(name).path)
            let prefix = fixtures.path + "/"
            return read.sources.map { SourceFile(path: String($0.path.dropFirst(prefix.count)), text: $0.text) }
        }
        var names = [name]
        if name.hasSuffix(".postman_collection.json") {
            let environment = name.replacingOccurrences(
                of: ".postman_collection.json", with: ".postman_environment.json")
            if FileManager.default.fileExists(atPath: fixtures.appendingPathComponent(environment).path) {
                names.append(environment)
            }
        }
        return try names.map { name in
            SourceFile(path: name, text: try String(contentsOf: fixtures.appendingPathComponent(name), encoding: .utf8))
        }
    }

    @Test func theCorpusHasCasesOfEachFormat() {
        #expect(Self.cases(.curl).count >= 15)
        #expect(Self.cases(.har).count >= 2)
        #expect(Self.cases(.postman).count >= 15)
        #expect(Self.cases(.insomnia).count >= 10)
        #expect(Self.cases(.bruno).filter { $0.hasPrefix("bruno/") }.count >= 2)
        #expect(Self.cases(.bruno).filter { $0.hasPrefix("opencollection/") }.count >= 5)
        #expect(Self.cases(.hurl).count >= 8)
    }

    @Test("imported plan", arguments: allCases)
    func importedPlanMatchesItsGoldenAndValidatesStrictly(_ name: String) throws {
        let format = try #require(Self.format(of: name))
        let file = Self.fixtures.appendingPathComponent(name)
        let result = Importer.importPlan(format, from: try Self.sources(of: name))
        let warnings = DiagnosticRenderer(colors: false, files: result.sources).text(result.diagnostics)
        let text = try #require(result.text, "\(warnings)")
        let stem = URL(fileURLWithPath: String(file.path.dropLast((Self.suffix(of: name, format) ?? "").count)))
        try Golden.check(text, against: stem.appendingPathExtension("plan.yaml"))
        try Golden.check(warnings, against: stem.appendingPathExtension("warnings"))
        let report = PlanValidator.validate(SourceFile(path: stem.lastPathComponent + ".plan.yaml", text: text))
        let checked = PlanValidator.checkRunValues([report], inputs: [], environment: [:])
        let shown = DiagnosticRenderer(colors: false, files: [SourceFile(path: report.path, text: text)])
            .text(checked.flatMap(\.diagnostics))
        #expect(checked.allSatisfy { $0.isValid(strict: true) }, "\(shown)")
    }
}
