import Testing

/// An iterator of `changes` that is made but not consumed holds bounded memory however many distinct
/// keys change. What it yields past its bound is the engine's design; the iterator must still receive a
/// later change. Measured in a process of its own.
@Suite(.timeLimit(.minutes(2))) struct ChangesBoundTests {
    /// Enough keys that unbounded growth shows several times over the allowance, few enough for a
    /// debug build (a write to a subscribed cache takes about 25 µs there).
    static let keys = 40_000
    /// 40 bytes per key, where a changed key waiting in the iterator's buffer costs about 160.
    static let allowedGrowth = keys * 40

    @Test func anUnconsumedIteratorStaysBounded() async throws {
        let report = try await MemoryProbe.run("changes-unconsumed", count: Self.keys)
        #expect(
            report.growth <= Self.allowedGrowth,
            "\(Self.keys) changed keys waiting for an unconsumed iterator grew the heap by \(report.growth) bytes")
        #expect(report.details == ["true"], "the iterator received the change made after them")
    }
}
