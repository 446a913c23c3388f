extension DiagnosticRenderer {
    // MARK: GitLab code quality

    /// The diagnostics as GitLab's code-quality report (the Code Climate issue format GitLab reads from a
    /// job's `artifacts: reports: codequality:`): one object per diagnostic with `description` (the message,
    /// its notes and its hint), `check_name` (the code), `severity` (`major` for an error, `minor` for a
    /// warning, `info` for a note, as GitLab's ESLint and RuboCop formatters map theirs), `location` (`path`
    /// and `lines.begin`) and a `fingerprint`.
    ///
    /// The fingerprint is what GitLab compares between a merge request's report and its target branch's, to
    /// say which problems are new and which were fixed. It is a hash of the file, the code and the message, not
    /// of the line, so a problem that only moves (a line added above it) is the same problem; two alike in one
    /// file are told apart by their order.
    /// - Parameters:
    ///   - diagnostics: the diagnostics, each with its file (a diagnostic without one is placed in `file`).
    ///   - file: the path of the file checked, relative to the repository's root as GitLab shows files.
    public static func codeQuality(_ diagnostics: [Diagnostic], file: String) -> [Value] {
        var seen: [String: Int] = [:]
        return diagnostics.map { diagnostic in
            let path = diagnostic.file ?? file
            var description = diagnostic.message
            for note in diagnostic.notes { description += "\nnote: " + note.message }
            if let hint = diagnostic.hint { description += "\nhint: " + hint }
            let identity = [path, diagnostic.code.rawValue, diagnostic.message].joined(separator: "\u{0}")
            let occurrence = seen[identity, default: 0]
            seen[identity] = occurrence + 1
            let severity =
                switch diagnostic.severity {
                case .error: "major"
                case .warning: "minor"
                case .note: "info"
                }
            return .object([
                .init("description", .string(description)),
                .init("check_name", .string(diagnostic.code.rawValue)),
                .init("fingerprint", .string(fingerprint(identity + "\u{0}\(occurrence)"))),
                .init("severity", .string(severity)),
                .init(
                    "location",
                    .object([
                        .init("path", .string(path)),
                        .init("lines", .object([.init("begin", .int(diagnostic.range?.start.line ?? 1))])),
                    ])),
            ])
        }
    }

    /// 32 hexadecimal digits: two 64-bit FNV-1a hashes of `text`'s UTF-8, from different offsets, each
    /// finished with SplitMix64's mix so that texts differing in their last byte differ throughout. Not
    /// cryptographic (nothing here is secret or adversarial); stable across runs, machines and versions.
    static func fingerprint(_ text: String) -> String {
        func fnv(_ offset: UInt64) -> UInt64 {
            var z = text.utf8.reduce(offset) { ($0 ^ UInt64($1)) &* 0x0000_0100_0000_01B3 }
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        return [fnv(0xCBF2_9CE4_8422_2325), fnv(0x8422_2325_CBF2_9CE4)]
            .map { hash in
                let digits = String(hash, radix: 16)
                return String(repeating: "0", count: 16 - digits.count) + digits
            }
            .joined()
    }
}
