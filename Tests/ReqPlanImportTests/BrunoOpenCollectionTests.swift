import Foundation
import ReqPlanImport
import ReqPlanPlanner
import ReqPlanSyntax
import Testing

/// `reqplan import bruno` of a collection saved as OpenCollection YAML: the same plan as its `.bru` form, one
/// file of a whole collection, credentials and bodies of each kind, and its files read within the folder.
@Suite struct BrunoOpenCollectionTests {
    /// The plan from its first key: the comments before name where it was read from.
    private static func body(_ plan: String) -> Substring {
        plan[(plan.range(of: "reqplan: 1")?.lowerBound ?? plan.startIndex)...]
    }

    @Test func aCollectionInYAMLGivesThePlanItsBruFormGives() throws {
        let bru = try BrunoImportTests.folder([
            "bruno.json": "{\"version\": \"1\", \"name\": \"c\", \"type\": \"collection\"}",
            "collection.bru":
                "headers {\n  X-C: 1\n}\n\nauth {\n  mode: bearer\n}\n\nauth:bearer {\n  token: {{tok}}\n}\n",
            "create.bru": """
            meta {
              name: create
              seq: 1
            }

            post {
              url: http://h.example/items?x=1
              body: json
              auth: inherit
            }

            params:query {
              x: 1
              ~y: 2
            }

            headers {
              X-A: a
            }

            body:json {
              {"name": "{{name}}", "n": 18446744073709551615}
            }

            vars:pre-request {
              name: widget
            }

            vars:post-response {
              id: res.body.id
            }

            assert {
              res.status: eq 201
              res.body.id: isNumber
              res.body.tags: length 2
              res.responseTime: lt 200
            }

            tests {
              test("ok", () => {});
            }
            """,
            "b/folder.bru": "meta {\n  name: b\n  seq: 1\n}\n",
            "b/read.bru":
                "meta {\n  name: read\n  seq: 1\n}\n\nget {\n  url: http://h.example/items/{{id}}\n  auth: none\n}\n",
        ])
        let yaml = try BrunoImportTests.folder([
            "opencollection.yml": """
            opencollection: 1.0.0
            info:
              name: c
            request:
              headers:
                - name: X-C
                  value: "1"
              auth:
                type: bearer
                token: "{{tok}}"
            """,
            "create.yml": """
            info:
              name: create
              type: http
              seq: 1
            http:
              method: POST
              url: http://h.example/items?x=1
              params:
                - name: x
                  value: "1"
                  type: query
                - name: y
                  value: "2"
                  type: query
                  disabled: true
              headers:
                - name: X-A
                  value: a
              body:
                type: json
                data: '{"name": "{{name}}", "n": 18446744073709551615}'
              auth: inherit
            runtime:
              variables:
                - name: name
                  value: widget
              actions:
                - type: set-variable
                  phase: after-response
                  selector: { expression: res.body.id, method: jsonq }
                  variable: { name: id, scope: runtime }
              assertions:
                - { expression: res.status, operator: eq, value: "201" }
                - { expression: res.body.id, operator: isNumber }
                - { expression: res.body.tags, operator: length, value: "2" }
                - { expression: res.responseTime, operator: lt, value: "200" }
              scripts:
                - type: tests
                  code: test("ok", () => {});
            """,
            "b/folder.yml": "info:\n  name: b\n  type: folder\n  seq: 1\n",
            "b/read.yml":
                "info:\n  name: read\n  type: http\n  seq: 1\nhttp:\n  method: GET\n  url: http://h.example/items/{{id}}\n",
        ])
        let fromBru = BrunoImportTests.importing(bru.path)
        let fromYAML = BrunoImportTests.importing(yaml.path)
        let plan = try #require(fromYAML.text, "\(fromYAML.diagnostics)")
        #expect(Self.body(plan) == Self.body(try #require(fromBru.text)), "\(plan)")
        #expect(plan.contains("steps.create.body.id") && plan.contains("18446744073709551615"), "\(plan)")
        #expect(BrunoImportTests.isValid(plan), "\(plan)")
        // The same warnings, each located in the YAML file where what it names is written.
        #expect(fromYAML.diagnostics.map(\.message) == fromBru.diagnostics.map(\.message))
        let responseTime = try #require(fromYAML.diagnostics.first { $0.message.contains("responseTime") })
        #expect(responseTime.file?.hasSuffix("create.yml") == true && responseTime.range?.start.line == 36)
    }

