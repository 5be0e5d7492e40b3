import CacheStore
import Foundation
import Testing

/// A `.mainActor` store's effect actions hop to the main queue; `cancel(id:)` called from another
/// thread while they do must still keep its promise: once it returned `true`, no tick is handled.
@Suite(.timeLimit(.minutes(2))) struct MainActorCancelTests {
    @Test func cancellingAMainActorStoresEffectFromAnotherThread() async {
        let tally = TickTally()
        let store = Store(initialValues: [:], actionHandler: tickHandler, dependency: tally, isolation: .mainActor)
        let runs = 50
        let countsAtCancel = await offThePool { () -> [Int: Int] in
            var countsAtCancel: [Int: Int] = [:]
            for run in 0..<runs {
                // Sent from this thread, the start is handled later, on the main queue: cancel only
                // once the effect runs, or it would tick on, unseen, until the store is released.
                store.handle(action: .startTicking(run: run))
                let started = Date().addingTimeInterval(30)
                while !store.runningEffectIDs.contains(run), Date() < started { usleep(100) }
                let deadline = Date().addingTimeInterval(2)
                while tally.ticks(of: run) == 0, Date() < deadline { usleep(100) }
                if store.cancel(id: run) { countsAtCancel[run] = tally.ticks(of: run) }
            }
            return countsAtCancel
        }
        #expect(await eventually(timeout: .seconds(30)) { store.runningEffectIDs.isEmpty })
        try? await Task.sleep(for: .milliseconds(200))
        #expect(countsAtCancel.count > runs / 2, "most cancels found their effect running")
        let late = countsAtCancel.filter { run, count in tally.ticks(of: run) > count }
        #expect(late.isEmpty, "\(late.count) runs had ticks handled on the main queue after cancel(id:) returned true")
    }
}
