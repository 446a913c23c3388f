// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "reqplan",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "reqplan", targets: ["reqplan"]),
        .library(name: "ReqPlanSyntax", targets: ["ReqPlanSyntax"]),
        .library(name: "ReqPlanPlanner", targets: ["ReqPlanPlanner"]),
        .library(name: "ReqPlanTransport", targets: ["ReqPlanTransport"]),
        .library(name: "ReqPlanHTTP", targets: ["ReqPlanHTTP"]),
        .library(name: "ReqPlanRuntime", targets: ["ReqPlanRuntime"]),
        .library(name: "ReqPlanPresentation", targets: ["ReqPlanPresentation"]),
        .library(name: "ReqPlanLanguageServer", targets: ["ReqPlanLanguageServer"]),
        // `reqplan import`: curl command lines and HAR files read into plans, with the data flow found.
        .library(name: "ReqPlanImport", targets: ["ReqPlanImport"]),
        // The library for embedders: one import to load, validate and run a plan.
        .library(name: "ReqPlan", targets: ["ReqPlan"]),
        // The demo API, for `Examples/` and programs that try reqplan out against it.
        .library(name: "ReqPlanDemoAPI", targets: ["ReqPlanDemoAPI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.46.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/mattpolzin/OpenAPIKit", from: "6.4.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.8.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        // Only in ReqPlanSyntaxTests: the test that shows why data files' CSV is read by reqplan's own reader.
        .package(url: "https://github.com/swiftcsv/SwiftCSV", from: "0.10.0"),
    ],
    targets: [
        // Source files, locations, diagnostics, the AST, the YAML reader and the `${{ }}` language.
        .target(
            name: "ReqPlanSyntax",
            dependencies: [.product(name: "Yams", package: "Yams")]
        ),
        // XPath 1.0 over reqplan's own XML and HTML reader: `xpath(text, expression)`. The planner
        // compiles literal expressions to check them; the runtime evaluates them.
        .target(
            name: "ReqPlanXPath",
            dependencies: ["ReqPlanSyntax"]
        ),
        // JSONPath (RFC 9535) over the language's values: `jsonpath(value, query)`. The planner compiles
        // literal queries to check them; the runtime evaluates them.
        .target(
            name: "ReqPlanJSONPath",
            dependencies: ["ReqPlanSyntax"]
        ),
        // Name resolution, dependency edges, cycles, the DAG and static analyses.
        .target(
            name: "ReqPlanPlanner",
            dependencies: ["ReqPlanSyntax", "ReqPlanXPath", "ReqPlanJSONPath"]
        ),
        // Reads OpenAPI 3.0/3.1 documents (OpenAPIKit) into the planner's API description model
        // (`ReqPlanPlanner/APITypes`): the only target that imports OpenAPIKit.
        .target(
            name: "ReqPlanOpenAPI",
            dependencies: [
                "ReqPlanPlanner",
                "ReqPlanSyntax",
                .product(name: "OpenAPIKit", package: "OpenAPIKit"),
                .product(name: "OpenAPIKit30", package: "OpenAPIKit"),
                .product(name: "OpenAPIKitCompat", package: "OpenAPIKit"),
                .product(name: "Yams", package: "Yams"),
            ]
        ),
        // Reads Arazzo workflow documents (1.0.x, 1.1.x) into plans: each workflow becomes the plan the
        // planner checks and the executor runs (`ReqPlanPlanner.PlanDocumentReader`). No networking.
        .target(
            name: "ReqPlanArazzo",
            dependencies: [
                "ReqPlanPlanner", "ReqPlanSyntax", "ReqPlanXPath", "ReqPlanJSONPath",
            ]
        ),
        // `reqplan import`: other tools' requests (curl command lines, HAR files, collections) read into an
        // `ImportedPlan`, the data flow between them found, and written as plan text; starter plans from an API
        // description (the planner's `APIDescription`, read by `ReqPlanOpenAPI`). No networking, no runtime.
        .target(
            name: "ReqPlanImport",
            dependencies: ["ReqPlanSyntax", "ReqPlanPlanner"]
        ),
        // What crosses a transport, without one: the `Transport` protocol, `PreparedRequest`,
        // `TransportResponse`, `TransportError`, the URL of a request, redirects, cookies and the cookie file,
        // proxy and connection settings, and the secrets a run learns on the wire. No networking: the runtime
        // runs plans over `any Transport` with this alone.
        .target(
            name: "ReqPlanTransport",
            dependencies: ["ReqPlanSyntax"]
        ),
        // HTTP: reqplan's own client over SwiftNIO (HTTP/1.1 and HTTP/2, its pool and framing), AsyncHTTPClient
        // as the library path, TLS settings and diagnosis: the transports. The only target but the demo API
        // that imports NIO.
        .target(
            name: "ReqPlanHTTP",
            dependencies: [
                "ReqPlanSyntax",
                "ReqPlanTransport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTPCompression", package: "swift-nio-extras"),
                .product(name: "NIOExtras", package: "swift-nio-extras"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
            ]
        ),
        // The executor (structured concurrency) over a `Transport`: scheduling, evaluation, request
        // building, expectations, results, inputs, suites. Links no networking: it is given the transport.
        .target(
            name: "ReqPlanRuntime",
            dependencies: [
                "ReqPlanPlanner",
                "ReqPlanSyntax",
                "ReqPlanXPath",
                "ReqPlanJSONPath",
                "ReqPlanTransport",
                .product(name: "Logging", package: "swift-log"),
                // HMAC-SHA256, SHA-256 and MD5 for request signing (`Auth/`): AWS SigV4 and HTTP Digest.
                .product(name: "Crypto", package: "swift-crypto"),
                // The signed client assertion of OAuth 2.0's `private_key_jwt` (RFC 7523), RS256, ES256-512, EdDSA.
                .product(name: "JWTKit", package: "jwt-kit"),
                // Latency histograms of `reqplan load` (`Load/`): exact percentiles, merged across shards.
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ]
        ),
        // A transport over Foundation's URLSession (FoundationNetworking, libcurl, on Linux), for embedders;
        // the command line does not link it.
        .target(
            name: "ReqPlanURLSession",
            dependencies: ["ReqPlanHTTP", "ReqPlanTransport", "ReqPlanSyntax"]
        ),
        // The composition root (`Pipeline`): the one place that wires the stages (the plan and Arazzo readers
        // with the OpenAPI binding, the checks, input resolution, the executor over the HTTP transport it
        // builds). Every command, the language server, the demo and the library go through it.
        .target(
            name: "ReqPlanPipeline",
            dependencies: [
                "ReqPlanSyntax", "ReqPlanPlanner", "ReqPlanOpenAPI", "ReqPlanArazzo", "ReqPlanRuntime", "ReqPlanHTTP",
                "ReqPlanTransport", "ReqPlanImport",
            ]
        ),
        // The library façade (`import ReqPlan`): load, validate and run a plan (or an Arazzo workflow, bound to
        // its OpenAPI descriptions, through the same `Pipeline` as the command line) with typed inputs and
        // outputs, progress events and task cancellation, over the NIO or the URLSession transport.
        .target(
            name: "ReqPlan",
            dependencies: [
                "ReqPlanSyntax", "ReqPlanPlanner", "ReqPlanRuntime", "ReqPlanHTTP", "ReqPlanTransport",
                "ReqPlanURLSession",
                "ReqPlanPipeline", "ReqPlanPresentation",
            ]
        ),
        // Everything reqplan shows: the live progress, run summaries, the verbose log, validate's
        // text/json/github output, Mermaid/DOT/explain, and the reports of `reqplan run --report` (JSON,
        // JUnit XML, Chrome trace events). The runtime and the planner give facts and events; this renders them.
        .target(
            name: "ReqPlanPresentation",
            dependencies: ["ReqPlanRuntime", "ReqPlanTransport", "ReqPlanPlanner", "ReqPlanSyntax"]
        ),
        // `reqplan lsp`: a Language Server Protocol server over stdio that publishes the validator's
        // diagnostics as the user types. Checks, never runs: no networking, no runtime.
        .target(
            name: "ReqPlanLanguageServer",
            dependencies: ["ReqPlanSyntax", "ReqPlanPlanner"]
        ),
        // A Hummingbird server that serves the example plans and fault endpoints, for tests and `reqplan demo`.
        .target(
            name: "ReqPlanDemoAPI",
            dependencies: [
                "ReqPlanSyntax",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        // The command-line interface: parses arguments and prints.
        .executableTarget(
            name: "reqplan",
            dependencies: [
                "ReqPlanSyntax",
                "ReqPlanPlanner",
                "ReqPlanRuntime",
                "ReqPlanHTTP", "ReqPlanTransport",
                "ReqPlanPresentation",
                "ReqPlanDemoAPI",
                "ReqPlanPipeline",
                "ReqPlanLanguageServer",
                "ReqPlanImport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Benchmarks of the executor's own overhead (`swift run -c release reqplan-bench scheduler`), and the floor
        // of an HTTP/1.1 client over SwiftNIO on this machine (`reqplan-bench nio-floor`).
        .executableTarget(
            name: "reqplan-bench",
            dependencies: [
                "ReqPlanRuntime", "ReqPlanHTTP", "ReqPlanTransport", "ReqPlanPlanner", "ReqPlanSyntax",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Sources/ReqPlanBench"
        ),
        .testTarget(
            name: "ReqPlanSyntaxTests",
            dependencies: [
                "ReqPlanSyntax", "ReqPlanTestSupport",
                // Yams, to check that the plan reader's composer composes what Yams composes.
                .product(name: "Yams", package: "Yams"),
                // SwiftCSV, to show what it does with the CSV `DataFile` reads by its own reader
                // (`DataFileTests.swiftCSVDoesNotServe`).
                .product(name: "SwiftCSV", package: "SwiftCSV"),
            ]
        ),
        .testTarget(
            name: "ReqPlanXPathTests",
            // ReqPlanTestSupport for `.timeSensitive`: the budget tests measure a cancellation.
            dependencies: ["ReqPlanXPath", "ReqPlanSyntax", "ReqPlanTestSupport"]
        ),
        // Runs the JSONPath Compliance Test Suite (`Tests/Fixtures/jsonpath/cts.json`).
        .testTarget(
            name: "ReqPlanJSONPathTests",
            // ReqPlanTestSupport for `.timeSensitive`: the budget tests measure a cancellation.
            dependencies: ["ReqPlanJSONPath", "ReqPlanSyntax", "ReqPlanTestSupport"]
        ),
        .testTarget(
            name: "ReqPlanPlannerTests",
            dependencies: [
                "ReqPlanPlanner", "ReqPlanSyntax", "ReqPlanTestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        // What `reqplan validate` prints, as golden files: the corpus of invalid plans and plans with warnings
        // (`Tests/Corpus`) and plans bound to OpenAPI documents (`Tests/Fixtures/openapi/golden`). Apart from
        // the planner's and the reader's tests, which import no presentation.
        .testTarget(
            name: "ReqPlanGoldenTests",
            dependencies: [
                "ReqPlanPresentation", "ReqPlanArazzo", "ReqPlanOpenAPI", "ReqPlanPlanner", "ReqPlanSyntax",
                "ReqPlanTestSupport", "ReqPlanImport", "ReqPlanPipeline",
            ]
        ),
        // Test doubles shared by the runtime and report tests, plan files in a temporary folder, the ways a
        // request goes on the wire (`Wire`: both clients, both schemes, URLSession) and the small servers the
        // transport tests answer with, and the third-party servers (nginx, tinyproxy, httpbin) and test
        // certificates the transport and end-to-end tests use (not a product).
        .target(
            name: "ReqPlanTestSupport",
            dependencies: [
                "ReqPlanRuntime", "ReqPlanHTTP", "ReqPlanTransport", "ReqPlanPlanner", "ReqPlanSyntax",
                "ReqPlanURLSession",
                "ReqPlanDemoAPI",
                .product(name: "NIOCore", package: "swift-nio"),
                // `ResponseDecoding` runs a response decoder in an `EmbeddedChannel`.
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                // `NumberPlaces` finds the numbers of a YAML document by Yams' marks.
                .product(name: "Yams", package: "Yams"),
            ],
            path: "Tests/ReqPlanTestSupport"
        ),
        // The transport's tests, in folders like `Sources/ReqPlanHTTP`'s; none runs a plan (those are the
        // runtime's tests).
        .testTarget(
            name: "ReqPlanHTTPTests",
            dependencies: [
                "ReqPlanHTTP", "ReqPlanTransport", "ReqPlanSyntax", "ReqPlanDemoAPI", "ReqPlanTestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        .testTarget(
            name: "ReqPlanRuntimeTests",
            dependencies: [
                "ReqPlanRuntime", "ReqPlanHTTP", "ReqPlanTransport", "ReqPlanPlanner", "ReqPlanSyntax",
                "ReqPlanDemoAPI",
                "ReqPlanTestSupport", "ReqPlanPresentation",
                .product(name: "PropertyBased", package: "swift-property-based"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                // Keys made and signatures verified independently of jwt-kit (`PrivateKeyJWTTests`).
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "ReqPlanLibraryTests",
            // ReqPlanTestSupport for `.timeSensitive` only: the tests use the library as an embedder would.
            dependencies: ["ReqPlan", "ReqPlanDemoAPI", "ReqPlanTestSupport"]
        ),
        .testTarget(
            name: "ReqPlanPresentationTests",
            dependencies: [
                "ReqPlanPresentation", "ReqPlanRuntime", "ReqPlanHTTP", "ReqPlanTransport", "ReqPlanPlanner",
                "ReqPlanSyntax",
                "ReqPlanTestSupport",
            ],
            exclude: ["Golden"]
        ),
        // The language server's framing, positions, edits and diagnostics, in process; the protocol-level
        // tests (pytest-lsp against `reqplan lsp`) are run by ReqPlanCLITests' LanguageServerProtocolTests.
        .testTarget(
            name: "ReqPlanLanguageServerTests",
            dependencies: [
                "ReqPlanLanguageServer", "ReqPlanPlanner", "ReqPlanSyntax", "ReqPlanTestSupport",
                // The API features and RP0853's fix are tested against real descriptions, read as `reqplan lsp`
                // reads them; RP1014's fix against Arazzo documents written for other runners.
                "ReqPlanOpenAPI", "ReqPlanArazzo",
            ]
        ),
        .testTarget(
            name: "ReqPlanOpenAPITests",
            dependencies: [
                "ReqPlanOpenAPI", "ReqPlanPlanner", "ReqPlanSyntax",
                // `offCooperativePool`, for the tests that decode large descriptions.
                "ReqPlanTestSupport",
                .product(name: "OpenAPIKit", package: "OpenAPIKit"),
                // The bundler's tests read the bundled document as Yams' nodes.
                .product(name: "Yams", package: "Yams"),
            ]
        ),
        // The importers: the golden corpus of `Tests/Fixtures/import/<format>/`, each plan written checked clean
        // under `--strict` by the planner, and hostile inputs.
        .testTarget(
            name: "ReqPlanImportTests",
            dependencies: [
                "ReqPlanImport", "ReqPlanPlanner", "ReqPlanSyntax", "ReqPlanTestSupport",
                // The hostile-value tests read the written plan back as YAML, apart from reqplan's own reader.
                .product(name: "Yams", package: "Yams"),
            ]
        ),
        .testTarget(
            name: "ReqPlanArazzoTests",
            dependencies: [
                "ReqPlanArazzo", "ReqPlanOpenAPI", "ReqPlanPlanner", "ReqPlanSyntax", "ReqPlanTestSupport",
            ]
        ),
        .testTarget(
            name: "ReqPlanCLITests",
            dependencies: [
                "reqplan", "ReqPlanSyntax", "ReqPlanHTTP", "ReqPlanTransport", "ReqPlanDemoAPI", "ReqPlanTestSupport",
                // SchemaTests reads its cases from YAML fixtures (`Tests/Fixtures/schema`).
                .product(name: "Yams", package: "Yams"),
            ],
            exclude: ["Schema", "Golden"]  // check_schema.py, run with python3 by SchemaTests
        ),
    ],
    swiftLanguageModes: [.v6]
)

// libFuzzer targets (FUZZING.md, `scripts/fuzz.sh`). Declared only when REQPLAN_FUZZ is set, as
// swift-nio keeps its fuzzers apart: `swift build`, `swift test` and CI neither build nor link them.
if Context.environment["REQPLAN_FUZZ"] != nil {
    package.targets += [
        // Declares libFuzzer's `LLVMFuzzerRunDriver`, which each target's `main.swift` calls.
        .target(name: "CFuzzerDriver", path: "Fuzz/CFuzzerDriver"),
        // Plan text through everything `reqplan validate` does to it, and `${{ }}` expressions.
        .executableTarget(
            name: "fuzz-plan",
            dependencies: ["CFuzzerDriver", "ReqPlanSyntax", "ReqPlanPlanner"],
            path: "Fuzz/PlanReader"
        ),
        // An XPath expression and an XML or HTML document, as `xpath()` evaluates them, within small limits.
        .executableTarget(
            name: "fuzz-xpath",
            dependencies: ["CFuzzerDriver", "ReqPlanSyntax", "ReqPlanXPath"],
            path: "Fuzz/XPath"
        ),
        // Raw bytes from a server through the pipeline of `ReqPlanClient`'s HTTP/1.1 connections.
        .executableTarget(
            name: "fuzz-http1-response",
            dependencies: [
                "CFuzzerDriver", "ReqPlanHTTP", "ReqPlanTransport", "ReqPlanSyntax",
                // `ResponseDecoding`, to compare reqplan's response decoder with NIO's on each input.
                "ReqPlanTestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Fuzz/HTTP1Response"
        ),
        // What an editor sends `reqplan lsp`, as raw bytes, through the server's whole session.
        .executableTarget(
            name: "fuzz-lsp",
            dependencies: ["CFuzzerDriver", "ReqPlanLanguageServer", "ReqPlanSyntax"],
            path: "Fuzz/LanguageServer"
        ),
        // An Arazzo document through everything `reqplan validate` does to it, against a real description.
        .executableTarget(
            name: "fuzz-arazzo",
            dependencies: ["CFuzzerDriver", "ReqPlanArazzo", "ReqPlanOpenAPI", "ReqPlanPlanner", "ReqPlanSyntax"],
            path: "Fuzz/ArazzoReader"
        ),
        // A JSONPath query and a JSON document: compiled as the planner does, evaluated within small limits.
        .executableTarget(
            name: "fuzz-jsonpath",
            dependencies: ["CFuzzerDriver", "ReqPlanJSONPath", "ReqPlanSyntax"],
            path: "Fuzz/JSONPath"
        ),
        // An inputs file or environment, read, checked against a plan's inputs and resolved.
        .executableTarget(
            name: "fuzz-inputs",
            dependencies: ["CFuzzerDriver", "ReqPlanRuntime", "ReqPlanPlanner", "ReqPlanSyntax"],
            path: "Fuzz/InputsFile"
        ),
        // A data file of `reqplan load` (CSV or JSON Lines), read, resolved against a plan's inputs and handed out.
        .executableTarget(
            name: "fuzz-data",
            dependencies: ["CFuzzerDriver", "ReqPlanRuntime", "ReqPlanPlanner", "ReqPlanSyntax"],
            path: "Fuzz/DataFile"
        ),
        // What `reqplan import` reads (curl, HAR, Postman, Insomnia, Hurl, OpenCollection, OpenAPI), imported,
        // and the plan it writes read back.
        .executableTarget(
            name: "fuzz-import",
            dependencies: ["CFuzzerDriver", "ReqPlanImport", "ReqPlanPipeline", "ReqPlanPlanner", "ReqPlanSyntax"],
            path: "Fuzz/Import"
        ),
        // What a server or a browser sends the authentication flows: Digest challenges, OAuth 2.0 token answers,
        // the authorization code's redirect; and requests signed with AWS Signature Version 4.
        .executableTarget(
            name: "fuzz-auth",
            dependencies: ["CFuzzerDriver", "ReqPlanRuntime", "ReqPlanSyntax", "ReqPlanTransport"],
            path: "Fuzz/Auth"
        ),
        // JSON reports, as `reqplan report merge` reads them, merged and rendered.
        .executableTarget(
            name: "fuzz-report-merge",
            dependencies: ["CFuzzerDriver", "ReqPlanPresentation", "ReqPlanSyntax"],
            path: "Fuzz/ReportMerge"
        ),
    ]
}
