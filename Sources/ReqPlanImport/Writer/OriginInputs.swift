/// The origins (`scheme://host:port`) of an imported plan's URLs as inputs: the one most requests go to is
/// `base_url` (read by `defaults.base_url`, so its URLs are written as paths), each other one `base_url_2`, …
/// (its URLs start with `${{ inputs.base_url_2 }}`). A URL that does not start with a literal origin (one
/// read from a response, a shell variable) is left as it is.
struct OriginInputs {
    /// The origin of `base_url`, when a URL has one.
    private(set) var primary: String?
    /// The input `defaults.base_url` reads: `base_url`, unless a shell variable took that name.
    private(set) var primaryInput = "base_url"

    init(plan: inout ImportedPlan) {
        var counts: [String: Int] = [:]
        var order: [String] = []
        for step in plan.steps {
            guard let origin = Self.origin(of: step.url) else { continue }
            if counts[origin] == nil { order.append(origin) }
            counts[origin, default: 0] += 1
        }
        guard let first = order.max(by: { counts[$0, default: 0] < counts[$1, default: 0] }) else { return }
        // `max(by:)` keeps the last of equal counts; the first seen wins a tie.
        let primary = order.first { counts[$0] == counts[first] } ?? first
        self.primary = primary
        var names: [String: String] = [:]
        for origin in [primary] + order.filter({ $0 != primary }) {
            names[origin] = plan.inputs.input(
                for: origin, named: "base_url", secret: false, description: "where the requests were sent")
        }
        primaryInput = names[primary] ?? primaryInput
        for index in plan.steps.indices {
            // `Origin` and `Referer` name the origin too (a browser's): they follow the input.
            for header in plan.steps[index].headers.indices {
                guard case .literal(let value)? = plan.steps[index].headers[header].value.pieces.first,
                    let origin = order.first(where: { value.hasPrefix($0) }), let name = names[origin],
                    value.count == origin.count || value.dropFirst(origin.count).first == "/"
                else { continue }
                let rest = plan.steps[index].headers[header].value.pieces.dropFirst()
                plan.steps[index].headers[header].value = PlanText(
                    pieces: [.reference(.input(name))]
                        + (value.count > origin.count ? [.literal(String(value.dropFirst(origin.count)))] : [])
                        + rest)
            }
        }
        for index in plan.steps.indices {
            guard let origin = Self.origin(of: plan.steps[index].url), let name = names[origin],
                case .literal(let text)? = plan.steps[index].url.pieces.first
            else { continue }
            var rest = String(text.dropFirst(origin.count))
            var pieces = Array(plan.steps[index].url.pieces.dropFirst())
            if origin == primary {
                if rest.isEmpty && pieces.isEmpty { rest = "/" }
                if !rest.hasPrefix("/") { rest = "/" + rest }
                pieces.insert(.literal(rest), at: 0)
            } else {
                pieces.insert(.literal(rest), at: 0)
                pieces.insert(.reference(.input(name)), at: 0)
            }
            plan.steps[index].url = PlanText(pieces: pieces.filter { $0 != .literal("") })
        }
    }

    /// The literal origin a URL starts with, if any: `http` or `https`, the authority without user
    /// information, nothing that would be an expression.
    static func origin(of url: PlanText) -> String? {
        guard case .literal(let text)? = url.pieces.first else { return nil }
        let lower = text.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else { return nil }
        let origin = URLParts(text).origin
        let authority = origin.drop { $0 != "/" }.dropFirst(2)
        guard !authority.isEmpty, !authority.contains("@"), !origin.contains("${{"),
            origin.count < text.count || url.pieces.count == 1
        else { return nil }
        return origin
    }
}
