import Foundation
import ReqPlanRuntime
import ReqPlanSyntax

extension LoadResult {
    /// Whether `text` is a load's JSON report (`reqplan load --report json:PATH`): a JSON object with the key
    /// `reqplan_load`, not a run's report.
    public static func isReport(_ text: String) -> Bool {
        struct Marker: Decodable {
            var reqplanLoad: Int?
            enum CodingKeys: String, CodingKey { case reqplanLoad = "reqplan_load" }
        }
        return (try? JSONDecoder().decode(Marker.self, from: Data(text.utf8)))?.reqplanLoad != nil
    }

    /// The JSON reports of the shards of one load (or of loads of one plan) as one result (`merged`): each
    /// read back whole, then checked to be parts of one load (`mergeProblem`).
    /// - Returns: the merged result, or every problem (RP0711), located in the file at fault.
    public static func merging(_ documents: [(path: String, text: String)]) -> Result<
        LoadResult, PlanRun.PreparationError
    > {
        var problems: [Diagnostic] = []
        var results: [LoadResult] = []
        for document in documents {
            do {
                results.append(try JSONDecoder().decode(LoadResult.self, from: Data(document.text.utf8)))
            } catch {
                problems.append(
                    Diagnostic(
                        .error, .unmergeableReports,
                        "`\(document.path)` is not a load's JSON report: \(reason(error, in: document.text))",
                        file: document.path, hint: "give the files `reqplan load --report json:PATH` wrote"))
            }
        }
        if problems.isEmpty, let problem = mergeProblem(results) {
            problems.append(Diagnostic(.error, .unmergeableReports, "the load results cannot be merged: \(problem)"))
        }
        guard problems.isEmpty, let merged = merged(results) else {
            return .failure(PlanRun.PreparationError(diagnostics: problems, sources: []))
        }
        return .success(merged)
    }

    /// A decoding error in a sentence: the field at fault and why. Foundation's decoder says "not valid JSON",
    /// with no field, for a number that does not fit where it goes (a count of `-1`, a time of `1e300`): when the
    /// text is JSON, that is what is said.
    private static func reason(_ error: any Error, in text: String) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context)
        where context.codingPath.isEmpty
            && (try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])) != nil:
            return "a number does not fit its field (a count or a time below 0, with a fraction, or too large)"
        case DecodingError.dataCorrupted(let context), DecodingError.typeMismatch(_, let context),
            DecodingError.valueNotFound(_, let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? context.debugDescription : "`\(path)`: \(context.debugDescription)"
        case DecodingError.keyNotFound(let key, let context):
            let path = (context.codingPath + [key]).map(\.stringValue).joined(separator: ".")
            return "`\(path)` is missing"
        default:
            return "\(error)"
        }
    }
}
