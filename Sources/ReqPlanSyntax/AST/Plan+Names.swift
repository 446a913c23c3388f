extension Plan {
    /// Whether `name` can name a step, an input, a var or a for_each item: `[A-Za-z_][A-Za-z0-9_-]*`, the rule
    /// the parser holds names to (RP0106). For tools that write names into a plan (the language server's
    /// rename).
    public static func isValidName(_ name: String) -> Bool { PlanReader.isValidName(name) }
}
