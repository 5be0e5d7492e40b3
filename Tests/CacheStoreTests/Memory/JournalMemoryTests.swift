import Testing

/// A journal with a window of 10,000 actions holds as much memory, and as many bytes of records,
/// after a long session as after its first 10,000 actions; a reader of a long journal holds its
/// checkpoints' offsets and one state. Measured in a process of its own.
@Suite(.timeLimit(.minutes(3))) struct JournalMemoryTests {
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

    /// `swift test` reads a journal of 20,000 actions; the full soak one of 100,000.
    static let journalActions = Soak.isFull ? 100_000 : 20_000

    @Test func aReaderHoldsItsCheckpointsAndOneStateAfterJumpsAllOverAJournal() async throws {
        let report = try await MemoryProbe.run("journal-jump", count: Self.journalActions)
        let checkpoints = try #require(
            report.details.first { $0.hasPrefix("checkpoints ") }.flatMap { Int($0.dropFirst(12)) })
        // 16 bytes a checkpoint's offset; 64 KiB for one state of 10 keys, the reader and its
        // read-ahead window. An offset per step would be 8 bytes an action: 160,000 bytes here.
        #expect(
            report.growth <= checkpoints * 16 + 65_536,
            "a reader of \(Self.journalActions) actions holds \(report.growth) bytes after 100 jumps")
    }
}
