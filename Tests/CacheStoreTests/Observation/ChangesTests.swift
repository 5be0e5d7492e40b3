import CacheStore
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
}
