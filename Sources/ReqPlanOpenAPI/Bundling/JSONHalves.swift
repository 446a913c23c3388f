import Dispatch
import Foundation
import ReqPlanSyntax
import Yams

/// Composes a large JSON description on two threads: its top-level object is cut at the member boundary
/// nearest the middle, each half (`{` … `}`) is composed on its own, and the members are joined. Composing
/// is most of the time left once a plan decodes only the operations it binds (BENCHMARKS.md, "API
/// descriptions as published"). The second half keeps its line numbers (blank lines stand for the first
/// half). Whatever is not one JSON object, or a half that does not compose, or a key in both halves, is
/// composed whole as before, so errors are the ones a single read meets.
enum JSONHalves {
    /// Files smaller than this are composed on one thread.
    static let threshold = 256 << 10

    /// The halves' texts, or nil when `bytes` is not one JSON object with at least two members.
    static func split(_ bytes: [UInt8]) -> (first: String, second: String)? {
        guard bytes.count >= threshold else { return nil }
        var start = 0
        while start < bytes.count, isSpace(bytes[start]) { start += 1 }
        guard start < bytes.count, bytes[start] == UInt8(ascii: "{") else { return nil }
        var depth = 0
        var inString = false
        var escaped = false
        var commas: [Int] = []
        var end: Int?
        for index in start..<bytes.count {
            let byte = bytes[index]
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if depth == 0 {
                    end = index
                    break
                }
            case UInt8(ascii: ",") where depth == 1: commas.append(index)
            default: break
            }
            if end != nil { break }
        }
        guard let end, bytes[(end + 1)...].allSatisfy(isSpace),
            let cut = commas.min(by: { abs($0 - bytes.count / 2) < abs($1 - bytes.count / 2) })
        else { return nil }
        let lines = bytes[..<cut].count { $0 == UInt8(ascii: "\n") }
        let first = String(decoding: bytes[..<cut], as: UTF8.self) + "}"
        let second = String(repeating: "\n", count: lines) + "{" + String(decoding: bytes[(cut + 1)...], as: UTF8.self)
        return (first, second)
    }

    /// The document composed in two halves, or nil when it should be composed whole.
    static func compose(_ bytes: [UInt8], path: String, what: String, limits: ParseLimits) -> Node? {
        guard let (first, second) = split(bytes) else { return nil }
        // Each thread composes its own text into its own nodes and writes its own variable; they share
        // nothing until both are done.
        nonisolated(unsafe) var firstHalf: Node?
        nonisolated(unsafe) var secondHalf: Node?
        // Each half within half the node budget: the whole stays within it.
        let half = {
            var half = limits
            half.maxNodes = limits.maxNodes / 2
            return half
        }()
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            let text = index == 0 ? first : second
            guard
                case .success(let document) = DataDocument.parse(
                    SourceFile(path: path, text: text), what: what, limits: half),
                document.checkBounds() == nil
            else { return }
            if index == 0 { firstHalf = document.root } else { secondHalf = document.root }
        }
        guard case .mapping(let head)? = firstHalf, case .mapping(let tail)? = secondHalf else { return nil }
        let keys = head.compactMap(\.key.string)
        guard Set(keys).isDisjoint(with: tail.compactMap(\.key.string)) else { return nil }
        let pairs = (Array(head) + Array(tail)).map { ($0.key, $0.value) }
        return .mapping(Node.Mapping(pairs, head.tag, head.style, head.mark))
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }
}
