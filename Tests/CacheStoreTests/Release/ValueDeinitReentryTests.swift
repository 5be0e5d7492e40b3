import CacheStore
import Foundation
import Testing

enum ReentryAction: Sendable {
    case startEffect
    case replaceWholeState
    case mark
    case removeThroughScope
}

/// A value whose `deinit` does more than read: it writes, updates, sends an action and cancels an
/// effect of the store that released it — from `update`, from a handler that replaces the whole
/// state, from a scope, and from a scoped store's handler. None may deadlock, and each re-entrant
/// call takes effect.
@Suite(.timeLimit(.minutes(2))) struct ValueDeinitReentryTests {
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
