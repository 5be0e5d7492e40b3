import CacheStore
import Observation
import Testing

/// Counts how often `onChange` fires for the reads `read` makes.
func fireCount(for read: @escaping @Sendable () -> Void) -> Recorder<Void> {
    let fired = Recorder<Void>()
    withObservationTracking(read, onChange: { fired.append(()) })
    return fired
}

@Suite(.timeLimit(.minutes(2))) struct ObservationTests {
    @Test func readingAKeyTracksThatKeyOnly() {
        let cache = CacheStore<Key>(initialValues: [.count: 0, .name: "x"])
        let fired = fireCount { _ = cache.get(.count, as: Int.self) }
        cache.set(value: "y", forKey: .name)
        #expect(fired.values.isEmpty)
        cache.set(value: 1, forKey: .count)
        #expect(fired.values.count == 1)
    }

    @Test func readingAnAbsentKeyFiresWhenItIsAdded() {
        let cache = CacheStore<Key>(initialValues: [:])
        let fired = fireCount { _ = cache.contains(.flag) }
        cache.set(value: true, forKey: .flag)
        #expect(fired.values.count == 1)
    }

    @Test func removalFires() {
        let cache = CacheStore<Key>(initialValues: [.count: 1])
        let fired = fireCount { _ = cache.get(.count, as: Int.self) }
        cache.remove(.count)
        #expect(fired.values.count == 1)
    }

    @Test func storeActionsFireObserversOfTheKeysTheyWrite() {
        let store = Store(initialValues: [.count: 0], actionHandler: counterHandler)
        let countFired = fireCount { _ = store.get(.count, as: Int.self) }
        let nameFired = fireCount { _ = store.get(.name, as: String.self) }
        store.handle(action: .increment)
        #expect(countFired.values.count == 1)
        #expect(nameFired.values.isEmpty)
    }

    @Test func scopedReadsTrackTheParentKeysTheyMapTo() {
        let parent = CacheStore<Key>(initialValues: [.count: 0, .flag: true])
        let scope = parent.scope(keyTransformation: featureKeys)
        let fired = fireCount { _ = scope.get(.counter, as: Int.self) }
        parent.set(value: false, forKey: .flag)
        #expect(fired.values.isEmpty)
        parent.set(value: 1, forKey: .count)
        #expect(fired.values.count == 1)
    }

    @Test func anObserverMaySendAnActionToTheStoreItObserves() {
        let store = Store(initialValues: [.count: 0], actionHandler: counterHandler)
        withObservationTracking {
            _ = store.get(.count, as: Int.self)
        } onChange: {
            store.handle(action: .rename("observed"))
        }
        store.handle(action: .increment)
        #expect(store.get(.name, as: String.self) == "observed")
    }

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
}
