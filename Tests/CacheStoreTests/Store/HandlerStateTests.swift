import CacheStore
import Foundation
import Observation
import Testing

enum KeepAction: Sendable {
    case keepScope
    case keepState
    case set(Int)
}

/// A handler's state (a `CacheStore`) used outside its action. A scope made over a handler's `inout` state (or
/// the state itself, kept) may be used after the action: it then reads the committed state, and a view
/// observing it is told of later changes, as it is for any other scope of the store's state.
@Suite(.timeLimit(.minutes(2))) struct HandlerStateTests {
    static func makeStore(keeping kept: AttackBox<CacheStore<Key>?>) -> Store<Key, KeepAction, Void> {
        Store(
            initialValues: [.count: 0],
            actionHandler: StoreActionHandler { state, action, _ in
                switch action {
                case .keepScope: kept.value = state.scope(keys: [.count])
                case .keepState: kept.value = state
                case .set(let value): state.set(value: value, forKey: .count)
                }
                return .none
            })
    }

    @Test(arguments: [KeepAction.keepScope, .keepState])
    func observingWhatAHandlerKeptFiresOnLaterActions(keep: KeepAction) {
        let kept = AttackBox<CacheStore<Key>?>(nil)
        let store = Self.makeStore(keeping: kept)
        store.handle(action: keep)
        guard let view = kept.value else {
            Issue.record("the handler kept nothing")
            return
        }
        let fired = AttackBox(0)
        withObservationTracking {
            _ = view.get(.count, as: Int.self)
        } onChange: {
            fired.value += 1
        }
        store.handle(action: .set(1))
        #expect(view.get(.count, as: Int.self) == 1, "the kept \(keep) reads the committed state")
        #expect(fired.value == 1, "an observer of the kept \(keep) was not told that .count changed")
    }

    // MARK: - Another thread using the state while the action runs

    /// A handler hands its `state` (a `Sendable` `CacheStore`) to a thread of its own, which reads it
    /// while the handler goes on writing. Every read must return a value the handler wrote or `nil`,
    /// and nothing may crash. The handler's state was an unlocked transaction, read and grown at once:
    /// the process crashed ("Index out of range", or a bad pointer; ThreadSanitizer reported the race
    /// in `TransactionCore.position(of:)`).
    @Test func aHandlersStateReadOnAnotherThreadDuringTheAction() async {
        let bad = Recorder<String>()
        let reads = AttackBox(0)
        let store = Store<Key, Int, Void>(
            initialValues: [:],
            actionHandler: StoreActionHandler { state, count, _ in
                let shared = state
                let stop = AttackBox(false)
                let done = DispatchSemaphore(value: 0)
                let started = DispatchSemaphore(value: 0)
                Thread {
                    started.signal()
                    var index = 0
                    while !stop.value {
                        let value = shared.get(.item(index % count), as: Int.self)
                        if let value, value != index % count { bad.append("item(\(index % count)) read \(value)") }
                        index += 1
                    }
                    reads.value = index
                    done.signal()
                }.start()
                started.wait()  // the handler runs on a thread of its own (offThePool)
                for index in 0..<count { state.set(value: index, forKey: .item(index)) }
                stop.value = true
                done.wait()
                return .none
            })
        // Smaller under ThreadSanitizer, which reports the race at once.
        let (rounds, count) = isUnderThreadSanitizer ? (1, 2_000) : (20, 20_000)
        await offThePool {
            for _ in 0..<rounds { store.handle(action: count) }
        }
        #expect(bad.values.isEmpty, "\(bad.values.prefix(5))")
        #expect(store.get(.item(count - 1), as: Int.self) == count - 1)
    }

    /// What another thread sees of a handler's state while the action runs: the committed state, not
    /// the handler's writes, which become visible together when it returns; its own writes go to the
    /// committed state at once, as a write to the store's cache from another thread does.
    @Test func anotherThreadUsesTheCommittedStateWhileTheHandlerRuns() async {
        let seen = Recorder<Int?>()
        let store = Store<Key, Int, Void>(
            initialValues: [.item(0): 0],
            actionHandler: StoreActionHandler { state, value, _ in
                state.set(value: value, forKey: .item(0))
                let shared = state
                let done = DispatchSemaphore(value: 0)
                Thread {
                    seen.append(shared.get(.item(0), as: Int.self))
                    shared.set(value: value * 10, forKey: .item(1))
                    seen.append(shared.get(.item(1), as: Int.self))
                    done.signal()
                }.start()
                done.wait()
                seen.append(state.get(.item(0), as: Int.self))
                return .none
            })
        await offThePool { store.handle(action: 7) }
        #expect(seen.values == [0, 70, 7])
        #expect(store.get(.item(0), as: Int.self) == 7)
        #expect(store.get(.item(1), as: Int.self) == 70)
    }
}
