import Testing

extension CPUHeavySuites {
    /// Memory is O(keys present + keys observed): a key that was set, read and removed, or only asked
    /// about, leaves nothing behind. Measured in a process of its own.
    @Suite(.timeLimit(.minutes(10))) struct KeyMemoryTests {
        /// Enough keys that a leak shows many times over the allowance, few enough for a debug build
        /// (a read of a new key builds a key path: about 25 µs).
        static let keys = 50_000
        /// 40 bytes per key, where a key that kept its slot and its key path would keep about 800.
        static let bytesEach = 40

        @Test func keysSetReadAndRemovedLeaveNothingBehind() async throws {
            try await MemoryProbe.expectNothingKept(
                "keys-set-read-removed", count: Self.keys, "keys set, read and removed", bytesEach: Self.bytesEach)
        }

        @Test func askingAboutAbsentKeysLeavesNothingBehind() async throws {
            try await MemoryProbe.expectNothingKept(
                "contains-absent", count: Self.keys, "absent keys asked about", bytesEach: Self.bytesEach)
        }

        /// The probe itself: a scenario that keeps 100 bytes per key is measured as at least that.
        @Test func theProbeSeesWhatAScenarioKeeps() async throws {
            let growth = try await MemoryProbe.run("retain-each", count: 10_000).growth
            #expect(growth >= 10_000 * 100)
        }

        @Test func theProbeReportsAnUnknownScenario() async {
            await #expect(throws: MemoryProbe.Failure.self) { try await MemoryProbe.run("no-such-scenario", count: 1) }
        }
    }
}
