import Foundation
import ReqPlanArazzo
import ReqPlanOpenAPI
import ReqPlanPlanner
import ReqPlanSyntax
import Testing

/// Redocly Respect's `x-security`: each item becomes the `auth` of the step's request, the scheme named in
/// the source description or written inline, its values translated as the step's parameters are.
@Suite("Redocly Respect's x-security")
struct RespectSecurityTests {
    /// A document with one workflow (`security` its `x-security`, if any) of `steps`, against pet-coupons.
    static func document(steps: String, security: String = "") -> String {
        """
        arazzo: 1.0.1
        info: { title: x-security, version: 1.0.0 }
        sourceDescriptions:
          - { name: petstore, url: ../examples/pet-coupons.openapi.yaml, type: openapi }
        workflows:
          - workflowId: pets
            inputs:
              type: object
              properties:
                key: { type: string }
                user: { type: string }
                password: { type: string, format: password }
        \(security)
            steps:
        \(steps)
        """
    }

    /// A step that reads pet 10, with `security` (indented as a step's key) as its `x-security`.
    static func step(_ id: String, _ security: String = "") -> String {
        """
              - stepId: \(id)
                operationId: getPetById
                parameters: [{ name: petId, in: path, value: 10 }]
                outputs: { name: $response.body#/name }
        \(security)
        """
    }

    /// The `auth` of each request step of `text`'s plan, by step id.
    static func auths(_ text: String) throws -> [String: RequestAuth] {
        let source = OtherRunnersTests.source(text)
        let result = OtherRunnersTests.reader.parse(source, file: source.path, entry: nil, limits: ParseLimits())
        let plan = try #require(result.plan, "\(result.diagnostics)")
        var found: [String: RequestAuth] = [:]
        for step in plan.steps {
            if let auth = step.request?.auth?.value { found[step.id.value] = auth }
        }
        return found
    }

    /// A template's text, its expressions written as `{path}`.
    static func text(_ template: Template) -> String {
        template.parts.map { part in
            switch part {
            case .text(let text): text
            case .expression(let expression): "{\(expression)}"
            }
        }.joined()
    }

    @Test("a named scheme and an inline one become the step's auth; a step's own items replace the workflow's")
    func itemsBecomeAuth() throws {
        let text = Self.document(
            steps: Self.step(
                "byKey",
                """
                        x-security:
                          - schemeName: api_key
                            values: { apiKey: $inputs.key }
                """)
                + "\n"
                + Self.step(
                    "byUser",
                    """
                            x-security:
                              - scheme: { type: http, scheme: basic }
                                values: { username: $inputs.user, password: '{$inputs.password}' }
                    """) + "\n" + Self.step("byWorkflow"),
            security: """
                    x-security:
                      - scheme: { type: oauth2, flows: {} }
                        values: { accessToken: $steps.byKey.outputs.name }
                """)
        let auths = try Self.auths(text)
        guard case .apiKey(let key)? = auths["byKey"] else {
            Issue.record("byKey: \(String(describing: auths["byKey"]))")
            return
        }
        #expect(key.place.value == .header && key.name.value == "api_key")
        #expect(Self.text(key.value).contains("inputs.key"))
        guard case .basic(let user, let password)? = auths["byUser"] else {
            Issue.record("byUser: \(String(describing: auths["byUser"]))")
            return
        }
        #expect(Self.text(user).contains("inputs.user") && Self.text(password).contains("inputs.password"))
        guard case .bearer(let token)? = auths["byWorkflow"] else {
            Issue.record("byWorkflow: \(String(describing: auths["byWorkflow"]))")
            return
        }
        #expect(Self.text(token).contains("byKey"))
        // Every input is read: none is reported unused, and the document is valid.
        #expect(OtherRunnersTests.codes(text).isEmpty, "\(OtherRunnersTests.codes(text))")
    }

    @Test("a value's expression is checked as a parameter's: an unknown input, a step output read before it exists")
    func valuesAreChecked() {
        let text = Self.document(
            steps: Self.step(
                "first",
                """
                        x-security:
                          - scheme: { type: http, scheme: bearer }
                            values: { token: $steps.second.outputs.name }
                          - scheme: { type: apiKey, in: query, name: k }
                            values: { apiKey: $inputs.kye }
                """) + "\n" + Self.step("second"))
        let codes = OtherRunnersTests.codes(text)
        // The output of a later step (RP1009), the misspelt input (RP0204), the second item not sent (RP1002).
        #expect(codes.contains { $0.hasPrefix("RP1009@") }, "\(codes)")
        #expect(codes.contains { $0.hasPrefix("RP0204@") }, "\(codes)")
        #expect(codes.contains { $0.hasPrefix("RP1002@") }, "\(codes)")
    }

    @Test("a workflow's items are reported once, not at each of its steps")
    func workflowItemsReportedOnce() {
        let text = Self.document(
            steps: Self.step("one") + "\n" + Self.step("two"),
            security: """
                    x-security:
                      - scheme: { type: http, scheme: bearer }
                        values: { accessToken: $inputs.key }
                """)
        let codes = OtherRunnersTests.codes(text)
        #expect(codes.filter { $0.hasPrefix("RP0103@") }.count == 1, "\(codes)")
    }

    @Test("schemeName on an x-operation step, which has no source description, is an error")
    func schemeNameOnXOperation() {
        let text = Self.document(
            steps: """
                      - stepId: raw
                        x-operation: { url: 'https://example.com/pets', method: get }
                        x-security:
                          - schemeName: api_key
                            values: { apiKey: $inputs.key }
                """)
        let codes = OtherRunnersTests.codes(text)
        #expect(codes.contains("RP0105@18"), "\(codes)")
    }

    @Test(
        "Respect's own x-security fixtures validate, each step's request sending the credential they describe",
        arguments: [
            ("x-security-api-key-auth", "apiKey"), ("x-security-oauth2-auth", "bearer"),
            ("x-security-scheme-apply-order", "bearer"),
        ])
    func respectsFixtures(name: String, kind: String) throws {
        let file = ArazzoFixtures.folder.appendingPathComponent(
            "real/redocly-respect/tests/e2e/respect/\(name)/\(name).arazzo.yaml")
        let reader = ArazzoReader(apiLoader: OpenAPIDocumentLoader(), allowFilesOutside: true)
        let text = try String(contentsOf: file, encoding: .utf8)
        let source = SourceFile(path: file.path, text: text)
        let result = reader.parse(source, file: file.path, entry: nil, limits: ParseLimits())
        let plan = try #require(result.plan, "\(result.diagnostics)")
        let auths = plan.steps.compactMap { $0.request?.auth?.value }
        #expect(auths.count == 1, "\(result.diagnostics)")
        switch auths.first {
        case .apiKey?: #expect(kind == "apiKey")
        case .bearer?: #expect(kind == "bearer")
        default: Issue.record("\(String(describing: auths.first))")
        }
        #expect(!result.diagnostics.contains { $0.severity == .error }, "\(result.diagnostics)")
    }
}
