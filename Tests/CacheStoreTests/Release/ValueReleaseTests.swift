import CacheStore
import Testing

/// A value that runs `onRelease` from its `deinit`, the way a value holding a resource might tell
/// the cache that held it.
final class ReleaseProbe: Sendable {
    let onRelease: @Sendable () -> Void

    init(onRelease: @escaping @Sendable () -> Void) {
        self.onRelease = onRelease
    }

    deinit { onRelease() }
}

/// A store reference that a value in the store can hold weakly.
final class WeakStoreReference: @unchecked Sendable {
    weak var store: Store<Key, ReleaseAction, Void>?
}

enum ReleaseAction: Sendable {
    case remove
    case replace
}

let releaseHandler = StoreActionHandler<Key, ReleaseAction, Void> { state, action, _ in
    switch action {
    case .remove: state.remove(.other)
    case .replace: state.set(value: "replaced", forKey: .other)
    }
    return .none
}

/// A value whose `deinit` reads the cache that held it: replacing or removing it must not deadlock,
/// and the `deinit` must run and see the cache (issue 11, break 1).
@Suite(.timeLimit(.minutes(2))) struct ValueReleaseTests {
    /// A cache with `.count` = 7 and at `.other` a value that records what it reads on release.
    func cacheWithProbe(recordingInto seen: Recorder<Int?>) -> CacheStore<Key> {
        let cache = CacheStore<Key>(initialValues: [.count: 7])
        cache.set(
            value: ReleaseProbe { [weak cache] in seen.append(cache?.get(.count, as: Int.self)) },
            forKey: .other)
        return cache
    }

    /// A store like ``cacheWithProbe(recordingInto:)``'s cache, its value reading the store.
    func storeWithProbe(recordingInto seen: Recorder<Int?>) -> Store<Key, ReleaseAction, Void> {
        let reference = WeakStoreReference()
        let probe = ReleaseProbe { seen.append(reference.store?.get(.count, as: Int.self)) }
        let store = Store(initialValues: [.count: 7, .other: probe], actionHandler: releaseHandler)
        reference.store = store
        return store
    }

    @Test func removingAValueWhoseDeinitReadsTheCache() async {
        let seen = Recorder<Int?>()
        let cache = cacheWithProbe(recordingInto: seen)
        let finished = await expectFinishes("cache.remove of a value whose deinit reads the cache") {
            cache.remove(.other)
        }
        guard finished else { return }
        #expect(seen.values == [7], "the deinit ran once and read the cache")
        #expect(!cache.contains(.other))
    }

    @Test func replacingAValueWhoseDeinitReadsTheCache() async {
        let seen = Recorder<Int?>()
        let cache = cacheWithProbe(recordingInto: seen)
        let finished = await expectFinishes("cache.set over a value whose deinit reads the cache") {
            cache.set(value: "replaced", forKey: .other)
        }
        guard finished else { return }
        #expect(seen.values == [7], "the deinit ran once and read the cache")
        #expect(cache.get(.other, as: String.self) == "replaced")
    }

    @Test func aHandlerRemovingAValueWhoseDeinitReadsTheStore() async {
        let seen = Recorder<Int?>()
        let store = storeWithProbe(recordingInto: seen)
        let finished = await expectFinishes("a handler's state.remove of a value whose deinit reads the store") {
            store.handle(action: .remove)
        }
        guard finished else { return }
        #expect(await eventually { seen.values == [7] }, "the deinit ran once and read the store")
        #expect(!store.contains(.other))
    }

    @Test func aHandlerReplacingAValueWhoseDeinitReadsTheStore() async {
        let seen = Recorder<Int?>()
        let store = storeWithProbe(recordingInto: seen)
        let finished = await expectFinishes("a handler's state.set over a value whose deinit reads the store") {
            store.handle(action: .replace)
        }
        guard finished else { return }
        #expect(await eventually { seen.values == [7] }, "the deinit ran once and read the store")
        #expect(store.get(.other, as: String.self) == "replaced")
    }
}
