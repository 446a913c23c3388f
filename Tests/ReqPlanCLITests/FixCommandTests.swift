import Foundation
import Testing

/// `reqplan fix`: a diff by default, the file written with `--write`, a file with errors no fix fixes left
/// alone unless `--allow-errors`, and the exit codes.
@Suite(.serialized) struct FixCommandTests {
    /// Two misspellings with one candidate each: a key and a step id.
    static let fixable = """
        reqplan: 1
        steps:
          login: { request: { url: "http://127.0.0.1:1/login" } }
          fetch:
            need: [login]
            request: { url: "http://127.0.0.1:1/${{ steps.logn.status }}" }

        """

    /// A misspelt key, and a step id with no candidate.
    static let unfixable = """
        reqplan: 1
        steps:
          a:
            need: [b]
            request: { url: "http://127.0.0.1:1/a/${{ steps.nope.body }}" }
          b: { request: { url: "http://127.0.0.1:1/b" } }

        """

    @Test func aDiffIsPrintedAndTheFileIsLeftAsItWas() throws {
        let file = try CommandRunner.temporaryPlan(Self.fixable)
        let result = try CommandRunner.run(["fix", file.path])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(
            result.stdout.hasPrefix("--- a/\(file.path)\n+++ b/\(file.path)\n@@ -2,5 +2,5 @@\n"), "\(result.stdout)")
        #expect(result.stdout.contains("\n-    need: [login]\n"))
        #expect(result.stdout.contains("\n+    needs: [login]\n"))
        #expect(result.stdout.contains(#"+    request: { url: "http://127.0.0.1:1/${{ steps.login.status }}" }"#))
        #expect(result.stderr.contains("would fix 2 problems"), "\(result.stderr)")
        #expect(try String(contentsOf: file, encoding: .utf8) == Self.fixable)
    }

    @Test func writeFixesTheFileInPlace() throws {
        let file = try CommandRunner.temporaryPlan(Self.fixable)
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: file.path)
        let result = try CommandRunner.run(["fix", "--write", file.path])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.isEmpty)
        let fixed = try String(contentsOf: file, encoding: .utf8)
        #expect(fixed.contains("    needs: [login]\n") && fixed.contains("steps.login.status"), "\(fixed)")
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        #expect(mode == 0o640)
        #expect(try CommandRunner.run(["validate", file.path]).status == 0)
        // Nothing left to fix: no diff, still 0.
        let again = try CommandRunner.run(["fix", file.path])
        #expect(again.status == 0 && again.stdout.isEmpty, "\(again.stdout)\(again.stderr)")
    }

    @Test func aFileWithErrorsNoFixFixesIsNotChangedUnlessAllowed() throws {
        let file = try CommandRunner.temporaryPlan(Self.unfixable)
        let refused = try CommandRunner.run(["fix", "--write", file.path])
        #expect(refused.status == 1, "\(refused.stdout)\(refused.stderr)")
        #expect(refused.stderr.contains("not changed: 1 error would remain that no fix fixes"), "\(refused.stderr)")
        #expect(refused.stderr.contains("unknown step `nope`"), "\(refused.stderr)")
        #expect(try String(contentsOf: file, encoding: .utf8) == Self.unfixable)
        #expect(try CommandRunner.run(["fix", file.path]).stdout.isEmpty)

        let allowed = try CommandRunner.run(["fix", "--write", "--allow-errors", file.path])
        #expect(allowed.status == 1, "\(allowed.stdout)\(allowed.stderr)")
        let fixed = try String(contentsOf: file, encoding: .utf8)
        #expect(fixed.contains("    needs: [b]\n") && fixed.contains("steps.nope.body"), "\(fixed)")
    }

    @Test func aWrongCommandLineExits64() throws {
        #expect(try CommandRunner.run(["fix"]).status == 64)
        #expect(try CommandRunner.run(["fix", "--frobnicate", "plans"]).status == 64)
    }
}
