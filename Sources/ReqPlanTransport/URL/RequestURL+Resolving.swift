extension RequestURL {
    /// The URL a reference (a redirect's `Location`) names, resolved against this one as RFC 3986
    /// §5.2 says: an absolute URL as it is, `//host/…` with this scheme, `/path` and `path` against this
    /// authority and path (dot segments removed), `?query` with this path; nil when the result is not an
    /// http(s) URL with a host. This URL's fragment, and the reference's, are not kept: they are never sent.
    ///
    /// Written here rather than taken from Foundation's `URL(string:relativeTo:)` so that a request's URL
    /// is parsed by one parser, the same way at every hop (`RequestURLTests` checks RFC 3986's examples).
    public func resolving(_ reference: String) -> RequestURL? {
        if let parsed = try? RequestURL(parsing: reference) { return parsed }
        let bytes = reference.utf8
        // A scheme other than http(s): not followed.
        if let colon = bytes.firstIndex(of: UInt8(ascii: ":")),
            bytes[..<colon].allSatisfy({ Self.isSchemeByte($0) }), !bytes[..<colon].isEmpty
        {
            return nil
        }
        let scheme = isHTTPS ? "https:" : "http:"
        var reference = Substring(reference)
        if let hash = reference.firstIndex(of: "#") { reference = reference[..<hash] }
        if reference.hasPrefix("//") { return try? RequestURL(parsing: scheme + reference) }
        let base = "\(scheme)//\(authority)"
        if reference.isEmpty { return try? RequestURL(parsing: base + target) }
        if reference.hasPrefix("?") { return try? RequestURL(parsing: base + path + reference) }
        let queryStart = reference.firstIndex(of: "?") ?? reference.endIndex
        let referencePath = reference[..<queryStart]
        let query = reference[queryStart...]
        let merged: String
        if referencePath.hasPrefix("/") {
            merged = String(referencePath)
        } else {
            // RFC 3986 §5.2.3: the base path up to its last `/`, then the reference.
            let directory = path.lastIndex(of: "/").map { String(path[...$0]) } ?? "/"
            merged = directory + referencePath
        }
        return try? RequestURL(parsing: base + Self.removingDotSegments(merged) + query)
    }

    /// RFC 3986 §5.2.4: `.` and `..` segments taken out of `path`.
    static func removingDotSegments(_ path: String) -> String {
        var input = Substring(path)
        var output: [Substring] = []
        while !input.isEmpty {
            if input.hasPrefix("../") {
                input = input.dropFirst(3)
            } else if input.hasPrefix("./") {
                input = input.dropFirst(2)
            } else if input.hasPrefix("/./") {
                input = input.dropFirst(2)
            } else if input == "/." {
                input = "/"
            } else if input.hasPrefix("/../") {
                input = input.dropFirst(3)
                if !output.isEmpty { output.removeLast() }
            } else if input == "/.." {
                input = "/"
                if !output.isEmpty { output.removeLast() }
            } else if input == "." || input == ".." {
                input = ""
            } else {
                // The first segment, with its leading `/`, up to the next `/`.
                let start = input.hasPrefix("/") ? input.index(after: input.startIndex) : input.startIndex
                let end = input[start...].firstIndex(of: "/") ?? input.endIndex
                output.append(input[..<end])
                input = input[end...]
            }
        }
        return output.joined()
    }

    private static func isSchemeByte(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "+")
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
    }
}
