import CacheStore
import Foundation
import Testing

enum CancelAttackAction: Sendable {
    case start
    case tick(Int)
    case cancelOtherStoresEffect
    case noop
}

/// `cancel(id:)` called from a handler of store B, while A's effect delivers an action whose
/// handler sends to B: the canceller waits for that delivery, and the delivery waits for B. The
/// cycle must be found: no deadlock, and if `cancel(id:)` returned `true`, no later tick is handled.
@Suite(.timeLimit(.minutes(2))) struct CrossStoreCancelTests {
    final class Links: @unchecked Sendable {
        weak var a: Store<Key, CancelAttackAction, Links>?
        weak var b: Store<Key, CancelAttackAction, Links>?
        let aDelivering = DispatchSemaphore(value: 0)
        let bInside = DispatchSemaphore(value: 0)
        let cancelResult = AttackBox<Bool?>(nil)
        let ticksAfterCancel = AttackBox(0)
    }

    static let handler = StoreActionHandler<Key, CancelAttackAction, Links> { state, action, links in
        switch action {
        case .start:
            return .run(id: "ticks") { send in
                for tick in 0..<1_000 {
                    await send(.tick(tick))
                    try? await Task.sleep(for: .milliseconds(1))
                }
            }
        case .tick(let tick):  // store A, on the effect's thread
            if links.cancelResult.value == true { links.ticksAfterCancel.value += 1 }
            state.set(value: tick, forKey: .count)
            guard tick == 0 else { return .none }
            links.aDelivering.signal()
            _ = links.bInside.wait(timeout: .now() + 60)
            usleep(50_000)  // B's thread is now waiting in cancel(id:) for this delivery
            links.b?.handle(action: .noop)
        case .cancelOtherStoresEffect:  // store B, on the test's thread
            links.bInside.signal()
            // Under ThreadSanitizer on a loaded machine the effect's task can wait seconds for a
            // thread of the concurrency pool: wait for its delivery as long as the test allows.
            _ = links.aDelivering.wait(timeout: .now() + 60)
            links.cancelResult.value = links.a?.cancel(id: "ticks")
        case .noop:
            state.set(value: true, forKey: .flag)
        }
        return .none
    }

    @Test func cancellingFromAnotherStoresHandlerWhileTheEffectDeliversToIt() async {
        let links = Links()
        let a = Store(initialValues: [:], actionHandler: Self.handler, dependency: links)
        let b = Store(initialValues: [:], actionHandler: Self.handler, dependency: links)
        links.a = a
        links.b = b
        a.handle(action: .start)
        let finished = await expectFinishes("cancel(id:) from B's handler while A's effect sends to B", within: 120) {
            b.handle(action: .cancelOtherStoresEffect)
        }
        guard finished else { return }
        #expect(links.cancelResult.value != nil)
        #expect(await eventually(timeout: .seconds(30)) { b.get(.flag, as: Bool.self) == true })
        try? await Task.sleep(for: .milliseconds(100))
        #expect(links.ticksAfterCancel.value == 0, "ticks were handled after cancel(id:) returned true")
        if links.cancelResult.value == false {
            // The cancel could not wait (it would have closed a cycle): the effect still stops.
            #expect(await eventually(timeout: .seconds(30)) { a.runningEffectIDs.isEmpty })
        }
    }
}
