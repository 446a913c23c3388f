/// `--shard K/N`: the K-th of N parts of a suite, so N machines (a CI matrix, a Kubernetes Indexed
/// Job) split one suite with no coordinator.
///
/// The files are put in suite order (`SuiteFiles.inOrder`: by bytes, whatever the order of the
/// arguments) and dealt out like cards: the file at position `i` (from 0) goes to part `i mod N + 1`.
/// So every file is in exactly one part, the parts differ in size by at most one file, and every
/// machine that sees the same files computes the same parts.
public struct Shard: Sendable, Hashable, CustomStringConvertible {
    /// Which part, from 1.
    public var index: Int
    /// How many parts.
    public var count: Int

    /// The environment variable Kubernetes sets in each pod of an Indexed Job (from 0).
    public static let jobIndexVariable = "JOB_COMPLETION_INDEX"
    /// The most parts a suite may be split into.
    public static let maxCount = 10_000

    /// Why a `--shard` value cannot be used.
    public struct ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        /// One sentence naming the problem and the expected form.
        public var message: String
        /// The message.
        public var description: String { message }
    }

    /// A part.
    public init(index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    /// Parses `K/N` (1 ≤ K ≤ N ≤ 10 000), or `JOB_COMPLETION_INDEX/N`: the part is then the value of
    /// that environment variable plus one (Kubernetes numbers the pods of an Indexed Job from 0).
    /// - Throws: `ParseError` for another form, a number out of range, or an unset or malformed variable.
    public init(parsing text: String, environment: [String: String]) throws(ParseError) {
        let form = "a part is written K/N (part K of N, 1 ≤ K ≤ N) or \(Self.jobIndexVariable)/N"
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let count = Int(parts[1]), (1...Self.maxCount).contains(count) else {
            throw ParseError(message: "`\(text)`: \(form), N from 1 to \(Self.maxCount)")
        }
        let index: Int
        if parts[0] == Self.jobIndexVariable {
            guard let value = environment[Self.jobIndexVariable] else {
                throw ParseError(
                    message: "`\(text)`: the environment variable \(Self.jobIndexVariable) is not set "
                        + "(Kubernetes sets it in the pods of an Indexed Job)")
            }
            guard let zeroBased = Int(value), zeroBased >= 0 else {
                throw ParseError(message: "`\(text)`: \(Self.jobIndexVariable) is `\(value)`, not a number from 0")
            }
            index = zeroBased + 1
            guard index <= count else {
                throw ParseError(
                    message: "`\(text)`: \(Self.jobIndexVariable) is \(value), but there are only "
                        + "\(count) parts (it counts from 0 to \(count - 1); set N to the Job's `completions`)")
            }
        } else {
            guard let value = Int(parts[0]), (1...count).contains(value) else {
                throw ParseError(message: "`\(text)`: \(form); K must be from 1 to \(count)")
            }
            index = value
        }
        self.init(index: index, count: count)
    }

    /// The files of this part, in suite order.
    public func select(_ files: [String]) -> [String] {
        files.sorted(by: SuiteFiles.inOrder).enumerated().filter { $0.offset % count == index - 1 }.map(\.element)
    }

    /// `K/N`.
    public var description: String { "\(index)/\(count)" }
}
