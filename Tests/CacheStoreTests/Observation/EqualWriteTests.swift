import CacheStore
import Foundation
import Observation
import Testing

/// A value that is not `Equatable`, compared field by field.
private struct Point: Sendable {
    var x: Int
    var y: [String]
}

/// A class that is not `Equatable`, compared by identity.
private final class Box: Sendable {
    let value: Int

    init(_ value: Int) {
        self.value = value
    }
}

/// An `Equatable` value whose `==` reads the cache it is stored in: the comparison must run with no
/// lock of the cache held.
private struct Reentrant: Equatable, @unchecked Sendable {
    var value: Int
    weak var cache: CacheStore<Key>?

    static func == (lhs: Reentrant, rhs: Reentrant) -> Bool {
        _ = lhs.cache?.get(.other, as: Int.self)
        return lhs.value == rhs.value
    }
}

/// Writing a value equal to the stored one, by the rules the debug log and the test store use, is no
/// change: no observer is told and `changes` yields nothing for it.
@Suite(.timeLimit(.minutes(1))) struct EqualWriteTests {
    @Test func anEqualWriteTellsNoObserver() {
        let cache = CacheStore<Key>(initialValues: [.flag: true, .count: 1])
        let fired = fireCount { _ = cache.get(.flag, as: Bool.self) }
        cache.set(value: true, forKey: .flag)
        #expect(fired.values.isEmpty)
        cache.set(value: false, forKey: .flag)
        #expect(fired.values.count == 1)
    }

    @Test(arguments: [
        (stored: Point(x: 1, y: ["a", "b"]) as any Sendable, written: Point(x: 1, y: ["a"] + ["b"]) as any Sendable),
        (stored: Double.nan as any Sendable, written: Double.nan as any Sendable),
        (
            stored: String(repeating: "long ", count: 20) as any Sendable,
            written: String(repeating: "long ", count: 19) + "long " as any Sendable
        ),
    ])
    func aValueThatDumpsEqualIsNoChange(stored: any Sendable, written: any Sendable) {
        let cache = CacheStore<Key>(initialValues: [.list: stored])
        let fired = fireCount { _ = cache.contains(.list) }
        cache.set(value: written, forKey: .list)
        #expect(fired.values.isEmpty)
    }

    @Test func anotherInstanceOfAClassIsAChange() {
        let cache = CacheStore<Key>(initialValues: [.other: Box(1)])
        let fired = fireCount { _ = cache.contains(.other) }
        cache.set(value: Box(1), forKey: .other)
        #expect(fired.values.count == 1)
    }

    @Test func aValueOfAnotherTypeIsAChange() {
        let cache = CacheStore<Key>(initialValues: [.count: 1])
        let fired = fireCount { _ = cache.contains(.count) }
        cache.set(value: 1.0, forKey: .count)
        #expect(fired.values.count == 1)
    }

    @Test func anActionThatRewritesOneKeyAndChangesAnotherTellsOnlyTheChangedKeysObservers() async {
        let store = Store(
            initialValues: [.name: "same", .count: 0],
            actionHandler: StoreActionHandler<Key, Int, Void> { state, number, _ in
                state.set(value: "same", forKey: .name)
                state.set(value: number, forKey: .count)
                return .none
            })
        var changes = store.changes.makeAsyncIterator()
        let nameFired = fireCount { _ = store.get(.name, as: String.self) }
        let countFired = fireCount { _ = store.get(.count, as: Int.self) }
        store.handle(action: 0)  // both equal: nothing changed
        store.handle(action: 5)
        #expect(nameFired.values.isEmpty)
        #expect(countFired.values.count == 1)
        #expect(await changes.next() == [.count])
    }

    @Test func anUpdateThatLeavesTheValueAsItWasIsNoChange() async {
        let cache = CacheStore<Key>(initialValues: [.count: 3])
        var changes = cache.changes.makeAsyncIterator()
        let fired = fireCount { _ = cache.get(.count, as: Int.self) }
        cache.update(.count, as: Int.self) { $0 = 3 }
        cache.set(value: "n", forKey: .name)
        #expect(fired.values.isEmpty)
        #expect(await changes.next() == [.name])
    }

    @Test func theComparisonRunsWithNoLockOfTheCacheHeld() {
        let cache = CacheStore<Key>(initialValues: [:])
        cache.set(value: Reentrant(value: 1, cache: cache), forKey: .list)
        let fired = fireCount { _ = cache.contains(.list) }
        cache.set(value: Reentrant(value: 1, cache: cache), forKey: .list)
        #expect(fired.values.isEmpty)
        cache.set(value: Reentrant(value: 2, cache: cache), forKey: .list)
        #expect(fired.values.count == 1)
    }
}
