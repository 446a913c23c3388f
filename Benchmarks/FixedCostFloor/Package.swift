// swift-tools-version:6.0
// The floor of a small run's fixed cost on this stack (BENCHMARKS.md, "Fixed cost of a small run"): the
// smallest Swift programs that do a part of what `reqplan run` of a one-request plan does, each built
// statically as reqplan's Install section builds it, timed beside curl by `scripts/fixed-cost-floor.sh`.
// Not part of reqplan: nothing depends on it, and CI does not build it.
import PackageDescription

let package = Package(
    name: "FixedCostFloor",
    dependencies: [
        // The same libraries, at the same versions, as reqplan's Package.swift.
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
        .package(url: "https://github.com/mattpolzin/OpenAPIKit", from: "6.4.0"),
    ],
    targets: [
        // Prints a line: the Swift runtime's start-up alone.
        .executableTarget(name: "floor-print"),
        // Reads a plan file with Yams and prints its URL: the runtime, Foundation (which Yams imports) and libyaml.
        .executableTarget(name: "floor-yams", dependencies: ["FloorPlan"]),
        // Decodes an OpenAPI description with OpenAPIKit and prints its title: the runtime and what OpenAPIKit links.
        .executableTarget(
            name: "floor-openapikit",
            dependencies: [.product(name: "OpenAPIKit", package: "OpenAPIKit")]
        ),
        // Fetches a URL with SwiftNIO's HTTP/1.1 client codec and nothing else.
        .executableTarget(name: "floor-nio", dependencies: ["FloorFetch"]),
        // Reads the plan with Yams, then fetches its URL with SwiftNIO: a one-request plan's run with nothing
        // of reqplan in it (no argument parser, no checks, no outputs).
        .executableTarget(name: "floor-nio-yams", dependencies: ["FloorFetch", "FloorPlan"]),
        // The same with the plan read from libyaml's events, as reqplan's own composer reads it: Yams linked, its
        // composer and resolver (and their regular expressions) not run.
        .executableTarget(name: "floor-nio-libyaml", dependencies: ["FloorFetch", "FloorPlan"]),
        .target(name: "FloorPlan", dependencies: [.product(name: "Yams", package: "Yams")]),
        .target(
            name: "FloorFetch",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
    ]
)
