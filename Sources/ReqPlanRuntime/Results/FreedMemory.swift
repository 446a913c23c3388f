#if canImport(Glibc)
    import Glibc
#endif

/// Gives memory freed after planning back to the operating system.
///
/// A process-wide act, so the library never does it on its own: the command line (and the benchmark)
/// call `release()` between planning and the run.
public enum FreedMemory {
    /// Reading a plan builds a YAML node tree that is freed once the plan is planned; glibc keeps
    /// those pages, and the run then allocates on other threads (other malloc arenas), so a large
    /// plan's peak memory would hold both. `malloc_trim(0)` returns the free pages first: for a
    /// 100,000-step plan about 75–95 MB (BENCHMARKS.md). A no-op where there is no glibc.
    public static func release() {
        #if canImport(Glibc)
            // `malloc_trim` is not exported by Swift's Glibc module: look it up in the C library.
            typealias Trim = @convention(c) (Int) -> Int32
            guard let trim = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return }
            _ = unsafeBitCast(trim, to: Trim.self)(0)
        #endif
    }
}
