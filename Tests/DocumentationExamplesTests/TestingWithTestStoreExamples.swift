import CacheStoreTesting
import Synchronization
import Testing
import XCTest

// The examples of CacheStoreTesting's Testing with TestStore article
// (Sources/CacheStoreTesting/Documentation.docc/TestingWithTestStore.md).

nonisolated enum FeedKey { case posts, isLoading }

enum FeedAction: Equatable {
    case load
    case loaded([String])
    case stop
    case refresh
    case open(String)
}

enum FeedID { case load }

struct FeedClient: Sendable {
    var fetch: @Sendable () async -> [String]
    var track: @Sendable (String) -> Void
}

typealias FeedHandler = StoreActionHandler<FeedKey, FeedAction, FeedClient>

nonisolated let feedHandler = FeedHandler { state, action, client in
    switch action {
    case .load:
        state.set(value: true, forKey: .isLoading)
        return ActionEffect(id: FeedID.load) { .loaded(await client.fetch()) }
    case .loaded(let posts):
        state.set(value: false, forKey: .isLoading)
        state.set(value: posts, forKey: .posts)
        return .none
    case .stop:
        state.set(value: false, forKey: .isLoading)
        return .cancel(id: FeedID.load)
    case .refresh:
        return .merge(ActionEffect(.stop), ActionEffect(.load))
    case .open(let title):
        return ActionEffect {
            client.track("open \(title)")
            return nil
        }
    }
}

@Test func loadingTheFeed() async {
    let store = TestStore(
        initialValues: [:],
        actionHandler: feedHandler,
        dependency: FeedClient(
            fetch: { ["Hello"] },
            track: unimplemented("track", placeholder: ())
        )
    )

    store.send(.load) { state in
        state.set(value: true, forKey: .isLoading)
    }
    await store.receive(.loaded(["Hello"])) { state in
        state.set(value: false, forKey: .isLoading)
        state.set(value: ["Hello"], forKey: .posts)
    }
}

@Test func refreshingReceivesTheImmediateActionsFirst() async {
    let store = TestStore(
        initialValues: [:], actionHandler: feedHandler, dependency: FeedClient(fetch: { ["Hello"] }, track: { _ in }))
    store.send(.refresh)
    await store.receive(.stop) { $0.set(value: false, forKey: .isLoading) }
    await store.receive(.load) { $0.set(value: true, forKey: .isLoading) }
    await store.receive(.loaded(["Hello"])) { state in
        state.set(value: false, forKey: .isLoading)
        state.set(value: ["Hello"], forKey: .posts)
    }
}

@Test func addingToTheCart() async {
    let store = TestStore(
        initialValues: [.total: 0], actionHandler: cartHandler, dependency: ())

    store.send(.add(name: "Tea", price: 4)) { state in
        state.set(value: ["Tea"], forKey: .items)
        state.set(value: 4, forKey: .total)
    }
}

@Test func openingAPostIsTracked() async {
    let tracked = Mutex<[String]>([])
    let store = TestStore(
        initialValues: [:],
        actionHandler: feedHandler,
        dependency: FeedClient(
            fetch: unimplemented("fetch", placeholder: []),
            track: { event in tracked.withLock { $0.append(event) } }
        )
    )

    store.send(.open("Hello"))
    await store.runEffectExpectingNoAction()
    #expect(tracked.withLock { $0 } == ["open Hello"])
}

@Test func seeingWhatRuns() {
    let store = TestStore(
        initialValues: [:], actionHandler: feedHandler, dependency: FeedClient(fetch: { [] }, track: { _ in }))
    store.send(.load) { $0.set(value: true, forKey: .isLoading) }
    #expect(store.runningEffectIDs == [AnyHashable(FeedID.load)])

    store.send(.stop) { $0.set(value: false, forKey: .isLoading) }
    #expect(store.runningEffectIDs.isEmpty)
    store.finish()
}

@Test func theDependencyChangesBetweenSteps() async {
    let store = TestStore(
        initialValues: [:], actionHandler: feedHandler, dependency: FeedClient(fetch: { ["Hello"] }, track: { _ in }))
    store.send(.load) { $0.set(value: true, forKey: .isLoading) }
    await store.receive(.loaded(["Hello"])) { state in
        state.set(value: false, forKey: .isLoading)
        state.set(value: ["Hello"], forKey: .posts)
    }

    store.dependency.fetch = { [] }
    store.send(.load) { $0.set(value: true, forKey: .isLoading) }
    await store.receive(.loaded([])) { state in
        state.set(value: false, forKey: .isLoading)
        state.set(value: [String](), forKey: .posts)
    }
}

nonisolated enum LookupKey { case query, results }

enum LookupAction: Equatable {
    case queryChanged(String)
    case found([String])
}

enum LookupID { case debounce }

struct LookupClient: Sendable {
    var sleep: @Sendable (Duration) async throws -> Void
    var find: @Sendable (String) async -> [String]
}

typealias LookupHandler =
    StoreActionHandler<LookupKey, LookupAction, LookupClient>

