import Testing

/// The test tool ``ManualClock``: time and wake-ups move separately, sleeps honour cancellation.
@Suite(.timeLimit(.minutes(2))) struct ManualClockTests {
    /// Setting the time wakes no one; waking resumes the sleepers due by now, earliest first.
    @Test func settingTheTimeWakesNoOneAndWakingFollowsDeadlines() async throws {
        let clock = ManualClock()
        let woken = Recorder<Int>()
        let sleepers = [300, 100, 200].map { milliseconds in
            Task {
                try await clock.sleep(until: .init(offset: .milliseconds(milliseconds)))
                woken.append(milliseconds)
            }
        }
        defer { for sleeper in sleepers { sleeper.cancel() } }
        #expect(await clock.waitForSleepers(3))
        clock.setTime(to: .milliseconds(250))
        try await Task.sleep(for: .milliseconds(50))
        #expect(woken.values.isEmpty, "setTime woke a sleeper")
        #expect(clock.wakeSleepers() == 2)
        #expect(await eventually(timeout: .seconds(60)) { woken.values.count == 2 })
        #expect(Set(woken.values) == [100, 200])
        #expect(clock.sleeperCount == 1)
        clock.advance(by: .milliseconds(50))
        #expect(await eventually(timeout: .seconds(60)) { woken.values.count == 3 })
    }

    /// A sleep until a deadline already reached returns at once, without going to sleep.
    @Test func aDeadlineAlreadyReachedReturnsAtOnce() async throws {
        let clock = ManualClock()
        clock.setTime(to: .seconds(1))
        try await clock.sleep(until: .init(offset: .milliseconds(999)))
        #expect(clock.sleepsBegun == 0)
    }

    /// A cancelled sleeper throws `CancellationError` and is removed from the clock.
    @Test func aCancelledSleeperThrowsAndIsRemoved() async throws {
        let clock = ManualClock()
        let sleeper = Task { try await clock.sleep(until: .init(offset: .seconds(1))) }
        defer { sleeper.cancel() }
        #expect(await clock.waitForSleepers(1))
        sleeper.cancel()
        let ended = await awaitResult(within: .seconds(5)) { try await sleeper.value }
        #expect(throws: CancellationError.self) { try #require(ended).get() }
        #expect(clock.sleeperCount == 0)
    }

    /// A sleeper woken and cancelled at once either returns or throws, but always ends.
    @Test func aWakeRacingACancellationIsNeverLost() async throws {
        for _ in 0..<200 {
            let clock = ManualClock()
            let sleeper = Task { try await clock.sleep(until: .init(offset: .seconds(1))) }
            defer { sleeper.cancel() }
            #expect(await clock.waitForSleepers(1))
            clock.setTime(to: .seconds(1))
            async let woke = clock.wakeSleepers()
            sleeper.cancel()
            _ = await woke
            let ended = await awaitResult(within: .seconds(5)) { _ = try? await sleeper.value }
            #expect(ended != nil, "the sleeper neither woke nor threw")
            #expect(clock.sleeperCount == 0)
        }
    }
}
