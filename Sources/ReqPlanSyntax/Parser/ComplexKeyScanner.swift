import CYaml

/// Finds mapping keys that are lists or mappings, or aliases of them, before the text is composed.
///
/// Yams, which composes data files, API descriptions and Arazzo documents, hashes mapping keys to detect
/// duplicates. A key that is an alias of a deeply aliased collection (a "billion laughs" key) would take
/// exponential time to hash, so such keys are refused up front; plans refuse them too, as their keys are plain
/// names (`YAMLComposer` compares only scalar keys). The keys are the ones libyaml reads (its events, nothing
/// composed), so text inside a block scalar, a quoted scalar or a comment is never taken for a key: a line
/// scan found keys in `&quot;…` text, and missed the key after a block scalar in a list item. A scalar, or an
/// alias of one, is an ordinary key, written `? key` or not. The scan runs only when the text may define an
/// anchor, since without anchors there are no aliases (and a collection as a key costs its size to hash).
enum ComplexKeyScanner {
    /// Where the first key that is a list or a mapping, or an alias of one, starts; `nil` when there is none
    /// before libyaml stops (at the first document's end, or at an error the composer then reports).
    /// - Complexity: O(*n*) in the length of `text`.
    static func firstComplexKey(in text: String) -> SourceLocation? {
        guard definesAnchor(text) else { return nil }
        // The open collections, innermost last, and for a mapping whether its next node is a key.
        var open: [(isMapping: Bool, keyNext: Bool)] = []
        // Anchors whose latest definition is a list or a mapping.
        var collections: Set<String> = []
        var found: SourceLocation?
        func nodeEnded() {
            if let last = open.indices.last, open[last].isMapping { open[last].keyNext.toggle() }
        }
        LibYAMLEvents.forEach(in: text) { event in
            let isKey = open.last.map { $0.isMapping && $0.keyNext } ?? false
            switch event.type {
            case YAML_SCALAR_EVENT:
                if let anchor = LibYAMLEvents.name(event.data.scalar.anchor) { collections.remove(anchor) }
                nodeEnded()
            case YAML_ALIAS_EVENT:
                if isKey, let name = LibYAMLEvents.name(event.data.alias.anchor), collections.contains(name) {
                    found = LibYAMLEvents.location(event.start_mark)
                    return false
                }
                nodeEnded()
            case YAML_SEQUENCE_START_EVENT, YAML_MAPPING_START_EVENT:
                if isKey {
                    found = LibYAMLEvents.location(event.start_mark)
                    return false
                }
                let isMapping = event.type == YAML_MAPPING_START_EVENT
                let anchor = isMapping ? event.data.mapping_start.anchor : event.data.sequence_start.anchor
                if let anchor = LibYAMLEvents.name(anchor) { collections.insert(anchor) }
                open.append((isMapping, true))
            case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
                _ = open.popLast()  // libyaml pairs ends with starts
                nodeEnded()
            case YAML_DOCUMENT_END_EVENT:
                // The composers read one document, and refuse a second before composing it.
                return false
            default:
                break
            }
            return true
        }
        return found
    }

    /// Whether the text has `&` followed by a name where libyaml can read an anchor: at the start, after a
    /// space, a tab or a line break (libyaml's: `\n`, `\r`, U+0085, U+2028, U+2029), a byte-order mark, a flow
    /// indicator (`[`, `{`, `,`), or a `:` or `?` that flow collections read without a space after it
    /// (`{"a":&a [1], *a: 1}`). It errs one way only: `&quot;` in prose makes the scan run, to no harm.
    static func definesAnchor(_ text: String) -> Bool {
        var previous: Unicode.Scalar = " "
        var sawAmpersand = false
        for scalar in text.unicodeScalars {
            if sawAmpersand {
                if !" \t\n\r&".unicodeScalars.contains(scalar) { return true }
                sawAmpersand = false
            }
            if scalar == "&" && " \t\n\r[{,:?\u{85}\u{2028}\u{2029}\u{FEFF}".unicodeScalars.contains(previous) {
                sawAmpersand = true
            }
            previous = scalar
        }
        return false
    }
}
