// swift-tools-version:6.0
import PackageDescription

// A program that embeds reqplan through the `ReqPlan` library, depending on this repository by path.
// Run it from the repository: `swift run --package-path Examples --scratch-path .build embed-plan`
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
        )
    ],
    swiftLanguageModes: [.v6]
)
