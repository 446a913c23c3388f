import ReqPlanSyntax

/// Why a text could not be read as XML, and where; or why `XPath.evaluate(onDocument:)` was stopped.
///
/// An evaluation over a server's body works within `EvaluationLimits.current` (steps, time, a deadline,
/// the task's cancellation): when it is stopped, reading the document or evaluating the expression,
/// `stopped` says why (`.cancelled`, `.deadline`, `.budget`) and the document is not said to be at fault.
public struct XMLReadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong.
    public var message: String
    /// The line (from 1) and column (from 1, in characters) of the problem: for a stop, where the reader
    /// was, or 0 and 0 when the expression was being evaluated (the document had been read).
    public var line: Int
    public var column: Int
    /// Why the reading or the evaluation was stopped before its end, when it was (nil: the text is not
    /// well-formed XML).
    public var stopped: EvaluationStopped?

    init(message: String, line: Int, column: Int, stopped: EvaluationStopped? = nil) {
        self.message = message
        self.line = line
        self.column = column
        self.stopped = stopped
    }

    /// The error of an evaluation stopped after the document was read.
    init(stoppedEvaluation stopped: EvaluationStopped) {
        self.init(message: "the evaluation was stopped: \(stopped.message)", line: 0, column: 0, stopped: stopped)
    }

    public var description: String { line > 0 ? "\(message) at line \(line), column \(column)" : message }
}

/// Reads a document into an `XMLTree`: XML by the well-formedness rules of XML 1.0, or, when the text
/// starts like an HTML page (`<!DOCTYPE html` or `<html`, in any case), HTML by tolerant rules.
///
/// XML: one root element; elements, attributes (unique, quoted), text, CDATA sections, comments and
/// processing instructions; the five predefined entities and character references (other named
/// entities are errors, so a DTD's entities, billion laughs among them, are never expanded); a DOCTYPE
/// is skipped. Text is kept as written, whitespace included. Elements nest at most `maxDepth` (512)
/// levels deep; deeper is an error at the start tag.
///
/// HTML is read leniently, not by the HTML5 tree-construction algorithm: names are lower case; void
/// elements (`br`, `input`, `img`, `meta`, …) have no content; `script` and `style` hold raw text; an
/// attribute may have no value or an unquoted one; an end tag closes the elements opened after its
/// element; an end tag with no open element is ignored, and elements still open at the end are
/// closed. Named character references are decoded for the common ones (`&nbsp;`, `&copy;`, …) and
/// left as written otherwise. An element that would be deeper than `maxDepth` levels closes the element
/// at the deepest level and goes after it (browsers keep their trees 512 deep too, Blink by putting such
/// an element beside its parent).
///
/// The reader loops over an explicit stack of open elements, so neither the nesting nor the size of a
/// document grows the call stack, and its memory is linear in the text. Every node made is one step of
/// the evaluation's `EvaluationMeter`, so a cancellation or a deadline stops a long read too.
struct XMLReader {
    /// The deepest elements may nest, in levels (the root element is level 1).
    static let maxDepth = 512

    /// An element whose end tag has not been read.
    private struct OpenElement {
        /// The element's index in the tree.
        var index: Int
        var name: String
    }

    private let bytes: [UInt8]
    private var index = 0
    private var tree = XMLTree()
    private let html: Bool
    private let maxDepth: Int
    private let meter: EvaluationMeter?
    /// The elements open around the reader, outermost first (the root of the tree is not one).
    private var open: [OpenElement] = []
    /// HTML: how many open elements have each name, so an end tag finds whether it closes one at once.
    private var openNames: [String: Int] = [:]

    /// Reads `text`, counting a step of `meter` for each node.
    /// - Parameter maxDepth: the deepest elements may nest (for tests; 512 otherwise).
    /// - Throws: `XMLReadError` for XML that is not well-formed (HTML is never refused), or when `meter`
    ///   stops the reading (`stopped` says why).
    static func read(
        _ text: String, meter: EvaluationMeter? = nil, maxDepth: Int = XMLReader.maxDepth
    ) throws(XMLReadError) -> XMLTree {
        var reader = XMLReader(bytes: Array(text.utf8), meter: meter, maxDepth: max(1, maxDepth))
        try reader.readDocument()
        reader.tree.finish()
        return reader.tree
    }

