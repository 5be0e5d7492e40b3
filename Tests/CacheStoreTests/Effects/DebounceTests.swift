import CacheStore
import Foundation
import Testing

/// `debounce(id:for:clock:)`: an effect starts once its wait is over, and a wait is over when its
/// deadline has passed on its clock, whether or not its timer has fired yet.
@Suite(.timeLimit(.minutes(2))) struct DebounceTests {
    enum Key: Hashable, Sendable { case query }
    enum Action: Sendable, Equatable {
        case queryChanged(String)
        case results(String)
    }
    enum ID: Hashable, Sendable { case search }

    /// A search whose 300 ms were over before its late timer fired still runs: "a" (0 ms), then "ab" (350 ms).
    @Test func aTimerThatFiresLateDropsNoSearch() async throws {
        let clock = ManualClock()
        let searched = Recorder<String>()
        let store = Store<Key, Action, Void>(
            initialValues: [:],
            actionHandler: StoreActionHandler { state, action, _ in
                switch action {
                case .queryChanged(let query):
                    state.set(value: query, forKey: .query)
                    return ActionEffect { .results(query) }
                        .debounce(id: ID.search, for: .milliseconds(300), clock: clock)
                case .results(let query):
                    searched.append(query)
                    return .none
                }
            })

        store.handle(action: .queryChanged("a"))
        _ = await clock.waitForSleepers(1, timeout: .milliseconds(500))
        clock.setTime(to: .milliseconds(350))  // "a"'s 300 ms are over, but its timer has not fired
        store.handle(action: .queryChanged("ab"))
        clock.wakeSleepers()  // the timer fires late
        _ = await eventually(timeout: .seconds(3)) { !searched.values.isEmpty }

        for milliseconds in [650, 700, 1_000, 2_000] {
            _ = await clock.waitForSleepers(1, timeout: .milliseconds(300))
            clock.advance(to: .milliseconds(milliseconds))
        }
        _ = await eventually(timeout: .seconds(3)) { searched.values.count >= 2 }
        try await Task.sleep(for: .milliseconds(100))  // anything more would show now
        #expect(searched.values == ["a", "ab"])
    }

    // MARK: - A debounced search and the same search started now

    /// A search debounced while typing and the same search started now (a "search now" button), under one id.
    @Suite(.timeLimit(.minutes(2))) struct SearchStartedNow {
        enum Key: Hashable, Sendable { case a, b }

        enum Action: Equatable, Sendable {
            case start
            case startMapped
            case searchNow
            case done(Int)
        }

        enum SearchID: Hashable { case run, debounce }

        /// A search debounced while typing (`.start`) and the same search started now (`.searchNow`, a
        /// "search now" button), under the same id: the one started now delivers at once, and the debounced one, started after its wait, delivers too (the first has ended by then:
        /// nothing runs under the id to replace).
        @Test func aSearchStartedNowLeavesTheDebouncedOneToRunLater() async {
            let received = Recorder<Action>()
            let store = Store<Key, Action, Void>(
                initialValues: [:],
                actionHandler: StoreActionHandler { _, action, _ in
                    received.append(action)
                    let search = ActionEffect<Action>(id: SearchID.run) { .done(0) }
                    switch action {
                    case .start:
                        return search.debounce(id: SearchID.debounce, for: .milliseconds(800), clock: ContinuousClock())
                    case .searchNow:
                        return search
                    case .startMapped, .done:
                        return .none
                    }
                },
                dependency: ())
            store.handle(action: .start)
            store.handle(action: .searchNow)
            #expect(await eventually(timeout: .seconds(60)) { received.values.count >= 4 })
            #expect(received.values == [.start, .searchNow, .done(0), .done(0)])
        }
    }
}
