import CacheStore
import Foundation
import Observation
import Testing

/// Review 8's attacks: the `changes` iterator of a released store or scope, and its copies cancelled
/// at any instant; a scope released by its own observer; a handler that replaces its state with a
/// scope of it; and effects started again (an effect made once and used twice, as a concatenation's
/// two steps, mapped twice, or debounced and started now under one id).
@Suite(.timeLimit(.minutes(2))) struct Review8AttackTests {
    enum Key: Hashable, Sendable { case a, b }
    enum Action: Equatable, Sendable {
        case start
        case startMapped
        case searchNow
        case done(Int)
    }

    /// Runs `next()` on a copy of `iterator` in a task; returns whether it returned within
    /// `seconds`, and what it returned. The task is cancelled when it did not.
    static func nextReturns<Key: Hashable & SendableMetatype>(
        _ iterator: CacheStoreChanges<Key>.Iterator, within seconds: Int
    ) async -> (returned: Bool, keys: ChangedKeys<Key>?) {
        let result = Recorder<ChangedKeys<Key>?>()
        let task = Task {
            var copy = iterator
            result.append(await copy.next())
        }
        let returned = await eventually(timeout: .seconds(seconds)) { !result.values.isEmpty }
        if !returned { task.cancel() }
        await task.value
        return (returned, result.values.first ?? nil)
    }

    // MARK: The changes of a released scoped store

    /// "Iteration ends when the task is cancelled or the store is released": a scoped store's
    /// `changes` iterator, once the scoped store is released (its root kept), returns `nil`.
    @Test func aReleasedScopedStoresChangesIteratorEnds() async {
        let root = Store<Key, Action, Void>(initialValues: [.a: 1], actionHandler: .none, dependency: ())
        var scoped: Store<Key, Never, Void>? = root.scope(
            keyTransformation: (from: { $0 == .a ? .a : nil }, to: { $0 == .a ? .a : nil }),
            actionHandler: StoreActionHandler<Key, Never, Void>.none)
        let iterator = scoped!.changes.makeAsyncIterator()
        scoped = nil
        let (returned, keys) = await Self.nextReturns(iterator, within: 3)
        #expect(returned, "next() on the changes of a released scoped store still waits")
        #expect(keys == nil)
        withExtendedLifetime(root) {}
    }

    /// The same with a scope of a cache (`CacheStore.scope`): released, its iterator ends.
    @Test func aReleasedCacheScopesChangesIteratorEnds() async {
        let root = CacheStore<Key>(initialValues: [.a: 1])
        var scope: CacheStore<Key>? = root.scope(keys: [.a])
        let iterator = scope!.changes.makeAsyncIterator()
        scope = nil
        let (returned, keys) = await Self.nextReturns(iterator, within: 3)
        #expect(returned, "next() on the changes of a released scope still waits")
        #expect(keys == nil)
        withExtendedLifetime(root) {}
    }

    /// "Iteration ends when the task is cancelled or the store is released": a store's `changes`
    /// sequence kept (a task's loop over `let changes = store.changes` keeps it), its store released,
    /// its iterator's `next()` returns `nil`.
    @Test func aStoresChangesIteratorEndsWhenTheStoreIsReleasedWhileItsSequenceIsKept() async {
        var store: Store<Key, Action, Void>? = Store(initialValues: [.a: 1], actionHandler: .none, dependency: ())
        let changes = store!.changes
        let iterator = changes.makeAsyncIterator()
        store = nil
        let (returned, keys) = await Self.nextReturns(iterator, within: 3)
        #expect(returned, "next() on the changes of a released store still waits")
        #expect(keys == nil)
        withExtendedLifetime(changes) {}
    }

    /// Eight tasks loop on copies of one `changes` iterator while a thread writes, half of them are
    /// cancelled at whatever instant they are in, and then the cache is released: every task ends
    /// (none waits forever, none is resumed twice), and each change reached at most one task.
    @Test func copiesOfAChangesIteratorCancelledAndReleasedAtAnyInstantAllEnd() async {
        let cache = AttackBox<CacheStore<Key>?>(CacheStore(initialValues: [:]))
        let iterator = cache.value!.changes.makeAsyncIterator()
        let received = Recorder<Int>()
        let ended = Recorder<Int>()
        let tasks = (0..<8).map { index in
            Task {
                var copy = iterator
                while await copy.next() != nil { received.append(index) }
                ended.append(index)
            }
        }
        await offThePool {
            for value in 0..<2_000 { cache.value?.set(value: value, forKey: .a) }
        }
        for task in tasks.prefix(4) { task.cancel() }
        await offThePool {
            for value in 0..<2_000 { cache.value?.set(value: value, forKey: .b) }
        }
        cache.value = nil
        let allEnded = await eventually(timeout: .seconds(20)) { ended.values.count == 8 }
        #expect(allEnded, "tasks still waiting in next(): \(Set(0..<8).subtracting(ended.values).sorted())")
        for task in tasks { task.cancel() }
        #expect(received.values.count <= 4_000)
    }

    // MARK: A scope released by its own observer

    /// A scoped store whose only holder is its own observer's `onChange`, which lets it go: the
    /// release (unlinking its subject from the key being written) runs inside the write's
    /// publication. Neither deadlocks nor crashes, and the key's other observer is told.
    @Test func aScopedStoreReleasedByItsOwnObserverWhileTheKeyIsWritten() async {
        let root = Store<Key, Action, Void>(
            initialValues: [.a: 1],
            actionHandler: StoreActionHandler { state, action, _ in
                if case .done(let value) = action { state.set(value: value, forKey: .a) }
                return .none
            },
            dependency: ())
        let holder = AttackBox<Store<Key, Never, Void>?>(
            root.scope(
                keyTransformation: (from: { $0 == .a ? .a : nil }, to: { $0 == .a ? .a : nil }),
                actionHandler: StoreActionHandler<Key, Never, Void>.none))
        weak let released = holder.value
        let otherToldOf = Recorder<Void>()
        withObservationTracking({ _ = holder.value?.get(.a, as: Int.self) }, onChange: { holder.value = nil })
        withObservationTracking({ _ = root.get(.a, as: Int.self) }, onChange: { otherToldOf.append(()) })
        let finished = await expectFinishes("a write whose observer releases its scoped store") {
            root.handle(action: .done(2))
            root.handle(action: .done(3))
        }
        guard finished else { return }
        #expect(released == nil)
        #expect(otherToldOf.values.count == 1)
        #expect(root.get(.a, as: Int.self) == 3)
    }

    // MARK: A handler that replaces its state

    /// A handler writes a key, then assigns its state a scope of itself (a live view, read after
    /// the handler returns): the state becomes what the scope holds, the write included. Keys left
    /// out of the scope are removed.
    @Test func aStateReplacedByAScopeOfItselfKeepsTheHandlersWrite() {
        let store = Store<Key, Action, Void>(
            initialValues: [.a: 1, .b: 2],
            actionHandler: StoreActionHandler { state, action, _ in
                guard action == .start else { return .none }
                state.set(value: 10, forKey: .a)
                state = state.scope(keys: [.a])
                return .none
            },
            dependency: ())
        store.handle(action: .start)
        #expect(store.get(.a, as: Int.self) == 10)
        #expect(!store.contains(.b))
    }

    // MARK: An effect used twice

    /// A concatenation of one effect twice runs it twice: the second step starts once the first
    /// has ended and its action was handled, so it replaces nothing (in a store).
    @Test func aConcatenationOfOneEffectTwiceDeliversTwice() async {
        let received = Recorder<Action>()
        let once = ActionEffect<Action> { .done(1) }
        let store = Store<Key, Action, Void>(
            initialValues: [:],
            actionHandler: StoreActionHandler { _, action, _ in
                received.append(action)
                return action == .start ? .concatenate(once, once) : .none
            },
            dependency: ())
        store.handle(action: .start)
        #expect(await eventually(timeout: .seconds(60)) { received.values.count >= 3 })
        try? await Task.sleep(for: .milliseconds(50))
        #expect(received.values == [.start, .done(1), .done(1)])
    }

    /// One effect mapped twice, into a concatenation: both mapped copies keep the effect's identity,
    /// and run one after the other, each delivering.
    @Test func aConcatenationOfOneEffectMappedTwiceDeliversBoth() async {
        let received = Recorder<Action>()
        let base = ActionEffect<Int> { 1 }
        let store = Store<Key, Action, Void>(
            initialValues: [:],
            actionHandler: StoreActionHandler { _, action, _ in
                received.append(action)
                guard action == .startMapped else { return .none }
                return .concatenate(base.map { .done($0) }, base.map { .done($0 + 1) })
            },
            dependency: ())
        store.handle(action: .startMapped)
        #expect(await eventually(timeout: .seconds(60)) { received.values.count >= 3 })
        try? await Task.sleep(for: .milliseconds(50))
        #expect(received.values == [.startMapped, .done(1), .done(2)])
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
