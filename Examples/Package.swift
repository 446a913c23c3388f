// swift-tools-version:6.0
import PackageDescription

// A program that embeds reqplan through the `ReqPlan` library, depending on this repository by path.
// Run them from the repository: `swift run --package-path Examples --scratch-path .build embed-plan` (a plan
// with progress events and typed outputs) and `… embed-workflow` (a plan bound to an OpenAPI description,
// and an Arazzo workflow)
// (the scratch path shares the repository's build, so the dependencies are not built twice).
let package = Package(
    name: "reqplan-examples",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "reqplan", path: "..")
    ],
    targets: [
        .executableTarget(
            name: "embed-plan",
            dependencies: [
                .product(name: "ReqPlan", package: "reqplan"),
                .product(name: "ReqPlanDemoAPI", package: "reqplan"),
            ],
            path: "Sources/EmbedPlan"
        ),
        .executableTarget(
            name: "embed-workflow",
            dependencies: [
                .product(name: "ReqPlan", package: "reqplan"),
                .product(name: "ReqPlanDemoAPI", package: "reqplan"),
            ],
            path: "Sources/EmbedWorkflow"
        ),
    ],
    swiftLanguageModes: [.v6]
)
