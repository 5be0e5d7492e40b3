import CacheStore
import Foundation
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

enum ReentryAction: Sendable {
    case startEffect
    case replaceWholeState
    case mark
    case removeThroughScope
}

/// A value whose `deinit` calls the cache or store that held it is released with no lock held. Replacing or
/// removing it (from a cache, a scope, `update`, or a handler, one that replaces its whole state included)
/// never deadlocks, its `deinit` runs once and sees the cache, and what it does there (a read, a write, an
/// `update`, an action sent, an effect cancelled) takes effect.
@Suite(.timeLimit(.minutes(2))) struct ValueReleaseTests {
    // MARK: - A deinit that reads

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

    // MARK: - A deinit that writes, updates, sends and cancels

    final class StoreBox: @unchecked Sendable {
        weak var store: Store<Key, ReentryAction, Void>?
    }

    static let handler = StoreActionHandler<Key, ReentryAction, Void> { state, action, _ in
        switch action {
        case .startEffect:
            return .run(id: "effect") { _ in try? await Task.sleep(for: .seconds(30)) }
        case .replaceWholeState:
            state = CacheStore(initialValues: [.count: 1])
        case .mark:
            state.set(value: true, forKey: .flag)
        case .removeThroughScope:
            state.scope(keys: [.other]).remove(.other)
        }
        return .none
    }

    /// A store holding at `.other` a value whose `deinit` reads, writes, updates, sends `.mark` and
    /// cancels the running effect; `cancelled` records what `cancel(id:)` returned.
    static func storeWithReentrantValue(cancelled: AttackBox<Bool?>) -> Store<Key, ReentryAction, Void> {
        let box = StoreBox()
        let probe = ReleaseProbe {
            guard let store = box.store else { return }
            _ = store.get(.count, as: Int.self)
            store.handle(action: .mark)
            cancelled.value = store.cancel(id: "effect")
        }
        let store = Store(initialValues: [.other: probe], actionHandler: handler)
        box.store = store
        store.handle(action: .startEffect)
        return store
    }

    @Test(arguments: [ReentryAction.replaceWholeState, .removeThroughScope])
    func aHandlerReleasingAValueWhoseDeinitSendsAndCancels(action: ReentryAction) async {
        let cancelled = AttackBox<Bool?>(nil)
        let store = Self.storeWithReentrantValue(cancelled: cancelled)
        let finished = await expectFinishes(
            "a handler releasing a value whose deinit re-enters the store", within: 30
        ) {
            store.handle(action: action)
        }
        guard finished else { return }
        #expect(store.contains(.other) == false)
        #expect(store.get(.flag, as: Bool.self) == true, "the action the deinit sent was handled")
        #expect(cancelled.value == true)
        #expect(store.runningEffectIDs.isEmpty)
    }

    @Test func anUpdateReleasingAValueWhoseDeinitWritesAndUpdatesTheCache() async {
        let cache = CacheStore<Key>(initialValues: [.count: 0])
        cache.set(
            value: ReleaseProbe { [weak cache] in
                cache?.set(value: "written by deinit", forKey: .name)
                cache?.update(.count, as: Int.self) { count in count = (count ?? 0) + 1 }
            }, forKey: .other)
        let finished = await expectFinishes("update releasing a value whose deinit re-enters the cache", within: 30) {
            cache.update(.other, as: ReleaseProbe.self) { probe in probe = nil }
        }
        guard finished else { return }
        #expect(cache.get(.name, as: String.self) == "written by deinit")
        #expect(cache.get(.count, as: Int.self) == 1)
        #expect(cache.contains(.other) == false)
    }

    @Test func aScopeReleasingAValueWhoseDeinitWritesThroughTheScope() async {
        let cache = CacheStore<Key>(initialValues: [:])
        let scope = cache.scope(keys: [.other, .name])
        scope.set(
            value: ReleaseProbe { [weak scope] in scope?.set(value: "written by deinit", forKey: .name) },
            forKey: .other)
        let finished = await expectFinishes("a scope releasing a value whose deinit writes through it", within: 30) {
            scope.set(value: 1, forKey: .other)
        }
        guard finished else { return }
        #expect(cache.get(.name, as: String.self) == "written by deinit")
    }
}