let lookupHandler = LookupHandler { state, action, client in
    switch action {
    case .queryChanged(let query):
        state.set(value: query, forKey: .query)
        return ActionEffect(id: LookupID.debounce) {
            do {
                try await client.sleep(.milliseconds(300))
            } catch {
                return nil  // cancelled: a newer query replaced it
            }
            return .found(await client.find(query))
        }
    case .found(let results):
        state.set(value: results, forKey: .results)
        return .none
    }
}

@Test func lookingUpWaitsForTypingToStop() async {
    let clock = TestClock()
    let store = TestStore(
        initialValues: [:],
        actionHandler: lookupHandler,
        dependency: LookupClient(
            sleep: { try await clock.sleep(for: $0) },
            find: { query in ["\(query) 1"] }
        )
    )

    store.send(.queryChanged("te")) { $0.set(value: "te", forKey: .query) }
    store.send(.queryChanged("tea")) { $0.set(value: "tea", forKey: .query) }
    await store.receive(
        .found(["tea 1"]), after: .milliseconds(300), on: clock
    ) { state in
        state.set(value: ["tea 1"], forKey: .results)
    }
}

nonisolated enum TimerKey { case ticks }
enum TimerAction: Equatable { case startTimer, stopTimer, tick }
enum TimerID { case timer }

/// A timer that ticks every second on the dependency's clock until stopped.
let timerHandler = StoreActionHandler<TimerKey, TimerAction, TestClock> { state, action, clock in
    switch action {
    case .startTimer:
        return .run(id: TimerID.timer) { send in
            while (try? await clock.sleep(for: .seconds(1))) != nil { await send(.tick) }
        }
    case .stopTimer:
        return .cancel(id: TimerID.timer)
    case .tick:
        state.update(.ticks, as: Int.self) { $0 = ($0 ?? 0) + 1 }
        return .none
    }
}

@Test func aTimerIsSteppedOnATestClock() async {
    let clock = TestClock()
    let store = TestStore(initialValues: [:], actionHandler: timerHandler, dependency: clock)
    store.send(.startTimer)
    await clock.advance(by: .seconds(1))
    await store.receive(.tick) { $0.set(value: 1, forKey: .ticks) }
    store.send(.stopTimer)
    await store.finish()
    await clock.advance(by: .seconds(5))
    #expect(store.receivedActions.isEmpty)
}

@Test func loadingShowsThePosts() async {
    let store = TestStore(
        initialValues: [:],
        actionHandler: feedHandler,
        dependency: FeedClient(fetch: { ["Hello"] }, track: { _ in })
    )
    store.exhaustivity = .off

    store.send(.load)
    await store.receive(.loaded(["Hello"])) { state in
        state.set(value: ["Hello"], forKey: .posts)
    }
}

nonisolated enum ShopKey { case basket, total }
enum ShopAction { case recalculate }
enum BasketAction { case add(String) }

typealias ShopHandler = StoreActionHandler<ShopKey, ShopAction, Void>
typealias BasketHandler = StoreActionHandler<ShopKey, BasketAction, Void>

let shopHandler = ShopHandler { state, _, _ in
    let basket = state.get(.basket, as: [String].self) ?? []
    state.set(value: basket.count * 5, forKey: .total)
    return .none
}

let basketHandler = BasketHandler { state, action, _ in
    switch action {
    case .add(let item):
        state.update(.basket, as: [String].self) {
            $0 = ($0 ?? []) + [item]
        }
        return .none
    }
}

@Test func addingToTheBasketUpdatesTheTotal() {
    let shop = Store(
        initialValues: [:], actionHandler: shopHandler, dependency: ())
    let basket = shop.scope(
        keys: [.basket, .total],
        actionHandler: basketHandler,
        dependencyTransformation: { _ in },
        actionTransformation: { _ in .recalculate }
    )
    let store = TestStore(store: basket)

    store.send(.add("Tea")) { state in
        state.set(value: ["Tea"], forKey: .basket)
        state.set(value: 5, forKey: .total)
    }
}

