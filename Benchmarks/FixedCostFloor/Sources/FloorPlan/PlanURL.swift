import Foundation
import Yams

/// The URL of the step `one` of the plan at `path`, read with `Yams.load`; nil when the file or the step is not
/// there.
public func planURL(_ path: String) -> String? {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8),
        let plan = (try? Yams.load(yaml: text)) as? [String: Any],
        let steps = plan["steps"] as? [String: Any],
        let one = steps["one"] as? [String: Any],
        let request = one["request"] as? [String: Any]
    else { return nil }
    return request["url"] as? String
}
