extension Diagnostic {
    /// A change that fixes a diagnostic's problem: `replacement` in place of the text at the diagnostic's
    /// range, which is on one line.
    ///
    /// It is data, as rustc's machine-applicable suggestions and clang's fix-its are: the language server
    /// offers it as a code action, `validate --format json` prints it (`fix: { title, replacement, safe }`), and
    /// `reqplan fix` applies the safe ones, so that no tool reads the message for it. The replacement is text
    /// as the file writes it: a YAML value keeps the quotes it needs (`scalar(_:replacing:title:)`).
    public struct Fix: Sendable, Hashable {
        /// What the change does, as an editor lists it: "Write the specification's form …".
        public var title: String
        /// The text that takes the place of the diagnostic's range.
        public var replacement: String
        /// Whether the change is what the author meant whenever it applies, so a tool may make it unasked
        /// (rustc's `MachineApplicable`): a misspelling with one candidate, another runner's shorthand in the
        /// specification's form. `false` for a change that is a start the author completes (rustc's
        /// `MaybeIncorrect`): RP0853's `default(…)`, whose fallback is a placeholder. An editor offers both;
        /// `reqplan fix` applies the safe ones only.
        public var isSafe: Bool
        /// The text the range holds when the fix was made, when known: a tool applies the fix only where the
        /// range still holds it (a file edited since, a range wider than the name it was made for).
        public var original: String?

        /// Creates a fix.
        /// - Parameters:
        ///   - title: what the change does.
        ///   - replacement: the text for the diagnostic's range.
        ///   - isSafe: whether a tool may apply it unasked (default: yes).
        ///   - original: the text the range holds, when known.
        public init(title: String, replacement: String, isSafe: Bool = true, original: String? = nil) {
            self.title = title
            self.replacement = replacement
            self.isSafe = isSafe
            self.original = original
        }

        /// Whether the fix applies where the range holds `written`: it changes the text, and the text is the
        /// one it was made for (when it says).
        public func applies(to written: String) -> Bool {
            replacement != written && (original == nil || original == written)
        }

        /// A fix that writes the YAML (or JSON) scalar `value` where the scalar `written` is, in its style: a
        /// double-quoted scalar stays double-quoted (so a JSON document stays JSON), a single-quoted one
        /// single-quoted, and a plain one plain where `value` reads back as the same string plain, else
        /// single-quoted (`{$sourceDescriptions.api.url}#/paths/~1pets/get` cannot start a plain scalar).
        /// - Parameters:
        ///   - value: the string the new scalar is to hold.
        ///   - written: the scalar's text as the document writes it, quotes included (a diagnostic's range).
        ///   - title: what the change does.
        /// - Returns: the fix; `nil` when `written` is not one scalar on one line (a block scalar, a flow
        ///   collection), whose range a replacement could not stand for.
        public static func scalar(_ value: String, replacing written: String, title: String) -> Fix? {
            guard !written.isEmpty, !written.contains(where: \.isNewline) else { return nil }
            let replacement: String
            switch written.first {
            case "\"":
                guard written.count >= 2, written.last == "\"" else { return nil }
                replacement = doubleQuoted(value)
            case "'":
                guard written.count >= 2, written.last == "'" else { return nil }
                replacement = singleQuoted(value)
            case "|", ">", "[", "{", "&", "*", "!":
                return nil
            default:
                replacement = readsBackPlain(value) ? value : singleQuoted(value)
            }
            return Fix(title: title, replacement: replacement, original: written)
        }

        /// `value` in single quotes, a quote in it doubled.
        static func singleQuoted(_ value: String) -> String {
            "'" + value.replacingOccurrences(of: "'", with: "''") + "'"
        }

        /// `value` in double quotes, escaped as JSON escapes it (a double-quoted YAML scalar reads JSON's escapes).
        static func doubleQuoted(_ value: String) -> String {
            var out = ""
            Value.writeString(value, to: &out)
            // DEL is JSON text but not a printable YAML character (YAML 1.2 `c-printable`): escaped too.
            return out.replacingOccurrences(of: "\u{7F}", with: "\\u007f")
        }

        /// Whether `value`, written plain, is read back as this same string, in a block mapping and in a
        /// flow one alike: letters, digits and `$ . _ - / ~ +` only, not starting with `-`, and not a word or
        /// number the core schema reads as something else.
        static func readsBackPlain(_ value: String) -> Bool {
            guard let first = value.unicodeScalars.first, first != "-" else { return false }
            let allowed = value.unicodeScalars.allSatisfy { scalar in
                (scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)))
                    || "$._-/~+".unicodeScalars.contains(scalar)
            }
            return allowed && Value.coreSchema(value, plain: true) == .string(value)
        }
    }
}
