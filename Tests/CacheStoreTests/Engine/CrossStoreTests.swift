import CacheStore
import Foundation
import Testing

enum CrossAction: Sendable {
    /// Wait until the other store's handler is running too, then send `.fromOtherStore` to it.
    case callOtherStore
    case fromOtherStore
}

/// What a store's handler needs to reach the other store, and what it saw.
final class CrossLink: @unchecked Sendable {
    weak var otherStore: Store<Key, CrossAction, CrossLink>?
    let bothInside: TwoPartyBarrier
    let received = Recorder<CrossAction>()

    init(bothInside: TwoPartyBarrier) {
        self.bothInside = bothInside
    }
}

/// Lets two threads continue only once both arrived, or after a timeout (so a test cannot hang).
final class TwoPartyBarrier: @unchecked Sendable {
    private let condition = NSCondition()
    private var arrived = 0

    /// - Returns: Whether the other party arrived within `seconds`.
    @discardableResult
    func arriveAndWait(seconds: Double = 5) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        arrived += 1
        condition.broadcast()
        let deadline = Date(timeIntervalSinceNow: seconds)
        while arrived < 2 {
            if !condition.wait(until: deadline) { return false }
        }
        return true
    }
}

let crossHandler = StoreActionHandler<Key, CrossAction, CrossLink> { _, action, link in
    link.received.append(action)
    switch action {
    case .callOtherStore:
        link.bothInside.arriveAndWait()
        link.otherStore?.handle(action: .fromOtherStore)
    case .fromOtherStore:
        break
    }
    return .none
}

enum RingAction: Sendable {
    case passOn
    case received
}

/// Stores whose handlers call each other's `handle` synchronously, from several threads at once: none
/// deadlocks (the wait graph finds the cycles), and every action sent across is handled. A `handle` from
/// inside a handler, for a store another thread is handling, queues the action for that thread.
@Suite(.timeLimit(.minutes(2))) struct CrossStoreTests {
    /// Two stores whose handlers call each other's `handle` from two threads at once: neither deadlocks, and
    /// both actions sent across are handled.
    @Test func handlersCallingEachOthersStoreFromTwoThreads() async {
        let barrier = TwoPartyBarrier()
        let linkA = CrossLink(bothInside: barrier)
        let linkB = CrossLink(bothInside: barrier)
        let storeA = Store(initialValues: [:], actionHandler: crossHandler, dependency: linkA)
        let storeB = Store(initialValues: [:], actionHandler: crossHandler, dependency: linkB)
        linkA.otherStore = storeB
        linkB.otherStore = storeA

        async let handledA = finishes { storeA.handle(action: .callOtherStore) }
        async let handledB = finishes { storeB.handle(action: .callOtherStore) }
        let (finishedA, finishedB) = await (handledA, handledB)
        if !finishedA || !finishedB {
            Issue.record(
                Comment(
                    rawValue: "storeA.handle and storeB.handle, each calling the other from its handler, deadlocked"))
            return
        }
        let bothReceived = await eventually(timeout: .seconds(30)) {
            linkA.received.values.count == 2 && linkB.received.values.count == 2
        }
        #expect(bothReceived, "each store handled its own action and the one the other store sent it")
    }

    final class Ring: @unchecked Sendable {
        var stores: [Store<Key, RingAction, Int>] = []
    }

    /// Three stores whose handlers send to the next store in a ring, from three threads at once, many times:
    /// no deadlock (the wait graph finds cycles of three), and every action sent is handled.
    @Test func threeStoresSendingAroundARingFromThreeThreads() async {
        let rounds = 2_000
        let ring = Ring()
        let handler = StoreActionHandler<Key, RingAction, Int> { state, action, position in
            switch action {
            case .passOn: ring.stores[(position + 1) % 3].handle(action: .received)
            case .received: state.update(.count, as: Int.self) { count in count = (count ?? 0) + 1 }
            }
            return .none
        }
        ring.stores = (0..<3).map { position in
            Store(initialValues: [.count: 0], actionHandler: handler, dependency: position)
        }
        let finished = await expectFinishes("three stores sending around a ring", within: 30) {
            onThreads(3) { position in
                for _ in 0..<rounds { ring.stores[position].handle(action: .passOn) }
            }
        }
        guard finished else { return }
        #expect(await eventually(timeout: .seconds(30)) { ring.stores.allSatisfy { $0.get(.count) == rounds } })
        #expect(ring.stores.map { $0.get(.count, as: Int.self) } == [rounds, rounds, rounds])
    }
}
