import CacheStoreTesting
import Foundation
import Testing

enum TimingKey: Hashable, Sendable {
    case query, results, taps
}

enum TimingID: Hashable { case debounce, throttle }

enum TimingAction: Equatable, Sendable {
    case queryChanged(String)
    case results(String)
    case cancelSearch
    case tap(Int, latest: Bool)
    /// A tap whose effect has the throttle's own id.
    case tapSharingTheID(Int)
    case tapped(Int)
}

struct TimingDependency: Sendable {
    var clock: any Clock<Duration>
}

let timingHandler = StoreActionHandler<TimingKey, TimingAction, TimingDependency> { state, action, dependency in
    switch action {
    case .queryChanged(let query):
        state.set(value: query, forKey: .query)
        return ActionEffect { .results(query.uppercased()) }
            .debounce(id: TimingID.debounce, for: .milliseconds(300), clock: dependency.clock)
    case .results(let results):
        state.set(value: results, forKey: .results)
    case .cancelSearch:
        return .cancel(id: TimingID.debounce)
    case .tap(let number, let latest):
        return ActionEffect { .tapped(number) }
            .throttle(id: TimingID.throttle, for: .seconds(1), clock: dependency.clock, latest: latest)
    case .tapSharingTheID(let number):
        return ActionEffect(id: TimingID.throttle) { .tapped(number) }
            .throttle(id: TimingID.throttle, for: .seconds(1), clock: dependency.clock, latest: true)
    case .tapped(let number):
        state.update(.taps, as: [Int].self) { $0 = ($0 ?? []) + [number] }
    }
    return .none
}

/// Polls `condition` until it holds or 120 seconds pass (a TSan run on two cores once stalled every
/// test for about 30 s).
func eventually(_ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(120)
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return condition()
}

@Suite struct TestStoreEffectTimingTests {
    @Test func aDebouncedEffectRunsOnceTheClockPassedItsDelay() async {
        let clock = TestClock()
        let store = TestStore(
            initialValues: [:], actionHandler: timingHandler, dependency: TimingDependency(clock: clock))
        store.send(.queryChanged("a")) { $0.set(value: "a", forKey: .query) }
        await clock.advance(by: .milliseconds(200))
        store.send(.queryChanged("ab")) { $0.set(value: "ab", forKey: .query) }
        #expect(store.runningEffectIDs.count == 1)
        await clock.advance(by: .milliseconds(300))
        await store.receive(.results("AB")) { $0.set(value: "AB", forKey: .results) }
    }

    @Test func cancellingADebouncedEffectByItsIDRemovesIt() {
        let store = TestStore(
            initialValues: [:], actionHandler: timingHandler, dependency: TimingDependency(clock: TestClock()))
        store.send(.queryChanged("a")) { $0.set(value: "a", forKey: .query) }
        store.send(.cancelSearch)
        #expect(store.runningEffectIDs.isEmpty)
    }

    @Test func aThrottledEffectWithLatestRunsTheLastOneOfTheInterval() async {
        let clock = TestClock()
        let store = TestStore(
            initialValues: [:], actionHandler: timingHandler, dependency: TimingDependency(clock: clock))
        store.send(.tap(1, latest: true))
        await store.receive(.tapped(1)) { $0.set(value: [1], forKey: .taps) }
        store.send(.tap(2, latest: true))
        store.send(.tap(3, latest: true))
        #expect(store.runningEffectIDs.count == 1)
        await clock.advance(by: .seconds(1))
        await store.receive(.tapped(3)) { $0.set(value: [1, 3], forKey: .taps) }
    }

    /// Taps in a burst, none received between them: the first one, queued to run at once, stays
    /// queued; the later ones only replace each other while they wait for the interval's end.
    @Test(arguments: [false, true])
    func aThrottleBurstKeepsTheLeadingEffect(sharingTheID: Bool) async {
        let clock = TestClock()
        let store = TestStore(
            initialValues: [:], actionHandler: timingHandler, dependency: TimingDependency(clock: clock))
        for number in 1...3 { store.send(sharingTheID ? .tapSharingTheID(number) : .tap(number, latest: true)) }
        await store.receive(.tapped(1)) { $0.set(value: [1], forKey: .taps) }
        await clock.advance(by: .seconds(1))
        await store.receive(.tapped(3)) { $0.set(value: [1, 3], forKey: .taps) }
    }

    @Test func aThrottledEffectWithoutLatestRunsTheFirstOneOfTheInterval() async {
        let clock = TestClock()
        let store = TestStore(
            initialValues: [:], actionHandler: timingHandler, dependency: TimingDependency(clock: clock))
        store.send(.tap(1, latest: false))
        await store.receive(.tapped(1)) { $0.set(value: [1], forKey: .taps) }
        store.send(.tap(2, latest: false))
        store.send(.tap(3, latest: false))
        #expect(store.runningEffectIDs.count == 1)
        await clock.advance(by: .seconds(1))
        await store.receive(.tapped(2)) { $0.set(value: [1, 2], forKey: .taps) }
        await clock.advance(by: .seconds(1))
        store.send(.tap(4, latest: false))
        await store.receive(.tapped(4)) { $0.set(value: [1, 2, 4], forKey: .taps) }
    }
}

@Suite struct StoreEffectTimingTests {
    @Test func aDebouncedEffectRunsOnlyForTheLastActionOnceTheClockPassedItsDelay() async {
        let clock = TestClock()
        let store = Store(initialValues: [:], actionHandler: timingHandler, dependency: TimingDependency(clock: clock))
        store.handle(action: .queryChanged("a"))
        store.handle(action: .queryChanged("ab"))
        #expect(store.runningEffectIDs == [TimingID.debounce])
        #expect(await eventually { clock.sleeperCount == 1 })
        await clock.advance(by: .milliseconds(299))
        #expect(store.get(.results, as: String.self) == nil)
        await clock.advance(by: .milliseconds(1))
        #expect(await eventually { store.get(.results, as: String.self) == "AB" })
        #expect(await eventually { store.runningEffectIDs.isEmpty })
    }

    @Test func cancellingADebouncedEffectByItsIDStopsItsWait() async {
        let clock = TestClock()
        let store = Store(initialValues: [:], actionHandler: timingHandler, dependency: TimingDependency(clock: clock))
        store.handle(action: .queryChanged("a"))
        #expect(store.cancel(id: TimingID.debounce))
        #expect(await eventually { clock.sleeperCount == 0 })
        await clock.run()
        #expect(store.runningEffectIDs.isEmpty)
        #expect(store.get(.results, as: String.self) == nil)
    }

    @Test func aThrottledEffectStartsAtOnceThenAtMostOncePerInterval() async {
        let clock = TestClock()
        let store = Store(initialValues: [:], actionHandler: timingHandler, dependency: TimingDependency(clock: clock))
        store.handle(action: .tap(1, latest: true))
        #expect(await eventually { store.get(.taps, as: [Int].self) == [1] })
        store.handle(action: .tap(2, latest: true))
        store.handle(action: .tap(3, latest: true))
        #expect(await eventually { clock.sleeperCount == 1 })
        await clock.advance(by: .seconds(1))
        #expect(await eventually { store.get(.taps, as: [Int].self) == [1, 3] })
        #expect(await eventually { store.runningEffectIDs.isEmpty })
    }
}