    private init(bytes: [UInt8], meter: EvaluationMeter?, maxDepth: Int) {
        self.bytes = bytes
        self.meter = meter
        self.maxDepth = maxDepth
        var start = 0
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { start = 3 }
        index = start
        html = XMLReader.looksLikeHTML(bytes[start...])
        tree.isHTML = html
        // Room for the nodes at once, so the tree is not copied to grow: about one per tag and attribute
        // (text between tags is counted by the end tag after it), and never more than one per 2 bytes.
        var estimate = 2
        for byte in bytes where byte == UInt8(ascii: "<") || byte == UInt8(ascii: "=") { estimate += 1 }
        tree.reserveCapacity(min(estimate, bytes.count / 2 + 2, XMLTree.maxNodes))
    }

    /// Whether the document starts (after spaces and comments) with `<!doctype html` or `<html`.
    private static func looksLikeHTML(_ text: ArraySlice<UInt8>) -> Bool {
        var rest = text
        while true {
            rest = rest.drop { isSpace($0) }
            guard rest.starts(with: Array("<!--".utf8)) else { break }
            guard let end = find(Array("-->".utf8), in: rest) else { return false }
            rest = rest[(end + 3)...]
        }
        let head = String(decoding: rest.prefix(14), as: UTF8.self).lowercased()
        if head.hasPrefix("<!doctype html") { return true }
        guard head.hasPrefix("<html") else { return false }
        let next = head.dropFirst(5).first
        return next == nil || next == ">" || next == " " || next == "\t" || next == "\n" || next == "\r" || next == "/"
    }

