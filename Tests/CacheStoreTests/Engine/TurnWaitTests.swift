import Foundation
import Testing

@testable import CacheStore

/// Work run in a store's turn from a thread that waits for it while other threads keep the store
/// busy: a test store's steps, `stop()` of a journal's recording.
@Suite(.timeLimit(.minutes(2))) struct TurnWaitTests {
    /// The waiter returns once its work has run, while the thread draining the queue may still run
    /// the work queued after it: the queue must let go of the waiter's work before it says it is
    /// done, as the waiter's closure does not escape.
    @Test func workRunInTheTurnFromAWaitingThreadWhileOthersSend() async {
        await #expect(processExitsWith: .success) {
            let store = Store(initialValues: [:], actionHandler: noteHandler)
            let senders = (0..<4).map { _ in
                Thread {
                    for _ in 0..<3_000 { store.handle(action: .increment) }
                }
            }
            for sender in senders { sender.start() }
            var seen = 0
            for _ in 0..<3_000 { seen = max(seen, store.inTurn { store.currentValue(.count) as? Int ?? 0 }) }
            while store[.count] < 12_000 { usleep(1_000) }
            precondition(seen <= 12_000)
        }
    }
}
