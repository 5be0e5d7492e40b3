import CacheStore
import Dispatch
import Foundation
import Observation
import Testing

/// A store created with `isolation: .mainActor` handles every action on the main thread — sent from
/// an effect's task or from a background thread alike — in order; effects still run off it.
@Suite(.timeLimit(.minutes(2))) struct MainActorIsolationTests {
    enum Key { case log, effectThreads }
    enum Action: Sendable {
        case record(Int)
        case startEffect(count: Int)
    }

    /// Records each action's number and whether it was handled on the main thread.
    final class Journal: @unchecked Sendable {
        private let lock = NSLock()
        private var entries: [(number: Int, onMain: Bool)] = []
        private var effectOnMain: [Bool] = []

        func record(_ number: Int) {
            let onMain = MainQueueMark.isCurrent
            if onMain { dispatchPrecondition(condition: .onQueue(.main)) }
            lock.withLock { entries.append((number, onMain)) }
        }

        func recordEffectThread() {
            let onMain = MainQueueMark.isCurrent
            lock.withLock { effectOnMain.append(onMain) }
        }

        var numbers: [Int] { lock.withLock { entries.map(\.number) } }
        var allOnMain: Bool { lock.withLock { entries.allSatisfy(\.onMain) } }
        var effectsOnMain: [Bool] { lock.withLock { effectOnMain } }
    }

    static func makeStore(_ journal: Journal, isolation: ActionIsolation) -> Store<Key, Action, Void> {
        Store(
            initialValues: [:],
            actionHandler: StoreActionHandler { _, action, _ in
                switch action {
                case .record(let number):
                    journal.record(number)
                    return .none
                case .startEffect(let count):
                    return .run { send in
                        journal.recordEffectThread()
                        for number in 0..<count { await send(.record(number)) }
                    }
                }
            },
            isolation: isolation)
    }

    /// Waits (without blocking the main actor) until `condition` holds, for at most two minutes (a
    /// TSan run on two cores once stalled every test for about 30 s).
    static func eventually(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<12_000 {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }

    @Test func anEffectsActionsAreHandledOnTheMainThreadInOrder() async {
        let journal = Journal()
        let store = Self.makeStore(journal, isolation: .mainActor)
        await Task.detached { store.handle(action: .startEffect(count: 50)) }.value
        #expect(await Self.eventually { journal.numbers.count == 50 })
        #expect(journal.numbers == Array(0..<50))
        #expect(journal.allOnMain)
        #expect(journal.effectsOnMain == [false], "the effect itself runs off the main actor")
    }

    @Test func handleFromABackgroundThreadIsHandledOnTheMainThreadInOrder() async {
        let journal = Journal()
        let store = Self.makeStore(journal, isolation: .mainActor)
        let thread = Thread { for number in 0..<100 { store.handle(action: .record(number)) } }
        thread.start()
        #expect(await Self.eventually { journal.numbers.count == 100 })
        #expect(journal.numbers == Array(0..<100))
        #expect(journal.allOnMain)
    }

    @MainActor @Test func handleOnTheMainThreadHandlesAtOnce() {
        let journal = Journal()
        let store = Self.makeStore(journal, isolation: .mainActor)
        store.handle(action: .record(7))
        #expect(journal.numbers == [7])
        MainActor.assertIsolated()
    }

    /// A background thread's send that has returned is handled before a send the main actor makes after it.
    @MainActor @Test(.timeLimit(.minutes(2))) func aBackgroundSendThatReturnedIsHandledBeforeALaterMainActorSend()
        async
    {
        let journal = Journal()
        let store = Self.makeStore(journal, isolation: .mainActor)
        let returned = DispatchSemaphore(value: 0)
        Thread {
            store.handle(action: .record(1))  // .a
            returned.signal()
        }
        .start()
        // The main actor waits (bounded) until the background send has returned, then sends `.b`.
        let backgroundSendReturned = returned.wait(timeout: .now() + 10) == .success
        #expect(backgroundSendReturned, "the background handle(.a) did not return within 10 s")
        store.handle(action: .record(2))  // .b
        #expect(await Self.eventually { @Sendable in journal.numbers.count == 2 })
        #expect(journal.numbers == [1, 2])
    }

    @Test func observersOfAMainActorStoreAreToldOnTheMainThread() async {
        let store = Store<Key, Action, Void>(
            initialValues: [:],
            actionHandler: StoreActionHandler { state, action, _ in
                if case .record(let number) = action { state.set(value: number, forKey: .log) }
                return .none
            },
            isolation: .mainActor)
        let toldOnMain = Journal()
        withObservationTracking {
            _ = store.get(.log, as: Int.self)
        } onChange: {
            toldOnMain.record(1)
        }
        await Task.detached { store.handle(action: .record(1)) }.value
        #expect(await Self.eventually { toldOnMain.numbers == [1] })
        #expect(toldOnMain.allOnMain)
        #expect(store.get(.log, as: Int.self) == 1)
    }

    /// `debug(_:)` called off the main actor takes no turn there: a thread that took it, as actions
    /// arrived for the main queue, handled them itself, off the main queue. Here the old debug output's
    /// release (a closure's last reference to an object whose `deinit` waits) holds the turn while a
    /// send arrives; before the fix, the debug caller's thread then handled it.
    @Test func debugFromAnotherThreadLeavesTheActionsToTheMainQueue() async {
        final class WaitsWhenReleased: Sendable {
            let released = DispatchSemaphore(value: 0)
            let mayGoOn = DispatchSemaphore(value: 0)
            deinit {
                released.signal()
                _ = mayGoOn.wait(timeout: .now() + 20)
            }
        }
        let journal = Journal()
        let store = Self.makeStore(journal, isolation: .mainActor)
        var waiter: WaitsWhenReleased? = WaitsWhenReleased()
        let (released, mayGoOn) = (waiter!.released, waiter!.mayGoOn)
        store.debug(label: "first") { [waiter] _ in withExtendedLifetime(waiter) {} }
        waiter = nil
        store.handle(action: .record(1))  // applies the first output before it
        #expect(await Self.eventually { journal.numbers == [1] })
        // Threads of their own wait, not the concurrency pool's.
        Thread {
            _ = released.wait(timeout: .now() + 20)
            store.handle(action: .record(2))  // arrives while the release holds the turn
            mayGoOn.signal()
        }
        .start()
        Thread { store.debug(label: "second") { _ in } }.start()  // releases the first output
        #expect(await Self.eventually { journal.numbers == [1, 2] })
        #expect(journal.allOnMain, "an action was handled off the main queue")
    }

    /// The control: by default an effect's actions are handled on the effect's thread.
    @Test func byDefaultAnEffectsActionsAreHandledOffTheMainThread() async {
        let journal = Journal()
        let store = Self.makeStore(journal, isolation: .anyThread)
        await Task.detached { store.handle(action: .startEffect(count: 5)) }.value
        #expect(await Self.eventually { journal.numbers.count == 5 })
        #expect(!journal.allOnMain)
    }
}

/// Whether code runs on the main queue, where the main actor runs (on Linux a worker thread may
/// serve it, so `Thread.isMainThread` is not the test).
enum MainQueueMark {
    private static let key = DispatchSpecificKey<Bool>()
    private static let marked: Void = DispatchQueue.main.setSpecific(key: key, value: true)

    static var isCurrent: Bool {
        marked
        return DispatchQueue.getSpecific(key: key) == true
    }
}
