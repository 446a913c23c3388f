import Foundation

/// The Arazzo documents the tests read.
enum ArazzoFixtures {
    /// `Tests/Fixtures/arazzo`.
    static let folder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/arazzo")
}