    @Test func aWholeCollectionInOneFileKeepsItsFoldersOrderAndEnvironment() throws {
        let root = try BrunoImportTests.folder([
            "export.yml": """
            opencollection: 1.0.0
            info: { name: one }
            config:
              environments:
                - name: dev
                  variables:
                    - { name: host, value: "https://dev.example" }
                    - { name: key, secret: true }
            items:
              - info: { name: last, type: http, seq: 9 }
                http: { method: DELETE, url: "{{host}}/last" }
              - info: { name: admin, type: folder, seq: 1 }
                request:
                  auth: { type: apikey, key: X-Key, value: "{{key}}", placement: header }
                items:
                  - info: { name: users, type: http, seq: 2 }
                    http: { method: GET, url: "{{host}}/users", auth: inherit }
                  - info: { name: login, type: http, seq: 1 }
                    http:
                      method: POST
                      url: "{{host}}/login"
                      body: { type: xml, data: "<login/>" }
              - info: { name: first, type: http, seq: 1 }
                http: { method: GET, url: "{{host}}/first" }
            """
        ])
        let result = BrunoImportTests.importing(root.appendingPathComponent("export.yml").path)
        let plan = try #require(result.text, "\(result.diagnostics)")
        let order = ["first:", "last:", "login:", "users:"].map { plan.range(of: "\n  \($0)")?.lowerBound }
        #expect(
            order.allSatisfy { $0 != nil } && order == order.sorted { ($0 ?? plan.endIndex) < ($1 ?? plan.endIndex) })
        #expect(plan.contains("# folder: admin") && plan.contains("X-Key") && plan.contains("application/xml"))
        #expect(plan.contains("default: \"https://dev.example\""), "\(plan)")
        #expect(plan.contains("secret: true"))
        #expect(BrunoImportTests.isValid(plan), "\(plan)")
    }

    @Test func credentialsAndBodiesOfEachKindAreConvertedOrWarnedOfAtTheirLine() throws {
        let root = try BrunoImportTests.folder([
            "opencollection.yml": "opencollection: 1.0.0\n",
            "oauth.yml": """
            info: { name: oauth, type: http, seq: 1 }
            http:
              method: GET
              url: https://h.example/me
              auth:
                type: oauth2
                flow: client_credentials
                accessTokenUrl: https://h.example/token
                credentials: { clientId: app, clientSecret: "{{secret}}", placement: body }
                scope: read
            """,
            "aws.yml": """
            info: { name: aws, type: http, seq: 2 }
            http:
              method: PUT
              url: https://h.example/bucket
              auth: { type: awsv4, accessKeyId: AKID, secretAccessKey: shh, region: eu-west-1, service: s3 }
              body:
                - title: unused
                  body: { type: text, data: first }
                - title: chosen
                  selected: true
                  body: { type: text, data: second }
            """,
            "ntlm.yml": """
            info: { name: ntlm, type: http, seq: 3 }
            http:
              method: POST
              url: https://h.example/upload
              auth: { type: ntlm, username: u, password: p }
              body:
                type: multipart-form
                data:
                  - { name: file, type: file, value: [a.png, b.png], contentType: image/png }
                  - { name: note, type: text, value: hi }
            """,
            "raw.yml": """
            info: { name: raw, type: http, seq: 4 }
            http:
              method: POST
              url: https://h.example/raw
              body:
                type: file
                data: [{ filePath: x.bin, contentType: application/octet-stream, selected: true }]
            """,
        ])
        let result = BrunoImportTests.importing(root.path)
        let plan = try #require(result.text, "\(result.diagnostics)")
        #expect(plan.contains("oauth2:") && plan.contains("client_auth: client_secret_post"), "\(plan)")
        #expect(plan.contains("aws_sigv4:") && plan.contains("region: eu-west-1") && plan.contains("second"))
        #expect(!plan.contains("first") && !plan.contains("shh"), "\(plan)")
        #expect(plan.contains("image/png") && plan.contains("note: hi"), "\(plan)")
        let ntlm = try #require(result.diagnostics.first { $0.message.contains("`ntlm` auth") })
        #expect(ntlm.code == .importSettingNotConverted && ntlm.file?.hasSuffix("ntlm.yml") == true)
        #expect(ntlm.range?.start.line == 3)
        #expect(
            result.diagnostics.contains { $0.message.contains("mode `file`") && $0.file?.hasSuffix("raw.yml") == true })
        #expect(BrunoImportTests.isValid(plan), "\(plan)")
    }

    @Test func theRootFileNamesItsFolderAndAFolderOfBothSyntaxesIsReadAsYAML() throws {
        let root = try BrunoImportTests.folder([
            "bruno.json": "{\"version\": \"1\", \"name\": \"c\", \"type\": \"collection\"}",
            "old.bru": "meta {\n  name: old\n  seq: 1\n}\n\nget {\n  url: http://h.example/old\n}\n",
            "opencollection.yml": "opencollection: 1.0.0\ninfo:\n  name: c\n",
            "new.yml": "info: { name: new, type: http }\nhttp: { method: GET, url: http://h.example/new }\n",
            "notes.yml": "title: not a request\n",
        ])
        let result = BrunoImportTests.importing(root.appendingPathComponent("opencollection.yml").path)
        let plan = try #require(result.text, "\(result.diagnostics)")
        #expect(plan.contains("/new") && !plan.contains("/old"), "\(plan)")
        let notes = try #require(result.diagnostics.first { $0.file?.hasSuffix("notes.yml") == true })
        #expect(notes.code == .importOptionNotConverted && notes.severity == .warning)
    }

    @Test func aYAMLLinkOutOfTheCollectionIsRefusedAndNotRead() throws {
        let root = try BrunoImportTests.folder([
            "opencollection.yml": "opencollection: 1.0.0\n",
            "a.yml": "info: { name: a, type: http }\nhttp: { method: GET, url: http://h.example/a }\n",
        ])
        let outside = try BrunoImportTests.folder([
            "secret.yml": "info: { name: secret, type: http }\nhttp: { method: GET, url: http://h.example/secret }\n"
        ])
        try FileManager.default.createSymbolicLink(
            atPath: root.appendingPathComponent("b.yml").path,
            withDestinationPath: outside.appendingPathComponent("secret.yml").path)
        try FileManager.default.createSymbolicLink(
            atPath: root.appendingPathComponent("environments").path, withDestinationPath: outside.path)
        try FileManager.default.createSymbolicLink(
            atPath: root.appendingPathComponent("env.yml").path, withDestinationPath: "/proc/self/environ")
        let read = CollectionFolder.read(atPath: root.path)
        #expect(read.sources.allSatisfy { !$0.text.contains("secret") && !$0.path.hasSuffix("env.yml") })
        #expect(read.diagnostics.count >= 2 && read.diagnostics.allSatisfy { $0.severity == .error })
        #expect(read.diagnostics.contains { $0.code == .fileOutsideFolder })
    }

    @Test func aRequestFileThatIsNotYAMLIsAnErrorAtItsLine() throws {
        let root = try BrunoImportTests.folder([
            "opencollection.yml": "opencollection: 1.0.0\n",
            "bad.yml": "info:\n  name: bad\nhttp: [unclosed\n",
        ])
        let result = BrunoImportTests.importing(root.path)
        #expect(result.failed)
        let error = try #require(result.diagnostics.first { $0.severity == .error })
        #expect(error.code == .yamlSyntax && error.file?.hasSuffix("bad.yml") == true && error.range != nil)
    }
}
