import CacheStore
import Foundation
import Testing

/// A `.mainActor` store's effect actions hop to the main queue; `cancel(id:)` called from another
/// thread while they do must still keep its promise: once it returned `true`, no tick is handled.
@Suite struct MainActorCancelTests {
    @Test func cancellingAMainActorStoresEffectFromAnotherThread() async {
        let tally = TickTally()
        let store = Store(initialValues: [:], actionHandler: tickHandler, dependency: tally, isolation: .mainActor)
        let runs = 50
        let countsAtCancel = await offThePool { () -> [Int: Int] in
            var countsAtCancel: [Int: Int] = [:]
            for run in 0..<runs {
                store.handle(action: .startTicking(run: run))
                let deadline = Date().addingTimeInterval(2)
                while tally.ticks(of: run) == 0, Date() < deadline { sched_yield() }
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
