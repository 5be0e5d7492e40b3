import Testing

/// A journal with a window of 10,000 actions holds as much memory, and as many bytes of records,
/// after a long session as after its first 10,000 actions. Measured in a process of its own.
@Suite(.timeLimit(.minutes(3))) struct JournalWindowMemoryTests {
    /// `swift test` records 50,000 actions after the first 10,000; the full soak 990,000 (a million in all).
    static let actions = Soak.isFull ? 990_000 : 50_000

    @Test func aWindowedJournalStaysWithinFivePercentOfItsSizeAfterItsWindow() async throws {
        let report = try await MemoryProbe.run("journal-window", count: Self.actions)
        let inUse = try #require(report.details.first { $0.hasPrefix("in use ") }.flatMap { Int($0.dropFirst(7)) })
        #expect(
            report.growth <= inUse / 20,
            "the heap grew by \(report.growth) bytes over \(Self.actions) actions, from \(inUse) in use after 10,000")
        let journal = try #require(report.details.first { $0.hasPrefix("journal ") })
            .split(separator: " ").dropFirst().compactMap { Int($0) }
        try #require(journal.count == 2)
        #expect(
            journal[1] <= journal[0] + journal[0] / 20, "the journal's records: \(journal[0]) bytes, then \(journal[1])"
        )
    }
}
