/// Finds mapping keys that are not plain scalars, before libyaml sees the text.
///
/// Yams, which composes data files, API descriptions and Arazzo documents, hashes
/// mapping keys to detect duplicates. A key that is an alias of a deeply aliased
/// collection (a "billion laughs" key) would take exponential time to hash, so
/// such keys are refused up front; plans refuse them too, as their keys are plain
/// names (`YAMLComposer` compares only scalar keys). The scan runs only when the
/// text defines an anchor, since without anchors there are no aliases.
enum ComplexKeyScanner {
    static func firstComplexKey(in source: SourceFile) -> SourceLocation? {
        guard definesAnchor(source.text) else { return nil }
        var blockScalarIndent: Int?
        // The open flow collections (`[`, `{`), across lines, and whether the next node starts an entry of
        // a flow mapping: there, an entry that is a collection or an alias is a key (`{ [a, b], k: v }` has
        // the key `[a, b]`, with a null value).
        var flows: [Unicode.Scalar] = []
        var entryStart = false
        for (lineIndex, line) in source.lines.enumerated() {
            let scalars = Array(line.unicodeScalars)
            let indent = scalars.prefix(while: { $0 == " " }).count
            if let parentIndent = blockScalarIndent {
                if indent > parentIndent || scalars.allSatisfy({ $0 == " " || $0 == "\t" }) { continue }
                blockScalarIndent = nil
            }
            var index = 0
            var atNodeStart = true
            var quote: Unicode.Scalar?
            while index < scalars.count {
                let scalar = scalars[index]
                if let open = quote {
                    if scalar == open {
                        if open == "'" && index + 1 < scalars.count && scalars[index + 1] == "'" {
                            index += 2
                            continue
                        }
                        quote = nil
                    } else if open == "\"" && scalar == "\\" {
                        index += 1
                    }
                    index += 1
                    continue
                }
                let previous: Unicode.Scalar = index > 0 ? scalars[index - 1] : " "
                if entryStart, flows.last == "{", scalar == "[" || scalar == "{" || scalar == "*" {
                    return SourceLocation(line: lineIndex + 1, column: index + 1)
                }
                switch scalar {
                case " ", "\t":
                    break
                case "#" where previous == " " || previous == "\t" || index == 0:
                    index = scalars.count
                    continue
                case "\"" where atNodeStart, "'" where atNodeStart:
                    quote = scalar
                case "?" where atNodeStart && (index + 1 == scalars.count || scalars[index + 1] == " "):
                    return SourceLocation(line: lineIndex + 1, column: index + 1)
                case "*" where atNodeStart:
                    // libyaml's alias names are letters, digits, `_` and `-`: in `*a: x` the name ends at
                    // the colon (reading on to the next space missed `[*a: *a]`, a key in a flow sequence).
                    var end = index + 1
                    while end < scalars.count, Self.isAnchorCharacter(scalars[end]) { end += 1 }
                    if Self.colonFollows(scalars, from: end) {
                        return SourceLocation(line: lineIndex + 1, column: index + 1)
                    }
                case "]", "}":
                    if Self.colonFollows(scalars, from: index + 1) {
                        // The collection that ends here is a key: point at where it ends.
                        return SourceLocation(line: lineIndex + 1, column: index + 1)
                    }
                case "|" where atNodeStart, ">" where atNodeStart:
                    let rest = scalars[(index + 1)...].filter { $0 != " " }
                    if rest.isEmpty || rest.first == "#"
                        || rest.allSatisfy({ "+-0123456789".unicodeScalars.contains($0) })
                    {
                        blockScalarIndent = indent
                        index = scalars.count
                        continue
                    }
                default:
                    break
                }
                if scalar != " " && scalar != "\t" {
                    if (scalar == "[" || scalar == "{") && (atNodeStart || !flows.isEmpty) {
                        flows.append(scalar)
                    } else if (scalar == "]" || scalar == "}") && !flows.isEmpty {
                        flows.removeLast()
                    }
                    let anchoredEntry = entryStart && scalar == "&"  // `{ &a [x] }`: the entry follows
                    entryStart = anchoredEntry || ((scalar == "{" || scalar == ",") && flows.last == "{")
                    atNodeStart =
                        scalar == "-" || scalar == "[" || scalar == "{" || scalar == ","
                        || (scalar == ":" && (index + 1 == scalars.count || scalars[index + 1] == " "))
                    if scalar == "&" {
                        // An anchor precedes a node: skip its name, the node starts after it.
                        var end = index + 1
                        while end < scalars.count, scalars[end] != " " { end += 1 }
                        index = end
                        atNodeStart = true
                        continue
                    }
                }
                index += 1
            }
        }
        return nil
    }

    /// Whether a `:` that makes what precedes it a key follows on the line before the next flow indicator
    /// or comment. Not only right after: libyaml took `*h` in `[*h  timeout: 5s` for a key (found by the
    /// fuzzer, with an alias bomb behind `*h`), so anything up to the colon counts.
    static func colonFollows(_ scalars: [Unicode.Scalar], from start: Int) -> Bool {
        var index = start
        while index < scalars.count {
            let scalar = scalars[index]
            if ",[]{}".unicodeScalars.contains(scalar) { return false }
            if scalar == "#", index > start, scalars[index - 1] == " " || scalars[index - 1] == "\t" { return false }
            if scalar == ":", index + 1 == scalars.count || " \t,]}".unicodeScalars.contains(scalars[index + 1]) {
                return true
            }
            index += 1
        }
        return false
    }

    /// A character of an anchor or alias name, as libyaml reads them.
    static func isAnchorCharacter(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII
            && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_" || scalar == "-")
    }

    /// Whether the text has `&name` where an anchor can stand (after space or flow indicators).
    static func definesAnchor(_ text: String) -> Bool {
        var previous: Unicode.Scalar = " "
        var sawAmpersand = false
        for scalar in text.unicodeScalars {
            if sawAmpersand {
                if scalar != " " && scalar != "&" && scalar != "\n" { return true }
                sawAmpersand = false
            }
            if scalar == "&" && " \t\n[{,".unicodeScalars.contains(previous) { sawAmpersand = true }
            previous = scalar
        }
        return false
    }
}
