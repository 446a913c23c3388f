import Foundation
import ReqPlanTestSupport

/// A random plan for scheduler properties, with what the schedule must respect.
///
/// Top-level entries are requests, groups, sequences and for_each loops over requests, with
/// `needs` and `steps.X` references to earlier entries, random delays and random limits.
struct RandomPlan {
    /// One request the transport will see: a request step, or one item of a for_each.
    struct Unit {
        var path: String
        /// Paths that must have ended before this one starts.
        var prerequisites: Set<String>
        /// Limits of the scopes around it, as (scope name, limit).
        var limits: [(scope: String, limit: Int)]
    }

    var yaml: String
    var units: [String: Unit]
    var groupOrder: [String: [String]] = [:]
    var loopItems: [String: [Int]] = [:]
    var planLimit: Int?
    var scopeMembers: [String: Set<String>] = [:]

    init(seed: UInt64, allowLimits: Bool = true, allowDelays: Bool = true) {
        var random = SeededGenerator(seed: seed)
        var units: [String: Unit] = [:]
        var lines: [String] = []
        // For each top-level entry: the paths of all its units (what needing it means).
        var entryPaths: [String: Set<String>] = [:]
        var requestSteps: [String] = []  // top-level-visible request steps others may reference
        var scopeMembers: [String: Set<String>] = [:]
        let planLimit: Int? = allowLimits && Bool.random(using: &random) ? Int.random(in: 1...4, using: &random) : nil
        func delay() -> Int { allowDelays ? Int.random(in: 0...3, using: &random) : 0 }

        let count = Int.random(in: 3...10, using: &random)
        var entries: [String] = []
        for index in 0..<count {
            let name = "e\(index)"
            // Dependencies on earlier entries: some explicit, some through references.
            var needs: [String] = []
            var reference: String?
            if !entries.isEmpty {
                for _ in 0..<Int.random(in: 0...2, using: &random) {
                    if let pick = entries.randomElement(using: &random), !needs.contains(pick) { needs.append(pick) }
                }
                if Int.random(in: 0..<3, using: &random) == 0, let target = requestSteps.randomElement(using: &random) {
                    reference = target
                }
            }
            let needed = Set(needs.flatMap { entryPaths[$0] ?? [] })
            var prerequisites = needed
            if let reference { prerequisites.formUnion(entryPaths[reference] ?? ["/s/\(reference)"]) }
            let referenceQuery = reference.map { "&from=${{ steps.\($0).body.id }}" } ?? ""
            let needsLine = needs.isEmpty ? "" : "    needs: [\(needs.joined(separator: ", "))]\n"
            let kind = Int.random(in: 0..<10, using: &random)
            var paths: Set<String> = []
            var block = "  \(name):\n" + needsLine
            if kind < 5 {
                let path = "/s/\(name)"
                block += "    request: { url: \"\(path)?delay=\(delay())\(referenceQuery)\" }\n"
                units[path] = Unit(path: path, prerequisites: prerequisites, limits: [])
                paths = [path]
                requestSteps.append(name)
            } else if kind < 8 {
                let isSequence = kind == 7
                let limit: Int? =
                    allowLimits && !isSequence && Bool.random(using: &random)
                    ? Int.random(in: 1...2, using: &random) : nil
                if let limit { block += "    concurrency: \(limit)\n" }
                block += isSequence ? "    sequence:\n" : "    group:\n"
                var previous: Set<String> = []
                var order: [String] = []
                for member in 0..<Int.random(in: 2...4, using: &random) {
                    let memberName = "\(name)m\(member)"
                    let path = "/s/\(memberName)"
                    block +=
                        "      \(memberName): { request: { url: \"\(path)?delay=\(delay())\(member == 0 ? referenceQuery : "")\" } }\n"
                    // Only the first member carries the reference; the others wait for the group's needs.
                    var memberPrerequisites = member == 0 ? prerequisites : needed
                    if isSequence { memberPrerequisites.formUnion(previous) }
                    units[path] = Unit(
                        path: path, prerequisites: memberPrerequisites,
                        limits: limit.map { [(name, $0)] } ?? [])
                    previous = [path]
                    paths.insert(path)
                    order.append(memberName)
                }
                groupOrder[name] = order
                scopeMembers[name] = paths
            } else {
                let limit: Int? =
                    allowLimits && Bool.random(using: &random) ? Int.random(in: 1...2, using: &random) : nil
                let items = Array(0..<Int.random(in: 2...5, using: &random))
                block += "    for_each: [\(items.map(String.init).joined(separator: ", "))]\n"
                if let limit { block += "    concurrency: \(limit)\n" }
                block += "    request: { url: \"/s/\(name)-${{ item }}?delay=\(delay())\(referenceQuery)\" }\n"
                for item in items {
                    let path = "/s/\(name)-\(item)"
                    units[path] = Unit(
                        path: path, prerequisites: prerequisites,
                        limits: limit.map { [(name, $0)] } ?? [])
                    paths.insert(path)
                }
                loopItems[name] = items
                scopeMembers[name] = paths
            }
            entryPaths[name] = paths
            entries.append(name)
            lines.append(block)
        }
        var header = "reqplan: 1\ndefaults: { base_url: \"http://test\" }\n"
        if let planLimit { header += "concurrency: \(planLimit)\n" }
        self.yaml = header + "steps:\n" + lines.joined()
        self.units = units
        self.planLimit = planLimit
        self.scopeMembers = scopeMembers
    }
}
