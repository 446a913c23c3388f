import CFuzzerDriver
import Foundation
import ReqPlanJSONPath
import ReqPlanSyntax

// libFuzzer entry point: a JSONPath query (RFC 9535) and a JSON document, split at the first NUL byte (an input
// without one is a query, evaluated on a fixed document). The query is compiled as the planner checks
// `jsonpath()`'s literal queries, then evaluated on the document as the runtime does, within small evaluation
// limits (the budget's check is the same code at any size). No crash, no hang; a compile error has a position
// in the query, a failed evaluation a reason.

let fixed = Value.object([
    .init(
        "store",
        .object([
            .init(
                "book",
                .list(
                    (0..<20).map { index in
                        .object([
                            .init("title", .string("book \(index)")), .init("price", .double(Double(index) + 0.5)),
                            .init("tags", .list([.string("a"), .string("b\(index % 3)")])), .init("id", .int(index)),
                        ])
                    })),
            .init("bicycle", .object([.init("color", .string("red")), .init("price", .int(19))])),
        ])),
    .init("numbers", .list((0..<200).map { .int($0) })),
])

let limits = EvaluationLimits(maxSteps: 200_000, maxDuration: .seconds(2))

func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: start, count: count))
    let split = bytes.firstIndex(of: 0)
    let query = String(decoding: bytes[..<(split ?? bytes.count)], as: UTF8.self)
    let document: Value
    if let split {
        guard let parsed = try? Value.parseJSON(bytes: Array(bytes[(split + 1)...])) else { return 0 }
        document = parsed
    } else {
        document = fixed
    }
    let compiled: JSONPath
    do {
        compiled = try JSONPath.compile(query)
    } catch {
        if error.position < 1 || error.position > query.unicodeScalars.count + 1 {
            fatalError("a compile error outside the query: \(error)")
        }
        return 0
    }
    do {
        _ = try EvaluationLimits.$current.withValue(limits) { try compiled.select(in: document) }
    } catch let error as JSONPathEvaluationError {
        if error.message.isEmpty { fatalError("an evaluation error without a reason") }
    } catch {
        fatalError("an evaluation error of another type: \(error)")
    }
    return 0
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { fuzz($0, $1) })
