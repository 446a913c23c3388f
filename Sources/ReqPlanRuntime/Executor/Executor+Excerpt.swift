import ReqPlanTransport

extension Executor {
    /// How much of a failed response's body its failure shows, in characters.
    static let excerptLength = 200

    /// The start of a response's body as a failure shows it: about 200 characters of text on one line (each
    /// run of white space or control characters one space), `…` when there is more, through the textual net
    /// (a server may repeat a secret: the net runs over the first 4 KiB, so that a secret the cut would
    /// split is hidden whole); for a body that is not text, its size and type. Nil for an empty body.
    func excerpt(of response: TransportResponse) -> String? {
        guard !response.body.isEmpty else { return nil }
        let start = response.body.prefix(4096)
        var decoded = String(decoding: start, as: UTF8.self)
        // A character the 4 KiB cut splits is not a sign of binary data.
        if response.body.count > start.count, decoded.hasSuffix("\u{FFFD}") { decoded.removeLast() }
        let binary = decoded.unicodeScalars.prefix(Self.excerptLength).contains {
            $0 == "\u{FFFD}" || ($0.value < 0x20 && !"\t\n\r".unicodeScalars.contains($0))
        }
        if binary {
            let type = response.headers.first { $0.name.lowercased() == "content-type" }?.value ?? "no content type"
            return "(\(response.body.count) bytes of \(type))"
        }
        var line = ""
        var spaced = false
        for scalar in secretNet.redact(decoded).unicodeScalars {
            if scalar.properties.isWhitespace || scalar.value < 0x20 || scalar.value == 0x7F {
                spaced = !line.isEmpty
                continue
            }
            if spaced { line.unicodeScalars.append(" ") }
            spaced = false
            line.unicodeScalars.append(scalar)
        }
        guard line.count > Self.excerptLength || response.body.count > start.count else { return line }
        return String(line.prefix(Self.excerptLength)) + "…"
    }
}