    private static func find(_ needle: [UInt8], in haystack: ArraySlice<UInt8>) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count else { return nil }
        var position = haystack.startIndex
        while position + needle.count <= haystack.endIndex {
            if haystack[position] == needle[0], haystack[position..<(position + needle.count)].elementsEqual(needle) {
                return position
            }
            position += 1
        }
        return nil
    }

    // MARK: Errors

    private func fail(
        _ message: String, at position: Int? = nil, stopped: EvaluationStopped? = nil
    ) -> XMLReadError {
        let offset = min(position ?? index, bytes.count)
        var line = 1
        var column = 1
        for byte in bytes[..<offset] {
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return XMLReadError(message: message, line: line, column: column, stopped: stopped)
    }

    /// Adds a node to the tree, one step of the meter.
    @discardableResult
    private mutating func append(
        _ kind: XMLTree.Kind, name: String = "", value: String = "", to parent: Int
    ) throws(XMLReadError) -> Int {
        do {
            try meter?.spend()
        } catch {
            throw fail("reading the document was stopped: \(error.message)", stopped: error)
        }
        guard tree.nodes.count < XMLTree.maxNodes else {
            throw fail("the document has more nodes than reqplan reads (\(XMLTree.maxNodes - 1))")
        }
        return tree.append(kind, name: name, value: value, to: parent)
    }

    // MARK: Characters

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    private static func isNameStart(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ":") || byte >= 0x80
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        isNameStart(byte) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-")
            || byte == UInt8(ascii: ".")
    }

    private var atEnd: Bool { index >= bytes.count }

    private func peek(_ offset: Int = 0) -> UInt8? {
        index + offset < bytes.count ? bytes[index + offset] : nil
    }

    private func looking(at text: String) -> Bool {
        bytes[index...].starts(with: text.utf8)
    }

    private func lookingIgnoringCase(at utf8: [UInt8]) -> Bool {
        guard index + utf8.count <= bytes.count else { return false }
        return zip(bytes[index..<(index + utf8.count)], utf8).allSatisfy { lower($0) == lower($1) }
    }

    private static func lowerByte(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }

    private func lower(_ byte: UInt8) -> UInt8 { XMLReader.lowerByte(byte) }

    private mutating func skipSpaces() {
        while let byte = peek(), XMLReader.isSpace(byte) { index += 1 }
    }

    /// Advances past `terminator`, returning the text before it.
    private mutating func text(until terminator: String, what: String) throws(XMLReadError) -> String {
        let start = index
        guard let end = XMLReader.find(Array(terminator.utf8), in: bytes[index...]) else {
            throw fail("\(what) is not closed by `\(terminator)`", at: start)
        }
        index = end + terminator.utf8.count
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    private mutating func name(_ what: String) throws(XMLReadError) -> String {
        guard let first = peek(), XMLReader.isNameStart(first) else { throw fail("expected \(what)") }
        let start = index
        while let byte = peek(), XMLReader.isNameByte(byte) { index += 1 }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        return html ? text.lowercased() : text
    }

    // MARK: Document

    private mutating func readDocument() throws(XMLReadError) {
        if html {
            try readContent()
            return
        }
        var sawRoot = false
        while true {
            skipSpaces()
            if atEnd { break }
            if looking(at: "<?") {
                try readProcessingInstruction(into: 0)
            } else if looking(at: "<!--") {
                try readComment(into: 0)
            } else if looking(at: "<!DOCTYPE") {
                guard !sawRoot else { throw fail("a DOCTYPE comes before the root element") }
                try skipDoctype()
            } else if peek() == UInt8(ascii: "<"), let next = peek(1), XMLReader.isNameStart(next) {
                guard !sawRoot else { throw fail("a document has one root element, found a second one") }
                sawRoot = true
                try readStartTag(into: 0)
                if !open.isEmpty { try readContent() }
            } else {
                throw fail(sawRoot ? "text after the root element" : "expected `<` starting the root element")
            }
        }
        guard sawRoot else { throw fail(bytes.isEmpty ? "the text is empty" : "no root element") }
    }

    private mutating func skipDoctype() throws(XMLReadError) {
        let start = index
        var depth = 0
        var quote: UInt8?
        while let byte = peek() {
            index += 1
            if let open = quote {
                if byte == open { quote = nil }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "'"): quote = byte
            case UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "]"): depth -= 1
            case UInt8(ascii: ">") where depth <= 0: return
            default: break
            }
        }
        throw fail("the DOCTYPE is not closed by `>`", at: start)
    }

    private mutating func readComment(into parent: Int) throws(XMLReadError) {
        index += 4
        let text = try text(until: "-->", what: "a comment")
        try append(.comment, value: text, to: parent)
    }

    private mutating func readProcessingInstruction(into parent: Int) throws(XMLReadError) {
        let start = index
        index += 2
        if html {
            _ = try? text(until: ">", what: "a processing instruction")
            return
        }
        let target = try name("a processing instruction's target")
        let data = try text(until: "?>", what: "a processing instruction")
        // The XML declaration is not a processing instruction in the data model.
        if target.lowercased() == "xml" {
            guard start == (bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0) else {
                throw fail("the XML declaration must come first", at: start)
            }
            return
        }
        try append(
            .processingInstruction, name: target,
            value: String(data.drop(while: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" })), to: parent)
    }

    // MARK: Elements

    /// Reads a start tag and its attributes, adding the element under `parent`, and opens the element
    /// when content follows (HTML: but for void elements, and raw text elements, read here whole).
    private mutating func readStartTag(into parent: Int) throws(XMLReadError) {
        let tagStart = index
        index += 1
        let elementName = try name("an element name")
        var parent = parent
        if open.count >= maxDepth {
            guard html else {
                throw fail(
                    "the element `\(elementName)` is nested deeper than \(maxDepth) levels, the most reqplan reads",
                    at: tagStart)
            }
            // Past the deepest level, an element closes the one there and goes after it, so the open elements
            // stay the path to the node being read and the tree stays in document order.
            while open.count >= maxDepth, let closed = open.popLast() {
                openNames[closed.name, default: 1] -= 1
            }
            parent = open.last?.index ?? 0
        }
        let element = try append(.element, name: elementName, to: parent)
        var seen: Set<String> = []
        while true {
            let beforeSpace = index
            skipSpaces()
            guard let byte = peek() else {
                if html { return }
                throw fail("the start tag `<\(elementName)` is not closed by `>`", at: tagStart)
            }
            if byte == UInt8(ascii: ">") {
                index += 1
                break
            }
            if byte == UInt8(ascii: "/"), peek(1) == UInt8(ascii: ">") {
                index += 2
                return
            }
            if html && byte == UInt8(ascii: "/") {
                index += 1
                continue
            }
            if !html && index == beforeSpace {
                throw fail("expected a space, `>` or `/>` in the start tag `<\(elementName)`")
            }
            let attributeStart = index
            let attribute: String
            if html {
                // HTML attribute names are anything up to a space, `=`, `>` or `/`.
                while let next = peek(), !XMLReader.isSpace(next), next != UInt8(ascii: "="), next != UInt8(ascii: ">"),
                    !(next == UInt8(ascii: "/") && peek(1) == UInt8(ascii: ">"))
                {
                    index += 1
                }
                if index == attributeStart { index += 1 }
                attribute = String(decoding: bytes[attributeStart..<index], as: UTF8.self).lowercased()
            } else {
                attribute = try name("an attribute name")
            }
            skipSpaces()
            var value = ""
            if peek() == UInt8(ascii: "=") {
                index += 1
                skipSpaces()
                value = try attributeValue()
            } else if !html {
                throw fail("expected `=` after the attribute `\(attribute)`")
            }
            if !seen.insert(attribute).inserted {
                if html { continue }
                throw fail("the attribute `\(attribute)` is given twice", at: attributeStart)
            }
            try append(.attribute, name: attribute, value: value, to: element)
        }
        if html {
            if XMLReader.voidElements.contains(elementName) { return }
            if XMLReader.rawTextElements.contains(elementName) {
                let start = index
                let endTag = Array("</\(elementName)".utf8)
                while !atEnd && !(peek() == UInt8(ascii: "<") && lookingIgnoringCase(at: endTag)) { index += 1 }
                let raw = String(decoding: bytes[start..<index], as: UTF8.self)
                if !raw.isEmpty {
                    let text =
                        elementName == "textarea" || elementName == "title" ? try decodeReferences(raw, at: start) : raw
                    try append(.text, value: text, to: element)
                }
                if !atEnd { _ = try text(until: ">", what: "an end tag") }
                return
            }
            openNames[elementName, default: 0] += 1
        }
        open.append(OpenElement(index: element, name: elementName))
    }

    private mutating func attributeValue() throws(XMLReadError) -> String {
        guard let quote = peek() else { throw fail("expected an attribute value") }
        guard quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else {
            guard html else { throw fail("an attribute value must be quoted") }
            let start = index
            while let byte = peek(), !XMLReader.isSpace(byte), byte != UInt8(ascii: ">") { index += 1 }
            return try decodeReferences(String(decoding: bytes[start..<index], as: UTF8.self), at: start)
        }
        let start = index
        index += 1
        let valueStart = index
        while let byte = peek(), byte != quote {
            if byte == UInt8(ascii: "<") && !html { throw fail("`<` is not allowed in an attribute value") }
            index += 1
        }
        guard !atEnd else {
            if html {
                return try decodeReferences(String(decoding: bytes[valueStart...], as: UTF8.self), at: valueStart)
            }
            throw fail("the attribute value is not closed", at: start)
        }
        let raw = String(decoding: bytes[valueStart..<index], as: UTF8.self)
        index += 1
        if html { return try decodeReferences(raw, at: valueStart) }
        // Attribute-value normalisation (XML 1.0 §3.3.3): white space characters become spaces.
        let normalised = String(raw.map { $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" ? " " : $0 })
        return try decodeReferences(normalised, at: valueStart)
    }

    /// Reads content into the innermost open element until it and every element opened in it are closed
    /// (XML: the root element), or, for HTML, to the end of the text (elements still open are closed).
    private mutating func readContent() throws(XMLReadError) {
        while true {
            let parent = open.last?.index ?? 0
            let textStart = index
            while let byte = peek(), byte != UInt8(ascii: "<") { index += 1 }
            if index > textStart {
                let raw = String(decoding: bytes[textStart..<index], as: UTF8.self)
                let text = try decodeReferences(raw, at: textStart)
                try append(.text, value: text, to: parent)
            }
            if atEnd {
                guard !html, let element = open.last else { return }
                throw fail("the element `\(element.name)` is not closed by `</\(element.name)>`")
            }
            if looking(at: "</") {
                let endStart = index
                index += 2
                if html {
                    let nameStart = index
                    while let byte = peek(), byte != UInt8(ascii: ">"), !XMLReader.isSpace(byte) { index += 1 }
                    let name = String(decoding: bytes[nameStart..<index], as: UTF8.self).lowercased()
                    _ = try? text(until: ">", what: "an end tag")
                    // It closes the innermost open element of its name and those opened in it; an end tag
                    // with no open element is ignored.
                    guard openNames[name, default: 0] > 0 else { continue }
                    while let closed = open.popLast() {
                        openNames[closed.name, default: 1] -= 1
                        if closed.name == name { break }
                    }
                    continue
                }
                let name = try name("an element name in the end tag")
                skipSpaces()
                guard peek() == UInt8(ascii: ">") else { throw fail("expected `>` ending the end tag `</\(name)`") }
                index += 1
                guard let element = open.popLast() else { return }
                guard name == element.name else {
                    throw fail(
                        "the end tag `</\(name)>` does not match the start tag `<\(element.name)>`", at: endStart)
                }
                if open.isEmpty { return }
                continue
            }
            if looking(at: "<!--") {
                try readComment(into: parent)
            } else if looking(at: "<![CDATA[") {
                index += 9
                let text = try text(until: "]]>", what: "a CDATA section")
                try append(.text, value: text, to: parent)
            } else if looking(at: "<?") {
                try readProcessingInstruction(into: parent)
            } else if html && looking(at: "<!") {
                index += 2
                _ = try? text(until: ">", what: "a declaration")
            } else if let next = peek(1), XMLReader.isNameStart(next) {
                try readStartTag(into: parent)
            } else if html {
                try append(.text, value: "<", to: parent)
                index += 1
            } else {
                throw fail("`<` must start a tag (write `&lt;` for a literal `<`)")
            }
        }
    }

    // MARK: References

    /// Decodes references: character references and the five predefined entities, any other an error
    /// (XML); or those and the named references HTML pages commonly use, any other kept as written (HTML).
    /// - Parameter offset: where `text` starts in the document, for errors.
    private func decodeReferences(_ text: String, at offset: Int) throws(XMLReadError) -> String {
        guard text.contains("&") else { return text }
        var result = ""
        var rest = Substring(text)
        while let ampersand = rest.firstIndex(of: "&") {
            result += rest[..<ampersand]
            let afterAmpersand = rest.index(after: ampersand)
            let semicolon = rest[afterAmpersand...].prefix(32).firstIndex(of: ";")
            if let semicolon,
                let decoded = XMLReader.decode(
                    String(rest[afterAmpersand..<semicolon]),
                    named: html ? XMLReader.htmlEntities : XMLReader.xmlEntities)
            {
                result += decoded
                rest = rest[rest.index(after: semicolon)...]
                continue
            }
            guard html else {
                let position = offset + text.utf8.distance(from: text.startIndex, to: ampersand)
                guard let semicolon else { throw fail("`&` must start a reference such as `&amp;`", at: position) }
                throw fail(
                    "unknown entity `&\(rest[afterAmpersand..<semicolon]);` (XML knows `&lt;`, `&gt;`, `&amp;`, `&apos;`, `&quot;`)",
                    at: position)
            }
            result += "&"
            rest = rest[afterAmpersand...]
        }
        return result + rest
    }

    private static func decode(_ reference: String, named: [String: String]) -> String? {
        if reference.hasPrefix("#") {
            let digits = reference.dropFirst()
            let code =
                digits.hasPrefix("x") || digits.hasPrefix("X")
                ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits, radix: 10)
            return code.flatMap(Unicode.Scalar.init).map { String(Character($0)) }
        }
        return named[reference]
    }

    private static let xmlEntities = ["lt": "<", "gt": ">", "amp": "&", "apos": "'", "quot": "\""]

    private static let htmlEntities = xmlEntities.merging([
        "nbsp": "\u{A0}", "copy": "©", "reg": "®", "trade": "™", "hellip": "…", "mdash": "—", "ndash": "–",
        "lsquo": "‘", "rsquo": "’", "ldquo": "“", "rdquo": "”", "laquo": "«", "raquo": "»", "middot": "·",
        "bull": "•", "euro": "€", "pound": "£", "yen": "¥", "cent": "¢", "sect": "§", "deg": "°", "times": "×",
        "divide": "÷", "plusmn": "±", "para": "¶", "iexcl": "¡", "iquest": "¿",
    ]) { first, _ in first }

    /// HTML elements that have no content and no end tag.
    private static let voidElements: Set<String> = [
        "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr",
    ]

    /// HTML elements whose content is text up to their end tag (`textarea` and `title` decode references).
    private static let rawTextElements: Set<String> = ["script", "style", "textarea", "title"]
}
