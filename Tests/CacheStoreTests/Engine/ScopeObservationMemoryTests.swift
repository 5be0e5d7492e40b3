import Testing

/// Memory is O(scopes alive): a scoped store that was observed and then released leaves nothing behind
/// in its parent, even when the key it observed never changes (issue 12). Measured in a process of its
/// own (see ``MemoryProbe``).
@Suite struct ScopeObservationMemoryTests {
    static let scopes = 20_000

    /// 20,000 row stores made over one key, each read by an observer, then released: the observers
    /// stayed registered on the parent's key until that key changed, about 666 bytes each.
    @Test func observedScopesReleasedLeaveNothingBehind() async throws {
        try await MemoryProbe.expectNothingKept(
            "observed-scopes-released", count: Self.scopes, "observed scoped stores made and released")
    }
}
