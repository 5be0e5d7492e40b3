import CacheStore
import Foundation
import Observation
import Testing

/// A scoped store keeps its parent store alive, whatever its action type, and the parent goes with the last
/// of its scoped stores. Released at any instant (before its parent, while the parent's effect delivers, by
/// its own observer during a write), a scoped store neither crashes nor deadlocks.
@Suite(.timeLimit(.minutes(2))) struct ScopedStoreReleaseTests {
    /// Every key as itself: a scope that sees its parent's keys.
    static let identity: BiDirectionalTransformation<Key?, Key?> = (from: { $0 }, to: { $0 })

    /// The actions of ``EffectLifecycleTests/ticking(counting:yieldingEvery:stopsWhenCancelled:ended:)``.
    typealias SendAction = EffectLifecycleTests.SendAction

    /// ``EffectLifecycleTests/ticking(counting:yieldingEvery:stopsWhenCancelled:ended:)``: a handler whose
    /// `.start` runs an effect that sends `.tick`s as fast as it can.
    static func ticking(
        counting handled: AttackBox<Int>, yieldingEvery interval: Int, stopsWhenCancelled: Bool,
        ended: AttackBox<Bool> = AttackBox(false)
    ) -> StoreActionHandler<Key, SendAction, Void> {
        EffectLifecycleTests.ticking(
            counting: handled, yieldingEvery: interval, stopsWhenCancelled: stopsWhenCancelled, ended: ended)
    }

    /// Scoped stores made, used and released on other threads while their parent's effect delivers
    /// and its last outside reference goes: the parent lives while a scoped store does, and is freed
    /// with the last.
    @Test func scopedStoresReleasedBeforeAndAfterTheirParent() async {
        let handled = AttackBox(0)
        let handler = Self.ticking(counting: handled, yieldingEvery: 16, stopsWhenCancelled: true)
        let childHandler = StoreActionHandler<Key, SendAction, Void> { state, action, _ in
            if case .tick(let tick) = action { state.set(value: tick, forKey: .name) }
            return .none
        }
        weak var weakParent: Store<Key, SendAction, Void>?
        let parentBox = AttackBox<Store<Key, SendAction, Void>?>(
            Store(initialValues: [:], actionHandler: handler))
        weakParent = parentBox.value
        let first = parentBox.value!.scope(
            keyTransformation: Self.identity, actionHandler: childHandler, actionTransformation: { $0 })
        parentBox.value?.handle(action: .start)
        #expect(await eventually(timeout: .seconds(30)) { handled.value > 10 })
        await offThePool {
            onThreads(3) { thread in
                for round in 0..<300 {
                    if thread == 0 {
                        if round == 100 { parentBox.value = nil }  // released before its scoped stores
                        continue
                    }
                    let child = first.scope(
                        keyTransformation: Self.identity, actionHandler: childHandler,
                        actionTransformation: { $0 })
                    child.handle(action: .tick(round))
                    withObservationTracking {
                        _ = child.get(.count, as: Int.self)
                    } onChange: {
                    }
                }
            }
        }
        #expect(weakParent != nil)
        let before = handled.value
        #expect(await eventually(timeout: .seconds(30)) { handled.value > before }, "the parent's effect stopped")
        _ = consume first
        #expect(await eventually(timeout: .seconds(30)) { weakParent == nil })
    }

    // MARK: - Scoped stores whose actions are `Never`

    /// A read-only row's store (actions `Never`) keeps its parent as every other scoped store does, though it
    /// makes no closure that forwards actions to the parent.
    @Suite(.timeLimit(.minutes(2))) struct NeverActionScopes {
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
        /// store that handles actions; the app then drops its root. The row's store keeps the root, as
        /// every other scoped store does (there its forwarding closure holds it; a `Never` one makes no
        /// such closure), so `DebugLog.parent`, `unowned(unsafe)` on that promise, stays valid: the
        /// grandchild's action asks the row's store whether a log above it is written
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
    }

    // MARK: - A scoped store released by its own observer

    /// A scoped store whose only holder is its own observer, released during the publication of a write.
    @Suite(.timeLimit(.minutes(2))) struct ReleasedByItsObserver {
        enum Key: Hashable, Sendable { case a, b }

        enum Action: Equatable, Sendable {
            case start
            case startMapped
            case searchNow
            case done(Int)
        }

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
    }
}
