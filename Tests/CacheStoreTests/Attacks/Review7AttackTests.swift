import CacheStore
import Foundation
import Testing

/// Review 7's attacks on the newest code: a transaction's lone write held apart from its arrays
/// (`TransactionCore.onlyKey`), the `Lock` under contention and re-entered from a value's
/// `deinit`, and the `changes` iterator's several waiters.
@Suite(.timeLimit(.minutes(2))) struct Review7AttackTests {
    enum Key: Hashable, Sendable { case a, b, c }
    enum Action: Sendable { case run(Int) }

    /// A store whose every action runs `body` on the handler's state.
    static func store(
        _ initial: [Key: Any], _ body: @escaping @Sendable (CacheStore<Key>, Int) -> Void
    ) -> Store<Key, Action, Void> {
        Store(
            initialValues: initial,
            actionHandler: StoreActionHandler { state, action, _ in
                if case .run(let step) = action { body(state, step) }
                return .none
            })
    }

    // MARK: The lone write held apart

    /// One key written, then a second (the first moves into the arrays), then the first removed:
    /// reads, `allValues` and `contains` inside the handler see each write, and the commit applies
    /// them all.
    @Test func aLoneWriteMovedIntoTheArraysThenRemovedIsReadBackAndCommitted() {
        let seen = Recorder<String>()
        let store = Self.store([.a: 0, .c: 9]) { state, _ in
            state.set(value: 1, forKey: .a)
            seen.append("a=\(state.get(.a, as: Int.self).map(String.init) ?? "nil")")
            state.set(value: 2, forKey: .b)
            state.remove(.a)
            seen.append("a=\(state.get(.a, as: Int.self).map(String.init) ?? "nil")")
            seen.append("contains a: \(state.contains(.a)), b: \(state.contains(.b))")
            seen.append("keys: \(state.allValues.keys.map { "\($0)" }.sorted())")
        }
        store.handle(action: .run(0))
        #expect(seen.values == ["a=1", "a=nil", "contains a: false, b: true", "keys: [\"b\", \"c\"]"])
        #expect(store.get(.a, as: Int.self) == nil)
        #expect(store.get(.b, as: Int.self) == 2)
        #expect(store.get(.c, as: Int.self) == 9)
    }

    /// A key written then removed in one action, the only key written: the removal is what commits,
    /// and `allValues` inside the handler leaves the key out (a `nil` held apart is a removal).
    @Test func aLoneKeyWrittenThenRemovedEndsAbsent() {
        let seen = Recorder<String>()
        let store = Self.store([.a: 5]) { state, _ in
            state.set(value: 1, forKey: .a)
            state.remove(.a)
            seen.append("\(state.contains(.a)) \(state.allValues.count)")
            state.update(.a, as: Int.self) { value in value = (value ?? 100) + 1 }
            seen.append("\(state.get(.a, as: Int.self) ?? -1)")
            state.remove(.a)
        }
        store.handle(action: .run(0))
        #expect(seen.values == ["false 0", "101"])
        #expect(!store.contains(.a))
        #expect(store.allValues.isEmpty)
    }

    /// The handler state is reused from action to action: a lone write, then several, then a lone
    /// write of another key, then none. No write leaks into the next action, none is lost.
    @Test func aReusedTransactionCarriesNoWriteIntoTheNextAction() {
        let store = Self.store([:]) { state, step in
            switch step {
            case 0: state.set(value: 1, forKey: .a)
            case 1:
                state.update(.a, as: Int.self) { $0 = ($0 ?? 0) + 10 }
                state.set(value: 2, forKey: .b)
                state.set(value: 3, forKey: .c)
            case 2: state.set(value: 20, forKey: .b)
            case 3: _ = state.get(.a, as: Int.self)
            default: state.update(.c, as: Int.self) { $0 = ($0 ?? 0) + 1 }
            }
        }
        for step in 0..<5 { store.handle(action: .run(step)) }
        #expect(store.get(.a, as: Int.self) == 11)
        #expect(store.get(.b, as: Int.self) == 20)
        #expect(store.get(.c, as: Int.self) == 4)
    }

    /// A store's actions each write one key (the lone-write commit), observed through `changes`:
    /// every action's key is reported.
    @Test func loneWritesAreReportedToChanges() async {
        let store = Self.store([:]) { state, step in
            state.set(value: step, forKey: step.isMultiple(of: 2) ? .a : .b)
        }
        var changes = store.changes.makeAsyncIterator()
        store.handle(action: .run(0))
        let first = await changes.next()
        #expect(first == [.a])
        store.handle(action: .run(1))
        let second = await changes.next()
        #expect(second == [.b])
    }

    // MARK: The lock

    /// Four threads increment one key 2,000 times each through `update`: with the lock contended
    /// (waiters marked, woken), no increment is lost and no thread sleeps forever.
    ///
    /// On threads of their own, off the concurrency pool: run on `DispatchQueue.global()`, 20,000
    /// times each, the blocked workers were the pool's own threads on Linux, and under
    /// ThreadSanitizer every `async` test of the run waited about 60 s (CI failed).
    @Test func contendedUpdatesLoseNothing() async {
        let cache = CacheStore<Key>(initialValues: [.a: 0])
        let finished = await finishes(within: 120) {
            onThreads(4) { _ in
                for _ in 0..<2_000 { cache.update(.a, as: Int.self) { $0 = ($0 ?? 0) + 1 } }
            }
        }
        #expect(finished)
        #expect(cache.get(.a, as: Int.self) == 8_000)
    }

    /// A value whose `deinit` reads the store that held it, replaced by an action's lone write (the
    /// one-write commit): the replaced value is released once the lock is left, so the read in its
    /// `deinit` takes the (non-recursive) lock without deadlocking.
    @Test func aValueReplacedByALoneWriteReadsItsStoreFromItsDeinit() async {
        final class Reentrant: @unchecked Sendable {
            let onDeinit: () -> Void
            init(_ onDeinit: @escaping () -> Void) { self.onDeinit = onDeinit }
            deinit { onDeinit() }
        }
        final class WeakStore: @unchecked Sendable {
            weak var store: Store<Key, Action, Void>?
        }
        let box = WeakStore()
        let seen = Recorder<Int?>()
        let store = Self.store([.a: Reentrant { seen.append(box.store?.get(.c, as: Int.self)) }, .c: 3]) {
            state, step in state.set(value: step, forKey: .a)
        }
        box.store = store
        let finished = await finishes(within: 60) { store.handle(action: .run(0)) }
        #expect(finished)
        #expect(seen.values == [3])
    }

    // MARK: A scoped store whose actions are `Never`

    static let identity: BiDirectionalTransformation<Key?, Key?> = (from: { $0 }, to: { $0 })

    /// A scoped store whose action type is `Action`, over `parent`: each action writes `.a`.
    static func writingScope<ParentAction>(of parent: Store<Key, ParentAction, Void>) -> Store<Key, Action, Void> {
        parent.scope(
            keyTransformation: identity,
            actionHandler: StoreActionHandler { state, _, _ in
                state.set(value: 1, forKey: .a)
                return .none
            })
    }

    /// A read-only row's store (actions `Never`) made from a logging root, and a scope of that row's
    /// store that handles actions; the app then drops its root. Every other scoped store keeps its
    /// parent store (its forwarding closure holds it): a `Never` one makes no such closure, so the
    /// root is freed while its scope lives, and `DebugLog.parent`, `unowned(unsafe)` on the promise
    /// that "the scoped store's engine keeps its parent store", dangles. The grandchild's action
    /// then asks the row's store whether a log above it is written, which reads the freed root engine
    /// (`isDebugLogWriting`), and hands it the report.
    @Test func aNeverActionScopeKeepsItsParentAsEveryScopeDoes() {
        let lines = Recorder<String>()
        var root: Store<Key, Action, Void>? = Self.store([:]) { _, _ in }
        _ = root.unsafelyUnwrapped.debug { lines.append($0) }
        let row: Store<Key, Never, Void> = root.unsafelyUnwrapped.scope(
            keyTransformation: Self.identity, actionHandler: .none)
        let child = Self.writingScope(of: row)
        weak let weakRoot = root
        root = nil
        #expect(weakRoot != nil, "the root store was freed while a scope of it lives")
        guard weakRoot != nil else { return }  // past here, a use of freed memory
        child.handle(action: .run(0))
        #expect(lines.values.count == 1)
    }

    /// The same freeing, seen without a log: the app keeps only a row's store and drops the root
    /// while one of the root's effects runs. A row whose actions are `Void` keeps the root, so the
    /// effect runs on and its action is handled (`Void`); a `Never` row does not, so the root's
    /// release cancels the effect, and the row never sees the value that action writes.
    @Test(arguments: [false, true])
    func theRootsEffectRunsOnWhileOnlyARowIsKept(neverRow: Bool) async {
        let gate = Gate()
        let cancelled = Recorder<Bool>()
        var root: Store<Key, Action, Void>? = Store(
            initialValues: [:],
            actionHandler: StoreActionHandler { state, action, _ in
                guard case .run(let step) = action else { return .none }
                if step == 0 {
                    return .run { send in
                        await gate.wait()
                        if Task.isCancelled { cancelled.append(true) }
                        await send(.run(1))
                    }
                }
                state.set(value: step, forKey: .b)
                return .none
            })
        root.unsafelyUnwrapped.handle(action: .run(0))
        let read: @Sendable () -> Int?
        if neverRow {
            let row: Store<Key, Never, Void> = root.unsafelyUnwrapped.scope(
                keyTransformation: Self.identity, actionHandler: .none)
            read = { row.get(.b, as: Int.self) }
        } else {
            let row = root.unsafelyUnwrapped.actionlessScope(keyTransformation: Self.identity)
            read = { row.get(.b, as: Int.self) }
        }
        root = nil
        gate.open()
        #expect(await eventually { read() == 1 || !cancelled.values.isEmpty })
        #expect(cancelled.values.isEmpty, "the root's effect was cancelled")
        #expect(read() == 1)
    }

    /// The same with a row whose actions are `Void`: the root is kept (the behaviour the `Never`
    /// row's store breaks), and the grandchild's report reaches the root's log.
    @Test func aVoidActionScopeKeepsItsParent() {
        let lines = Recorder<String>()
        var root: Store<Key, Action, Void>? = Self.store([:]) { _, _ in }
        _ = root.unsafelyUnwrapped.debug { lines.append($0) }
        let row = root.unsafelyUnwrapped.actionlessScope(keyTransformation: Self.identity)
        let child = Self.writingScope(of: row)
        weak let weakRoot = root
        root = nil
        #expect(weakRoot != nil)
        child.handle(action: .run(0))
        #expect(lines.values.count == 1)
    }

    // MARK: An anonymous effect returned again by the action it delivers

    /// A poll made once without an id: each run delivers `.run(1)`, whose handler returns the same
    /// effect again until 50 ticks were counted. Each start replaces the run still delivering (the
    /// one whose action is being handled): the replaced run must end without taking the new one with
    /// it, so all 50 ticks arrive and nothing is left running.
    @Test(arguments: [false, true])
    func aPollReturnedByItsOwnActionRunsToTheEnd(asRun: Bool) async {
        let ticks = Recorder<Int>()
        let poll: ActionEffect<Action> =
            asRun ? .run { send in await send(.run(1)) } : ActionEffect { .run(1) }
        let store = Store<Key, Action, Void>(
            initialValues: [:],
            actionHandler: StoreActionHandler { _, action, _ in
                guard case .run(let step) = action else { return .none }
                if step == 1 { ticks.append(1) }
                return ticks.values.count < 50 ? poll : .none
            })
        store.handle(action: .run(0))
        #expect(await eventually(timeout: .seconds(60)) { ticks.values.count >= 50 })
        #expect(await eventually(timeout: .seconds(60)) { store.runningEffectIDs.isEmpty })
        #expect(ticks.values.count == 50)
    }

    // MARK: Several waiters on copies of a `changes` iterator

    /// Three tasks wait on copies of one iterator; one is cancelled: it ends with `nil`, and the two
    /// others are each answered by a later change.
    @Test func aCancelledWaiterLeavesTheOthersWaiting() async {
        let cache = CacheStore<Key>(initialValues: [:])
        let iterator = cache.changes.makeAsyncIterator()
        let answered = Recorder<String>()
        func waiter(_ name: String) -> Task<Void, Never> {
            Task {
                var copy = iterator
                let keys = await copy.next()
                answered.append(keys == nil ? "\(name): nil" : "\(name): keys")
            }
        }
        let first = waiter("first")
        let second = waiter("second")
        let third = waiter("third")
        try? await Task.sleep(for: .milliseconds(50))
        second.cancel()
        #expect(await eventually { answered.values.contains("second: nil") })
        cache.set(value: 1, forKey: .a)
        #expect(await eventually { answered.values.count >= 2 })
        cache.set(value: 2, forKey: .b)
        #expect(await eventually { answered.values.count == 3 })
        _ = (await first.value, await third.value)
        #expect(Set(answered.values) == ["first: keys", "second: nil", "third: keys"])
    }

    /// Three tasks wait on copies of one store's iterator; the store is released: every one of them
    /// ends with `nil` (`finish` answers all the waiters, not only one).
    @Test func releasingTheStoreEndsEveryWaiter() async {
        var store: Store<Key, Action, Void>? = Self.store([:]) { _, _ in }
        let iterator = store.unsafelyUnwrapped.changes.makeAsyncIterator()
        let tasks = (0..<3).map { _ in
            Task {
                var copy = iterator
                return await copy.next()
            }
        }
        try? await Task.sleep(for: .milliseconds(50))
        store = nil
        for task in tasks { #expect(await task.value == nil) }
    }

    /// A task cancelled before it calls `next()` gets `nil` at once, and does not take a change from
    /// a task waiting beside it.
    @Test func aTaskCancelledBeforeNextTakesNoChange() async {
        let cache = CacheStore<Key>(initialValues: [:])
        let iterator = cache.changes.makeAsyncIterator()
        let waiting = Task {
            var copy = iterator
            return await copy.next()
        }
        let cancelled = Task {
            while !Task.isCancelled { await Task.yield() }
            var copy = iterator
            return await copy.next()
        }
        cancelled.cancel()
        #expect(await cancelled.value == nil)
        try? await Task.sleep(for: .milliseconds(20))
        cache.set(value: 1, forKey: .a)
        #expect(await waiting.value == [.a])
    }
}
