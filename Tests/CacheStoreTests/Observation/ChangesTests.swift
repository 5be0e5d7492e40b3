import CacheStore
import Foundation
import Testing

/// `changes`, an `AsyncSequence` of the keys each write (or each store action) changed, for code without
/// SwiftUI: changes made while the consumer is busy merge into one element, a scope's are in the scope's
/// keys, and iteration ends when the task is cancelled or the store is released. Copies of one iterator
/// share its changes.
@Suite(.timeLimit(.minutes(2))) struct ChangesTests {
    @Test func changesStreamYieldsTheKeysEachActionChanged() async {
        let store = Store(initialValues: [.count: 0], actionHandler: counterHandler)
        var iterator = store.changes.makeAsyncIterator()
        store.handle(action: .increment)
        #expect(await iterator.next() == [.count])
        store.handle(action: .writePair(1))
        #expect(await iterator.next() == [.item(1), .item(2)])
    }

    @Test func changesStreamMergesChangesWhileTheConsumerIsBusy() async {
        let cache = CacheStore<Key>(initialValues: [:])
        var iterator = cache.changes.makeAsyncIterator()
        cache.set(value: 1, forKey: .count)
        cache.set(value: "n", forKey: .name)
        cache.set(value: 2, forKey: .count)
        #expect(await iterator.next() == [.count, .name])
    }

    @Test func changesOfAScopeAreInTheScopesKeys() async {
        let parent = CacheStore<Key>(initialValues: [:])
        let scope = parent.scope(keyTransformation: featureKeys)
        var iterator = scope.changes.makeAsyncIterator()
        parent.set(value: true, forKey: .flag)  // invisible in the scope
        parent.set(value: 1, forKey: .count)
        #expect(await iterator.next() == [.counter])
    }

    @Test func changesStreamEndsWhenTheTaskIsCancelled() async {
        let cache = CacheStore<Key>(initialValues: [:])
        let consumer = Task {
            var received = 0
            for await _ in cache.changes { received += 1 }
            return received
        }
        try? await Task.sleep(for: .milliseconds(20))
        consumer.cancel()
        #expect(await consumer.value == 0)
    }

    /// Copies of one iterator share its changes: a task cancelled while it waits gets `nil`, and
    /// the other copy's task, waiting too, still gets the next change.
    @Test func aCancelledWaiterOnACopyOfTheIteratorLeavesTheOtherWaiting() async {
        let cache = CacheStore<Key>(initialValues: [:])
        let iterator = cache.changes.makeAsyncIterator()
        let cancelled = Task {
            var copy = iterator
            return await copy.next()
        }
        let waiting = Task {
            var copy = iterator
            return await copy.next()
        }
        try? await Task.sleep(for: .milliseconds(50))  // both wait by then, almost always
        cancelled.cancel()
        #expect(await cancelled.value == nil)
        cache.set(value: 1, forKey: .count)
        #expect(await waiting.value == [.count])
    }

    @Test func changesStreamEndsWhenTheStoreIsReleased() async {
        var cache: CacheStore<Key>? = CacheStore(initialValues: [:])
        var iterator = cache!.changes.makeAsyncIterator()
        cache = nil
        #expect(await iterator.next() == nil)
    }

    /// The `changes` iterator is `Sendable`, and its copies share one buffer: two tasks may each wait
    /// in `next()` on a copy at once. Two changes come, one after the other: each waiting task gets
    /// one, and neither waits forever: the buffer keeps every waiter, not only the last.
    @Test func twoTasksWaitingOnCopiesOfOneChangesIteratorAreBothAnswered() async {
        let cache = CacheStore<Key>(initialValues: [:])
        let iterator = cache.changes.makeAsyncIterator()
        let answered = Recorder<Void>()
        let tasks = (0..<2).map { _ in
            Task {
                var copy = iterator
                _ = await copy.next()
                answered.append(())
            }
        }
        try? await Task.sleep(for: .milliseconds(200))  // both wait by then, almost always
        cache.set(value: 1, forKey: .count)
        #expect(await eventually(timeout: .seconds(10)) { !answered.values.isEmpty })
        cache.set(value: 2, forKey: .count)
        let isAnswered = await eventually(timeout: .seconds(20)) { answered.values.count == 2 }
        #expect(isAnswered, "a task waiting in next() on a copy of the iterator was never answered")
        for task in tasks { task.cancel() }
    }

    /// Runs `next()` on a copy of `iterator` in a task; returns whether it returned within `seconds`,
    /// and what. The task is cancelled when it did not return.
    static func nextReturns<K: Hashable & SendableMetatype>(
        _ iterator: CacheStoreChanges<K>.Iterator, within seconds: Int
    ) async -> (returned: Bool, keys: ChangedKeys<K>?) {
        let result = Recorder<ChangedKeys<K>?>()
        let task = Task {
            var copy = iterator
            result.append(await copy.next())
        }
        let returned = await eventually(timeout: .seconds(seconds)) { !result.values.isEmpty }
        if !returned { task.cancel() }
        await task.value
        return (returned, result.values.first ?? nil)
    }

    // MARK: - An iterator made in a handler's action

    /// ``LiftedHandlerTests/keys``: a lifted feature's `.value` is the app's `.count`.
    static let keys = LiftedHandlerTests.keys

    /// An app store whose handler runs `feature` lifted, and writes `.count` itself on `-value`.
    static func appStore(
        _ feature: StoreActionHandler<LiftedKey, Int, Void>
    ) -> Store<Key, Int, Void> {
        let app = StoreActionHandler<Key, Int, Void> { state, value, _ in
            if value < 0 { state.set(value: -value, forKey: .count) }
            return .none
        }
        let lifted = StoreActionHandler<Key, Int, Void>.scope(
            keyTransformation: keys, actionHandler: feature, extractAction: { $0 >= 0 ? $0 : nil },
            embedAction: { $0 }, dependencyTransformation: { _ in () })
        return Store(
            initialValues: [.count: 0], actionHandler: StoreActionHandler(combining: [app, lifted]), dependency: ())
    }

    /// A plain handler's `state.changes` iterator, made during the action, yields the store's later
    /// changes: the baseline for the lifted case below.
    @Test func aHandlersChangesIteratorMadeInItsActionYieldsLaterChanges() async {
        let kept = Recorder<CacheStoreChanges<Key>.Iterator>()
        let store = Store<Key, Int, Void>(
            initialValues: [.count: 0],
            actionHandler: StoreActionHandler { state, value, _ in
                if value == 0 {
                    kept.append(state.changes.makeAsyncIterator())
                } else {
                    state.set(value: value, forKey: .count)
                }
                return .none
            },
            dependency: ())
        store.handle(action: 0)
        let next = Task { await Self.nextReturns(kept.values[0], within: 60) }
        try? await Task.sleep(for: .milliseconds(50))
        store.handle(action: 5)
        let (returned, keys) = await next.value
        #expect(returned)
        #expect(keys?.contains(.count) == true)
    }

    /// A lifted feature's `state.changes` iterator, made during its action (to iterate in an effect),
    /// either yields the feature's later changes or ends once the feature's state is released, as a
    /// released scope's does. It did neither: the iterator subscribed to the parent's state through
    /// the view, which is released after the action; the parent's subscription then drops every
    /// change (its `onChange` holds the view weakly) and never ends, as the view has no storage of
    /// its own whose release would end it.
    @Test func aLiftedFeaturesChangesIteratorMadeInItsActionYieldsOrEnds() async {
        let kept = Recorder<CacheStoreChanges<LiftedKey>.Iterator>()
        let store = Self.appStore(
            StoreActionHandler { state, value, _ in
                if value == 0 { kept.append(state.changes.makeAsyncIterator()) }
                return .none
            })
        store.handle(action: 0)
        let next = Task { await Self.nextReturns(kept.values[0], within: 60) }
        try? await Task.sleep(for: .milliseconds(50))
        store.handle(action: -7)
        let (returned, keys) = await next.value
        #expect(returned, "next() on a lifted feature's changes neither yields the feature's change nor ends")
        if let keys { #expect(keys.contains(.value)) }
        #expect(store.get(.count, as: Int.self) == 7)
    }

    // MARK: - Copies of an iterator waiting, cancelled, or left by a released store

    /// Copies of one iterator waiting at once, cancelled at any instant, or left by a released store, scope or
    /// scoped store: each waiter is answered by a change or ends with `nil`, and none waits forever.
    @Suite(.timeLimit(.minutes(2))) struct IteratorEnds {
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

        /// ``ChangesTests/nextReturns(_:within:)``.
        static func nextReturns<K: Hashable & SendableMetatype>(
            _ iterator: CacheStoreChanges<K>.Iterator, within seconds: Int
        ) async -> (returned: Bool, keys: ChangedKeys<K>?) {
            await ChangesTests.nextReturns(iterator, within: seconds)
        }

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
    }
}
