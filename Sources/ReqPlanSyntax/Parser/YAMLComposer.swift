// libyaml, as Yams vendors and builds it: Yams has no public API for its events, and the plan reader needs
// nothing of Yams' tree but what the events say (`YAMLNode`).
import CYaml

/// Why a YAML text could not be composed, as libyaml or the composer reports it: what `YAMLLoader` words as
/// a diagnostic, whichever composer (Yams' or `YAMLComposer`) found it.
struct YAMLProblem: Error {
    enum Kind {
        case scanner, parser, composer
        /// The text is not readable (libyaml's reader): `offset` says where.
        case reader
        /// A key given twice in one mapping.
        case duplicateKey
        case memory
        /// Any other error of Yams', worded as it words it (`problem`), with no place.
        case other
    }

    var kind: Kind
    var problem: String
    /// Where libyaml stopped (1-based line and column, columns counted in Unicode scalars).
    var mark: SourceLocation
    /// What libyaml was reading, and where it started.
    var context: (text: String, mark: SourceLocation)?
    /// `reader`: the offset libyaml stopped at, counted as Yams counts it (characters of the text).
    var offset: Int?
    /// `duplicateKey`: the key and where it is given again (`mark` is where it is first given).
    var duplicate: (key: String, again: SourceLocation?)?
}

