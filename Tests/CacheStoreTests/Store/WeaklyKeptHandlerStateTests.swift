import CacheStore
import Foundation
import Testing

enum WeakKeepAction: Sendable {
    case keepWeakly
    case captureWeaklyInEffect
    case writeUncommitted
}

/// A handler may keep its state weakly (a `weak var`, or an effect's `[weak state]` capture). The
/// engine recycles a handler's state for the next action when nothing holds it strongly; a weak
/// holder must then not see the next action's writes before they are committed (another thread
/// reading it while that action runs would read half an action, and race on the transaction).
@Suite(.timeLimit(.minutes(2))) struct WeaklyKeptHandlerStateTests {
    final class WeakHolder: @unchecked Sendable {
        weak var state: CacheStore<Key>?
        let readDuringAction = AttackBox<Int?>(nil)
        let actionRuns = DispatchSemaphore(value: 0)
        let effectRead = DispatchSemaphore(value: 0)
    }

    static let handler = StoreActionHandler<Key, WeakKeepAction, WeakHolder> { state, action, holder in
        switch action {
        case .keepWeakly:
            holder.state = state
        case .captureWeaklyInEffect:
            return .run { [weak state] _ in
                holder.actionRuns.wait()
                holder.readDuringAction.value = state?.get(.count, as: Int.self) ?? -1
                holder.effectRead.signal()
            }
        case .writeUncommitted:
            state.set(value: 99, forKey: .count)
            // Another thread reads what the first action's handler kept, while this action runs.
            if holder.state != nil {
                onAnotherThread { holder.readDuringAction.value = holder.state?.get(.count, as: Int.self) ?? -1 }
            } else {
                holder.actionRuns.signal()
                _ = holder.effectRead.wait(timeout: .now() + 10)
            }
        }
        return .none
    }

    @Test(arguments: [WeakKeepAction.keepWeakly, .captureWeaklyInEffect])
    func aWeaklyKeptStateDoesNotSeeTheNextActionsUncommittedWrites(keep: WeakKeepAction) async {
        let holder = WeakHolder()
        let store = Store(initialValues: [.count: 0], actionHandler: Self.handler, dependency: holder)
        await offThePool {
            store.handle(action: keep)
            store.handle(action: .writeUncommitted)
        }
        let read = holder.readDuringAction.value
        #expect(
            read == nil || read == -1 || read == 0,
            "a state kept by an earlier action read \(read.map(String.init) ?? "nil"): the running action's uncommitted write"
        )
    }
}

enum WeakRaceAction: Sendable {
    case writeAndKeepWeakly
    case writeWhileAnotherThreadReads
}

/// The data race behind ``WeaklyKeptHandlerStateTests``, for ThreadSanitizer: another thread reads
/// a weakly kept handler state while the next action's handler writes the recycled transaction.
/// Keys and values are inline (`Int`), and the transaction keeps its capacity from the first
/// action, so a plain build reads torn values rather than freed memory.
@Suite(.timeLimit(.minutes(2))) struct WeaklyKeptHandlerStateRaceTests {
    final class WeakHolder: @unchecked Sendable {
        weak var state: CacheStore<Key>?
        let stopReading = AttackBox(false)
        let dirtyReads = AttackBox(0)
    }

    static let keys = (0..<8).map(Key.item)

    static let handler = StoreActionHandler<Key, WeakRaceAction, WeakHolder> { state, action, holder in
        switch action {
        case .writeAndKeepWeakly:
            for key in keys { state.set(value: 0, forKey: key) }
            holder.state = state
        case .writeWhileAnotherThreadReads:
            let readerDone = DispatchSemaphore(value: 0)
            Thread {
                var dirty = 0
                while !holder.stopReading.value {
                    for key in keys where (holder.state?.get(key, as: Int.self) ?? 0) != 0 { dirty += 1 }
                }
                holder.dirtyReads.value = dirty
                readerDone.signal()
            }
            .start()
            for round in 1...20_000 { state.set(value: round, forKey: keys[round % keys.count]) }
            holder.stopReading.value = true
            readerDone.wait()
        }
        return .none
    }

    @Test func anotherThreadReadingAWeaklyKeptStateDoesNotSeeTheRunningAction() async {
        let holder = WeakHolder()
        let store = Store(initialValues: [:], actionHandler: Self.handler, dependency: holder)
        await offThePool {
            store.handle(action: .writeAndKeepWeakly)
            store.handle(action: .writeWhileAnotherThreadReads)
        }
        #expect(holder.dirtyReads.value == 0, "\(holder.dirtyReads.value) reads saw the running action's writes")
    }
}
