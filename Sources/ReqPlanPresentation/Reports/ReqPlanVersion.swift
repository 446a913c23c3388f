/// reqplan's version, as `reqplan --version` says it and reports name their creator.
public enum ReqPlanVersion {
    /// The version of this build.
    public static let current = "0.1.0"
}