/// Composes a plan's text into `YAMLNode`s from libyaml's events, as Yams composes its tree (`Yams.compose`
/// with the basic resolver: one document, aliases read as their anchored nodes, a key given twice in one
/// mapping refused), without what the plan reader does not read: tags, anchors kept in the tree, and an
/// object per event.
enum YAMLComposer {
    /// The text's one document; `nil` when it holds none (only comments, or nothing).
    static func compose(_ text: String) -> Result<YAMLNode?, YAMLProblem> {
        var contiguous = text
        return contiguous.withUTF8 { bytes in
            var parser = yaml_parser_t()
            guard yaml_parser_initialize(&parser) == 1 else {
                return .failure(YAMLProblem(kind: .memory, problem: "out of memory", mark: .init(line: 1, column: 1)))
            }
            defer { yaml_parser_delete(&parser) }
            yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING)
            yaml_parser_set_input_string(&parser, bytes.baseAddress, bytes.count)
            var composer = Composer(text: text)
            do throws(YAMLProblem) {
                return .success(try composer.document(&parser))
            } catch {
                return .failure(error)
            }
        }
    }

    /// A collection being composed: its start, and what it holds so far.
    private struct Open {
        var mark: SourceLocation
        var anchor: String?
        var isMapping: Bool
        var items: [YAMLNode] = []
        var entries: [(key: YAMLNode, value: YAMLNode)] = []
        /// A mapping's key read, whose value is next.
        var key: YAMLNode?
        /// The tags of keys that have one other than a string's, by position (keys compare by text and tag).
        var tags: [Int: String] = [:]
    }

    private struct Composer {
        let text: String
        var anchors: [String: YAMLNode] = [:]
        var open: [Open] = []
        var event = yaml_event_t()

        /// The next event, in `event`; the caller deletes it (`yaml_event_delete`).
        mutating func next(_ parser: inout yaml_parser_t) throws(YAMLProblem) -> yaml_event_type_t {
            guard yaml_parser_parse(&parser, &event) == 1 else { throw YAMLComposer.problem(parser, in: text) }
            return event.type
        }

        mutating func document(_ parser: inout yaml_parser_t) throws(YAMLProblem) -> YAMLNode? {
            _ = try next(&parser)  // the stream's start
            yaml_event_delete(&event)
            let first = try next(&parser)
            yaml_event_delete(&event)
            if first == YAML_STREAM_END_EVENT { return nil }
            // The document's start, read; now its one node.
            var root: YAMLNode?
            while root == nil {
                let type = try next(&parser)
                defer { yaml_event_delete(&event) }
                root = try take(type)
            }
            _ = try next(&parser)  // the document's end
            yaml_event_delete(&event)
            let after = try next(&parser)
            defer { yaml_event_delete(&event) }
            if after != YAML_STREAM_END_EVENT {
                throw YAMLProblem(
                    kind: .composer, problem: "but found another document", mark: YAMLComposer.mark(event.start_mark),
                    context: ("expected a single document in the stream", SourceLocation(line: 1, column: 1)))
            }
            return root
        }

        /// Takes the event just read; returns the document's node once it is whole.
        mutating func take(_ type: yaml_event_type_t) throws(YAMLProblem) -> YAMLNode? {
            let node: YAMLNode
            var tag: String?
            switch type {
            case YAML_SCALAR_EVENT:
                let scalar = event.data.scalar
                let text = String(
                    decoding: UnsafeBufferPointer(start: scalar.value, count: scalar.length), as: UTF8.self)
                node = .scalar(
                    .init(
                        text, style: YAMLNode.Scalar.Style(rawValue: scalar.style.rawValue) ?? .any,
                        mark: YAMLComposer.mark(event.start_mark)))
                if let anchor = YAMLComposer.string(scalar.anchor) { anchors[anchor] = node }
                if scalar.quoted_implicit != 1, let explicit = YAMLComposer.string(scalar.tag), explicit != "!",
                    explicit != "tag:yaml.org,2002:str"
                {
                    tag = explicit
                }
            case YAML_ALIAS_EVENT:
                // The anchored node itself, as Yams composes an alias. (Its tag is not kept: an alias used as
                // a key compares by its text.)
                let name = YAMLComposer.string(event.data.alias.anchor) ?? ""
                guard let anchored = anchors[name] else {
                    throw YAMLProblem(
                        kind: .composer, problem: "found undefined alias", mark: YAMLComposer.mark(event.start_mark))
                }
                node = anchored
            case YAML_SEQUENCE_START_EVENT, YAML_MAPPING_START_EVENT:
                let isMapping = type == YAML_MAPPING_START_EVENT
                let anchor = isMapping ? event.data.mapping_start.anchor : event.data.sequence_start.anchor
                open.append(
                    Open(
                        mark: YAMLComposer.mark(event.start_mark), anchor: YAMLComposer.string(anchor),
                        isMapping: isMapping))
                return nil
            case YAML_SEQUENCE_END_EVENT:
                guard let done = open.popLast() else { return nil }  // libyaml pairs ends with starts
                node = .sequence(.init(done.items, mark: done.mark))
                if let anchor = done.anchor { anchors[anchor] = node }
            case YAML_MAPPING_END_EVENT:
                guard let done = open.popLast() else { return nil }
                try YAMLComposer.checkDuplicates(done)
                node = .mapping(.init(done.entries, mark: done.mark))
                if let anchor = done.anchor { anchors[anchor] = node }
            default:
                // libyaml gives a node between a document's start and end, always; anything else would loop.
                throw YAMLProblem(
                    kind: .composer, problem: "found no node where the document's node belongs",
                    mark: YAMLComposer.mark(event.start_mark))
            }
            guard !open.isEmpty else { return node }
            let last = open.count - 1
            if !open[last].isMapping {
                open[last].items.append(node)
            } else if let key = open[last].key {
                open[last].entries.append((key, node))
                open[last].key = nil
            } else {
                open[last].key = node
                if let tag { open[last].tags[open[last].entries.count] = tag }
            }
            return nil
        }
    }

    /// Refuses a mapping that gives a key twice, as Yams does once a mapping is composed: it names the first
    /// such key in sorted order, where it is first given and where again.
    private static func checkDuplicates(_ mapping: Open) throws(YAMLProblem) {
        let entries = mapping.entries
        var found: (key: String, first: Int, again: Int)?
        func consider(_ key: String, first: Int, again: Int) {
            if let known = found, known.key <= key { return }
            found = (key, first, again)
        }
        if entries.count <= 12 {
            // A step's few keys: compared in place.
            for again in entries.indices {
                guard let key = entries[again].key.string else { continue }
                if let first = entries[..<again].indices.first(where: {
                    entries[$0].key.string == key && mapping.tags[$0] == mapping.tags[again]
                }) {
                    consider(key, first: first, again: again)
                }
            }
        } else {
            var firsts: [String: Int] = [:]
            firsts.reserveCapacity(entries.count)
            for again in entries.indices {
                guard let key = entries[again].key.string else { continue }
                let identity = mapping.tags[again].map { "\($0)\u{0}\(key)" } ?? key
                if let first = firsts[identity] {
                    consider(key, first: first, again: again)
                } else {
                    firsts[identity] = again
                }
            }
        }
        guard let found else { return }
        throw YAMLProblem(
            kind: .duplicateKey, problem: "duplicated key", mark: mapping.entries[found.first].key.mark,
            duplicate: (found.key, mapping.entries[found.again].key.mark))
    }

    fileprivate static func mark(_ mark: yaml_mark_t) -> SourceLocation {
        SourceLocation(line: mark.line + 1, column: mark.column + 1)
    }

    fileprivate static func string(_ pointer: UnsafeMutablePointer<UInt8>?) -> String? {
        guard let pointer else { return nil }
        return String(cString: pointer)
    }

    /// libyaml's error, as Yams words it (`YamlError.init(from:with:)`).
    fileprivate static func problem(_ parser: yaml_parser_t, in text: String) -> YAMLProblem {
        let problem = parser.problem.map { String(cString: $0) } ?? "unknown problem"
        let mark = SourceLocation(line: parser.problem_mark.line + 1, column: parser.problem_mark.column + 1)
        let context = parser.context.map {
            (
                String(cString: $0),
                SourceLocation(line: parser.context_mark.line + 1, column: parser.context_mark.column + 1)
            )
        }
        switch parser.error {
        case YAML_READER_ERROR:
            // As Yams counts it: the characters of the text before the byte libyaml stopped at, if that byte
            // starts one.
            let offset = text.utf8.index(text.startIndex, offsetBy: parser.problem_offset, limitedBy: text.endIndex)?
                .samePosition(in: text).map { text.distance(from: text.startIndex, to: $0) }
            return YAMLProblem(kind: .reader, problem: problem, mark: mark, offset: offset)
        case YAML_SCANNER_ERROR: return YAMLProblem(kind: .scanner, problem: problem, mark: mark, context: context)
        case YAML_PARSER_ERROR: return YAMLProblem(kind: .parser, problem: problem, mark: mark, context: context)
        case YAML_COMPOSER_ERROR: return YAMLProblem(kind: .composer, problem: problem, mark: mark, context: context)
        default: return YAMLProblem(kind: .memory, problem: problem, mark: mark)
        }
    }
}
