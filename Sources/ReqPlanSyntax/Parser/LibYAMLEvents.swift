// libyaml, as Yams vendors and builds it (see YAMLComposer).
import CYaml

/// libyaml's events over a text, for the scans that read a text before it is composed (`ComplexKeyScanner`,
/// `SurrogatePairEscapes`): what libyaml itself reads as keys, anchors and quoted scalars, so that no text
/// inside a scalar or a comment is ever taken for syntax.
enum LibYAMLEvents {
    /// Calls `body` with each event of `text`, in order, until it returns `false`, the stream ends, or libyaml
    /// stops at an error (which the composer reports when it reads the same text).
    /// - Returns: `nil` when libyaml read without error as far as `body` wanted; else the index (in characters,
    ///   as libyaml counts them) from which its reading is not known: the start of what it was reading when it
    ///   stopped (a quoted scalar, a flow mapping), or where it stopped, whichever is first.
    /// - Complexity: O(*n*) in the length of `text`; nothing is composed or kept.
    @discardableResult
    static func forEach(in text: String, _ body: (yaml_event_t) -> Bool) -> Int? {
        var contiguous = text
        return contiguous.withUTF8 { bytes in
            var parser = yaml_parser_t()
            guard yaml_parser_initialize(&parser) == 1 else { return 0 }
            defer { yaml_parser_delete(&parser) }
            yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING)
            yaml_parser_set_input_string(&parser, bytes.baseAddress, bytes.count)
            var event = yaml_event_t()
            while true {
                guard yaml_parser_parse(&parser, &event) == 1 else {
                    // A reader's error (bytes that are no text) has no mark: nothing after the start is known.
                    if parser.error == YAML_READER_ERROR { return 0 }
                    let stopped = parser.problem_mark.index
                    return parser.context == nil ? stopped : min(stopped, parser.context_mark.index)
                }
                defer { yaml_event_delete(&event) }
                if event.type == YAML_STREAM_END_EVENT || !body(event) { return nil }
            }
        }
    }

    /// Where an event starts, 1-based, columns counted in Unicode scalars as libyaml counts them.
    static func location(_ mark: yaml_mark_t) -> SourceLocation {
        SourceLocation(line: mark.line + 1, column: mark.column + 1)
    }

    /// An anchor's or alias' name.
    static func name(_ pointer: UnsafeMutablePointer<UInt8>?) -> String? {
        pointer.map { String(cString: $0) }
    }
}
