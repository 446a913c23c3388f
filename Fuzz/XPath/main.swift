import CFuzzerDriver
import Foundation
import ReqPlanSyntax
import ReqPlanXPath

// libFuzzer entry point: the input is an XPath expression and a document, split at the first NUL byte
// (`expression NUL document`); an input without one is a document, read with a few fixed expressions.
// The expression is compiled as the planner compiles `xpath()`'s, and evaluated on the document as the
// runtime does, within small `EvaluationLimits` (a server chooses the document, so no document may hold
// a run). No input may crash, hang or grow memory without bound; a compile error has a position in the
// expression, a read error a line and column in the document, and a stopped evaluation says why.

/// Small limits: a fuzz build is slow, and the budget's check is the same code at any size.
let limits = EvaluationLimits(maxSteps: 200_000, maxDuration: .seconds(2))

/// Expressions for an input that is only a document: every node, every string-value, the axes.
let fixedExpressions = [
    "//node()", "string(/)", "count(//*[@*]) + sum(//@*)", "//*[last()]/preceding::node()[1]",
    "//text()[normalize-space() != ''][contains(., substring(., 2, 3))]",
]

func check(_ expressionText: String, on document: String) {
    let expression: XPath
    do {
        expression = try XPath.compile(expressionText)
    } catch {
        if error.position < 1 || error.position > expressionText.unicodeScalars.count + 1 {
            fatalError("a compile error outside the expression: \(error)")
        }
        return
    }
    let result = EvaluationLimits.$current.withValue(limits) {
        Result { () throws(XMLReadError) -> Value in try expression.evaluate(onDocument: document) }
    }
    if case .failure(let error) = result, error.stopped == nil, error.line < 1 || error.column < 1 {
        fatalError("a read error without a place: \(error)")
    }
}

/// One input; libFuzzer calls it.
func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: start, count: count)
    if let separator = input.firstIndex(of: 0) {
        let expression = String(decoding: input[..<separator], as: UTF8.self)
        let document = String(decoding: input[(separator + 1)...], as: UTF8.self)
        check(expression, on: document)
    } else {
        let document = String(decoding: input, as: UTF8.self)
        for expression in fixedExpressions { check(expression, on: document) }
    }
    return 0
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { fuzz($0, $1) })