/// The failure messages the article shows are the ones the test store reports.
@Suite(.timeLimit(.minutes(2))) struct TestingArticleFailureMessages {
    let article = Result {
        try DocumentationCodeBlocks.text(of: "Sources/CacheStoreTesting/Documentation.docc/TestingWithTestStore.md")
    }

    func expectArticleShows(_ messages: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(messages.count == 1, sourceLocation: sourceLocation)
        let message = try #require(messages.first, sourceLocation: sourceLocation)
        #expect(
            try article.get().contains("```\n\(message)\n```"), "not in the article: \(message)",
            sourceLocation: sourceLocation)
    }

    func makeStore(fetch: @escaping @Sendable () async -> [String] = { ["Hello"] }) -> TestStore<
        FeedKey, FeedAction, FeedClient
    > {
        TestStore(
            initialValues: [:],
            actionHandler: feedHandler,
            dependency: FeedClient(fetch: fetch, track: unimplemented("track", placeholder: ())))
    }

    @Test func leftoverEffects() async throws {
        try expectArticleShows(
            await captureFailureMessages {
                let store = makeStore {
                    try? await Task.sleep(for: .seconds(60))  // a server that does not answer
                    return []
                }
                store.effectTimeout = .milliseconds(100)
                // Where the article's test sends it.
                store.send(.load, fileID: "FeedTests/FeedTests.swift", line: 12) {
                    $0.set(value: true, forKey: .isLoading)
                }
                await store.finish()
            })
    }

    @Test func receivingInAnotherOrder() async throws {
        try expectArticleShows(
            await captureFailureMessages {
                let store = makeStore()
                store.send(.refresh)
                await store.receive(.load) { $0.set(value: true, forKey: .isLoading) }
                await store.receive(.stop) { $0.set(value: false, forKey: .isLoading) }
                await store.receive(.loaded(["Hello"])) { state in
                    state.set(value: false, forKey: .isLoading)
                    state.set(value: ["Hello"], forKey: .posts)
                }
            })
    }

    @Test func anEffectAsleepOnATestClock() async throws {
        let clock = TestClock()
        try expectArticleShows(
            await captureFailureMessages {
                let store = TestStore(
                    initialValues: [:], actionHandler: lookupHandler,
                    dependency: LookupClient(sleep: { try await clock.sleep(for: $0) }, find: { ["\($0) 1"] }))
                store.send(.queryChanged("tea")) { $0.set(value: "tea", forKey: .query) }
                await store.receive(.found(["tea 1"]))
                store.cancel(id: LookupID.debounce)
            })
    }

    @Test func nothingRunning() async throws {
        try expectArticleShows(
            await captureFailureMessages {
                let store = makeStore()
                await store.receive(.loaded(["Hello"]))
            })
    }

    @Test func anEffectWaitingOutside() async throws {
        try expectArticleShows(
            await captureFailureMessages {
                let store = makeStore {
                    try? await Task.sleep(for: .seconds(60))  // a server that does not answer
                    return []
                }
                store.effectTimeout = .milliseconds(100)
                store.send(.load) { $0.set(value: true, forKey: .isLoading) }
                await store.receive(.loaded(["Hello"]))
                store.cancel(id: FeedID.load)
            })
    }

    @Test func anEffectThatProducedAnAction() async throws {
        try expectArticleShows(
            await captureFailureMessages {
                let store = makeStore()
                store.send(.load) { $0.set(value: true, forKey: .isLoading) }
                await store.runEffectExpectingNoAction()
            })
    }

    @Test func anUnimplementedDependency() async throws {
        let client = FeedClient(fetch: { [] }, track: unimplemented("track", placeholder: ()))
        try expectArticleShows(await captureFailureMessages { client.track("load") })
    }

    @Test func aWrongExpectation() async throws {
        try expectArticleShows(
            await captureFailureMessages {
                let store = makeStore()
                store.send(.load) { $0.set(value: true, forKey: .isLoading) }
                await store.receive(.loaded(["Hello"])) { $0.set(value: ["Hello"], forKey: .posts) }
            })
    }

    @Test func aNonExhaustiveReceiveThatFindsNothing() async throws {
        try expectArticleShows(
            await captureFailureMessages {
                let store = makeStore()
                store.exhaustivity = .off
                store.send(.load)
                await store.receive(.loaded(["Bye"]))
            })
    }

    @Test func anUnexpectedAction() async throws {
        try expectArticleShows(
            await captureFailureMessages {
                let store = makeStore()
                store.send(.load) { $0.set(value: true, forKey: .isLoading) }
                await store.receive(.loaded(["Bye"]))
            })
    }
}

nonisolated final class FeedTests: XCTestCase {
    func testLoading() {
        let store = TestStore(
            initialValues: [:],
            actionHandler: feedHandler,
            dependency: FeedClient(fetch: { ["Hello"] }, track: { _ in })
        )

        store.send(.load) { $0.set(value: true, forKey: .isLoading) }
        store.receive(.loaded(["Hello"])) { state in
            state.set(value: false, forKey: .isLoading)
            state.set(value: ["Hello"], forKey: .posts)
        }
    }
}

enum SaveAction: Equatable { case save, saved }
enum SyncID { case sync }

let saveHandler = StoreActionHandler<FeedKey, SaveAction, Void> { _, action, _ in
    switch action {
    case .save:
        return .concatenate(ActionEffect { .saved }, .cancel(id: SyncID.sync))
    case .saved:
        return .none
    }
}

@Test func composedEffectsRunAsInTheApp() async {
    let store = TestStore(initialValues: [:], actionHandler: saveHandler, dependency: ())
    // .save returns .concatenate(ActionEffect { .saved }, .cancel(id: SyncID.sync))
    store.send(.save)
    // Running: the concatenation and its first step. The cancellation has not run.
    #expect(store.runningEffectIDs.count == 2)
    // .saved ends the first step: the second cancels SyncID.sync.
    await store.receive(.saved)
    #expect(store.runningEffectIDs.isEmpty)
}
