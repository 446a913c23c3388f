import Foundation

/// `Tests/Fixtures/openapi`: the API descriptions the reader's tests read (see the README there).
enum OpenAPIFixtures {
    static let folder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/openapi")
}
