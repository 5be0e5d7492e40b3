import CacheStore
import Foundation
import Testing

/// An effect's `Send`: it never blocks a thread of the concurrency pool, however busy the store.
@Suite(.timeLimit(.minutes(2))) struct SendTests {
    enum Key: Hashable, Sendable { case sent }
    enum Action: Sendable {
        case start
        case slow
        case sent
    }

    static let effects = 64

    /// 64 effects all reach their send while a slow action holds the store's turn, and all their actions are handled.
    @Test func effectsSendingIntoABusyStoreHoldNoThread() async throws {
        let slowBegan = Gate()
        let reached = LockedBox(0)
        let reachedDuringSlowAction = LockedBox<Int?>(nil)
        let store = Store<Key, Action, Void>(
            initialValues: [.sent: 0],
            actionHandler: StoreActionHandler { state, action, _ in
                switch action {
                case .start:
                    return .run { send in
                        await slowBegan.wait()
                        reached.withValue { $0 += 1 }
                        await send(.sent)
                    }
                case .slow:
                    slowBegan.open()
                    // Holds the store's turn until every effect reached its send (up to 40 s, room for
                    // a loaded machine); the effects run meanwhile on the pool. Blocked in their sends,
                    // they would hold the pool's threads, and the others could not reach theirs.
                    let deadline = Date().addingTimeInterval(40)
                    while Date() < deadline, reached.current < Self.effects { Thread.sleep(forTimeInterval: 0.01) }
                    reachedDuringSlowAction.withValue { $0 = reached.current }
                    return .none
                case .sent:
                    state.update(.sent, as: Int.self) { $0 = ($0 ?? 0) + 1 }
                    return .none
                }
            })
        for _ in 0..<Self.effects { store.handle(action: .start) }

        // The slow action is sent from a plain thread, not from the concurrency pool.
        let slowReturned = await returnsOffThePool(within: .seconds(50)) { store.handle(action: .slow) }
        #expect(slowReturned, "the slow action's handle did not return within 50 s")
        let during = reachedDuringSlowAction.current
        #expect(
            during == Self.effects,
            "\(during.map(String.init) ?? "no") of \(Self.effects) effects reached their send during the slow action")
        #expect(
            await eventually(timeout: .seconds(20)) { store.get(.sent, as: Int.self) == Self.effects },
            "\(store.get(.sent, as: Int.self) ?? 0) of \(Self.effects) sent actions were handled")
    }
}
