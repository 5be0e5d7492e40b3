import Testing

/// Memory is O(effects running): effects that ended leave nothing behind in their store, however
/// many ran at once. Measured in a process of its own (see ``MemoryProbe``).
@Suite struct EffectMemoryTests {
    static let effects = 20_000

    /// 20,000 effects with distinct ids started, then cancelled: their store kept about 250 bytes
    /// for each (its tables never shrank), 5 MB in all; now about 45 KB whatever the count.
    @Test func effectsStartedAndCancelledLeaveNothingBehind() async throws {
        let growth = try await MemoryProbe.run("effects-started-cancelled", count: Self.effects).growth
        #expect(
            growth <= Self.effects * 8,
            "\(Self.effects) effects started and cancelled grew the heap by \(growth) bytes")
    }
}
