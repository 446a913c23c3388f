// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "reqplan",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "reqplan", targets: ["reqplan"]),
        .library(name: "ReqPlanSyntax", targets: ["ReqPlanSyntax"]),
        .library(name: "ReqPlanPlanner", targets: ["ReqPlanPlanner"]),
    ],
    dependencies: [
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        // Source files, locations, diagnostics, the AST, the YAML reader and the `${{ }}` language.
        .target(
            name: "ReqPlanSyntax",
            dependencies: [.product(name: "Yams", package: "Yams")]
        ),
        // Name resolution, dependency edges, cycles, the DAG and static analyses.
        .target(
            name: "ReqPlanPlanner",
            dependencies: ["ReqPlanSyntax"]
        ),
        // The command-line interface: parses arguments and prints.
        .executableTarget(
            name: "reqplan",
            dependencies: [
                "ReqPlanSyntax",
                "ReqPlanPlanner",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "ReqPlanSyntaxTests",
            dependencies: ["ReqPlanSyntax"]
        ),
        .testTarget(
            name: "ReqPlanPlannerTests",
            dependencies: ["ReqPlanPlanner", "ReqPlanSyntax"]
        ),
        .testTarget(
            name: "ReqPlanCLITests",
            dependencies: ["reqplan", "ReqPlanPlanner", "ReqPlanSyntax"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
