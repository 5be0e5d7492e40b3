import CacheStore
import Foundation
import Testing

/// `throttle(id:for:clock:latest:)`: at most one start per interval, and a start booked for an
/// instant that has passed is due, whether or not its timer has fired yet.
@Suite(.timeLimit(.minutes(2))) struct ThrottleTests {
    enum Key: Hashable, Sendable { case unused }
    enum Action: Sendable, Equatable {
        case tap(Int)
        case delivered(Int)
    }
    enum ID: Hashable, Sendable { case refresh }

    /// A store whose taps each return a throttled effect delivering the tap's number, recorded in
    /// `delivered`.
    static func tapStore<C: Clock>(
        clock: C, interval: C.Duration, latest: Bool, delivered: Recorder<Int>
    ) -> Store<Key, Action, Void> {
        Store(
            initialValues: [:],
            actionHandler: StoreActionHandler { _, action, _ in
                switch action {
                case .tap(let number):
                    return ActionEffect { .delivered(number) }
                        .throttle(id: ID.refresh, for: interval, clock: clock, latest: latest)
                case .delivered(let number):
                    delivered.append(number)
                    return .none
                }
            })
    }

    /// A tap booked for an instant that has passed runs though its timer fires late: taps at 0, 0.5, 1.05 s run all 3.
    @Test(arguments: [true, false])
    func aTimerThatFiresLateDropsNoEffect(latest: Bool) async throws {
        let clock = ManualClock()
        let delivered = Recorder<Int>()
        let store = Self.tapStore(clock: clock, interval: .seconds(1), latest: latest, delivered: delivered)

        store.handle(action: .tap(1))
        #expect(await eventually(timeout: .seconds(60)) { delivered.values == [1] }, "the first tap runs at once")

        clock.setTime(to: .milliseconds(500))
        store.handle(action: .tap(2))
        // Tap 2 is booked for 1 s; its wait may or may not be a sleep on the clock: no requirement.
        _ = await clock.waitForSleepers(1, timeout: .milliseconds(500))

        clock.setTime(to: .milliseconds(1_050))  // 1 s has passed, but no timer has fired
        store.handle(action: .tap(3))
        clock.wakeSleepers()  // the 1 s timer fires late
        _ = await eventually(timeout: .seconds(3)) { delivered.values.count >= 2 }

        // Then time moves on past tap 3's slot at 2 s, waking each sleeper when it is due.
        for seconds in 2...4 {
            _ = await clock.waitForSleepers(1, timeout: .milliseconds(300))
            clock.advance(to: .seconds(seconds))
            _ = await eventually(timeout: .seconds(1)) { delivered.values.count >= 3 }
        }
        _ = await eventually(timeout: .seconds(3)) { delivered.values.count >= 3 }
        try await Task.sleep(for: .milliseconds(100))  // anything more would show now
        #expect(delivered.values == [1, 2, 3])
    }

    /// A tap every 1 ms for 2 s through a 100 ms throttle starts the effect about once per 100 ms, on a busy pool too.
    @Test func rapidTapsRunAboutOncePerInterval() async throws {
        let interval = Duration.milliseconds(100)
        let runs = LockedBox(0)
        let delivered = Recorder<Int>()
        let store = Store<Key, Action, Void>(
            initialValues: [:],
            actionHandler: StoreActionHandler { _, action, _ in
                switch action {
                case .tap(let number):
                    return ActionEffect {
                        runs.withValue { $0 += 1 }
                        return .delivered(number)
                    }
                    .throttle(id: ID.refresh, for: interval, clock: ContinuousClock(), latest: true)
                case .delivered(let number):
                    delivered.append(number)
                    return .none
                }
            })
        // While the test taps, the concurrency pool is kept busy, as on a loaded machine, in bursts of
        // 3 ms: a throttle's timer then often wakes its task a few milliseconds late. (At background
        // priority, so that the work of other tests, and the effects, go first between bursts.)
        let load = (0..<ProcessInfo.processInfo.activeProcessorCount).map { _ in
            Task.detached(priority: .background) {
                while !Task.isCancelled {
                    let burst = ContinuousClock.now + .milliseconds(3)
                    while ContinuousClock.now < burst {}
                    await Task.yield()
                }
            }
        }
        defer { for task in load { task.cancel() } }
        // Tapped from a thread of its own, so that the taps hold no thread of the concurrency pool,
        // where the throttled effects run.
        let tapped = await offThePool(within: .seconds(20)) { () -> (elapsed: Duration, tapTimes: [Duration]) in
            let clock = ContinuousClock()
            let start = clock.now
            var tapTimes: [Duration] = []
            var number = 0
            while clock.now - start < .seconds(2) {
                number += 1
                tapTimes.append(clock.now - start)
                store.handle(action: .tap(number))
                usleep(1_000)
            }
            return (clock.now - start, tapTimes)
        }
        for task in load { task.cancel() }
        let tapping = try #require(tapped, "the tapping loop did not end within 20 s")
        try await Task.sleep(for: interval * 3)  // the last booked start is due by then
        let runCount = runs.current
        // The starts a correct throttle makes for these tap times: on a loaded machine the tapping
        // thread may stall for longer than the interval, leaving whole intervals without a tap.
        let ideal = Self.throttledStarts(of: tapping.tapTimes, interval: interval)
        let expected = min(Int(tapping.elapsed / interval), ideal) - 1
        #expect(
            runCount >= expected,
            """
            \(tapping.tapTimes.count) taps over \(tapping.elapsed) through a \(interval) throttle started \
            the effect \(runCount) times; expected at least \(expected) (a correct throttle: \(ideal))
            """)
    }

    /// How many starts a `latest: true` throttle of `interval` makes for taps at `tapTimes`, each
    /// start at the tap's instant or at the instant booked for it.
    static func throttledStarts(of tapTimes: [Duration], interval: Duration) -> Int {
        var lastStart: Duration?
        var booked: Duration?
        var starts = 0
        for time in tapTimes {
            if let due = booked, due <= time {
                starts += 1
                (lastStart, booked) = (due, nil)
            }
            if let lastStart, time < lastStart + interval {
                if booked == nil { booked = lastStart + interval }
            } else {
                starts += 1
                lastStart = time
            }
        }
        return starts + (booked == nil ? 0 : 1)
    }
}
