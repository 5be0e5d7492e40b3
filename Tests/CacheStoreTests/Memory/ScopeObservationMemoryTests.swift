import Testing

/// Memory is O(scopes alive): a scoped store that was observed and then released leaves nothing behind
/// in its parent, even when the key it observed never changes. Measured in a process of its own (see
/// ``MemoryProbe``).
@Suite(.timeLimit(.minutes(2))) struct ScopeObservationMemoryTests {
    static let scopes = 20_000
    static let keys = 60_000

    /// 20,000 row stores made over one key, each read by an observer, then released, leave nothing
    /// behind: a released scope's observers do not stay registered on the parent's key until it changes.
    @Test func observedScopesReleasedLeaveNothingBehind() async throws {
        try await MemoryProbe.expectNothingKept(
            "observed-scopes-released", count: Self.scopes, "observed scoped stores made and released")
    }

    /// A long-lived scope keeps nothing per key for 60,000 keys each set, observed through it, then
    /// removed. What it keeps is bounded (the empty slots a core keeps before it drops them, and the
    /// subjects the scope keeps until its next sweep): a dictionary's capacity moves the figure by up to
    /// about 700 KB at the instant measured, whatever the count, where each key kept would cost about 760
    /// bytes (45 MB here).
    @Test(.timeLimit(.minutes(2)), arguments: ["scope-observes-new-keys", "store-scope-observes-new-keys"])
    func aLongLivedScopeKeepsNothingPerKeyItObservedOnceRemoved(scenario: String) async throws {
        try await MemoryProbe.expectNothingKept(
            scenario, count: Self.keys, "keys set, observed through a long-lived scope and removed", bytesEach: 16)
    }
}
