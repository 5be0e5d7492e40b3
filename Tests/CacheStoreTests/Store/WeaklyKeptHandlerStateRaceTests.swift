import CacheStore
import Foundation
import Testing

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
