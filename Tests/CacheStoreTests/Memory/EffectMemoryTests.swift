import Testing

extension CPUHeavySuites {
    /// Memory is O(effects running): effects that ended leave nothing behind in their store, however
    /// many ran at once, or one after another. Measured in a process of its own (see ``MemoryProbe``).
    @Suite(.timeLimit(.minutes(10))) struct EffectMemoryTests {
        static let effects = 20_000

        /// 20,000 effects with distinct ids started, then cancelled, leave nothing behind: the store's
        /// tables shrink as the effects end. The bound, 16 bytes an effect, leaves room for what the
        /// process keeps besides on a loaded machine (the pool's threads' own memory, which does not
        /// grow with the count).
        @Test func effectsStartedAndCancelledLeaveNothingBehind() async throws {
            try await MemoryProbe.expectNothingKept(
                "effects-started-cancelled", count: Self.effects, "effects started and cancelled", bytesEach: 16)
        }

        /// The probe's effect cycles: each starts an effect with a new id, then cancels it or lets it end
        /// (`EffectCycle` in `CacheStoreMemoryProbe`). The control grows: a cancelled `Task.sleep` keeps
        /// its timer until its deadline.
        static let cycles = [
            "run-cancelled", "concatenation-cancelled", "debounce-cancelled-while-waiting",
            "throttle-cancelled-while-waiting", "run-ended", "throttle-ended",
        ]
        static let control = "sleep-cancelled-control"

        /// Thousands of effects with distinct ids, started and then cancelled or ended, one after another,
        /// leave nothing behind: the heap does not grow per cycle (a dictionary entry for the id alone
        /// would be over 40 bytes), every effect ends, and every cancelled sleep is resumed.
        ///
        /// `throttle-ended`: a throttle per row id (`throttle(id: "like-\(post.id)")`) does not grow the
        /// store, as a store's `ThrottleSchedule` sweeps the bookings whose interval is over.
        @Test(arguments: cycles + [control])
        func distinctIDsStartedAndEndedLeaveNothingBehind(cycle: String) async throws {
            // Under ThreadSanitizer the heap counts the sanitizer's own memory as threads sync (55 bytes
            // per debounce cycle once): there fewer cycles run, for the first check (and the sanitizer's),
            // and their growth is checked only in the plain run (CI runs both).
            let count = isUnderThreadSanitizer ? 500 : Soak.isFull ? 50_000 : 4_000
            let report = try await MemoryProbe.run(cycle, count: count)
            #expect(
                report.details == ["parked 0", "running 0"], "sleeps still parked (not cancelled), effects running")
            guard !isUnderThreadSanitizer else { return }
            if cycle == Self.control {
                #expect(
                    report.growth >= 16, "the control grew by \(report.growth) bytes per cycle: the probe sees nothing")
            } else {
                #expect(report.growth < 16, "the heap grew by \(report.growth) bytes per cycle")
            }
        }
    }
}
