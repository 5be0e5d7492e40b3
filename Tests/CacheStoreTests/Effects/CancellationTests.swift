import CacheStore
import Foundation
import Testing

enum TickAction: Sendable {
    /// Start a `.run` effect with id `run` that sends `.tick(run)` until cancelled.
    case startTicking(run: Int)
    case tick(run: Int)
}

/// How many ticks of each run the handler began handling, counted as the handler is entered.
final class TickTally: @unchecked Sendable {
    private let lock = NSLock()
    private var counts: [Int: Int] = [:]

    func count(_ run: Int) {
        lock.lock()
        counts[run, default: 0] += 1
        lock.unlock()
    }

    func ticks(of run: Int) -> Int {
        lock.lock()
        defer { lock.unlock() }
        return counts[run] ?? 0
    }
}

let tickHandler = StoreActionHandler<Key, TickAction, TickTally> { state, action, tally in
    switch action {
    case .startTicking(let run):
        return .run(id: run) { send in
            while !Task.isCancelled { await send(.tick(run: run)) }
        }
    case .tick(let run):
        tally.count(run)
        state.set(value: run, forKey: .count)
        return .none
    }
}

enum CancelAttackAction: Sendable {
    case start
    case tick(Int)
    case cancelOtherStoresEffect
    case noop
}

enum ParentAction: Sendable {
    case fromChild(Int)
}

enum ChildAction: Sendable {
    case start
    case tick(Int)
}

/// Once `cancel(id:)` returned `true`, nothing the cancelled effect sends is handled any more: for a `run`
/// effect cancelled while it sends, from another store's handler while the effect delivers to it, for a
/// main-actor store's effect whose actions hop to the main queue, and by the parent of a scoped store.
@Suite(.timeLimit(.minutes(2))) struct CancellationTests {
    // MARK: - A run effect cancelled while it sends

    static let maximumRuns = 20_000

    /// Runs stop after this long once `enoughRuns` were cancelled while sending ...
    static let timeBudget = Duration.seconds(3)

    static let enoughRuns = 200

    /// ... or after this long in any case, for a machine so loaded that effects start slowly (under
    /// ThreadSanitizer on 2 cores, the whole run has stalled for 30 s at its start).
    static let timeLimit = Duration.seconds(120)

    /// Once `cancel(id:)` returned `true`, nothing the cancelled `.run` effect sends is handled any more. The
    /// window is narrow, so the test cancels many running effects, each at a moment it is sending, for at most
    /// a few seconds.
    @Test func aCancelledRunEffectDeliversNothingAfterCancelReturnedTrue() async {
        let tally = TickTally()
        let store = Store(initialValues: [:], actionHandler: tickHandler, dependency: tally)
        // The handled count of each run when its cancel(id:) returned true.
        let countsAtCancel = await offThePool { () -> [Int: Int] in
            var countsAtCancel: [Int: Int] = [:]
            let start = ContinuousClock.now
            func mayGoOn() -> Bool {
                let elapsed = ContinuousClock.now - start
                return elapsed < Self.timeLimit && (elapsed < Self.timeBudget || countsAtCancel.count < Self.enoughRuns)
            }
            for run in 0..<Self.maximumRuns where mayGoOn() {
                store.handle(action: .startTicking(run: run))
                // Cancel while the effect is sending: after its first tick was handled.
                while tally.ticks(of: run) == 0, mayGoOn() { sched_yield() }
                if store.cancel(id: run), tally.ticks(of: run) > 0 { countsAtCancel[run] = tally.ticks(of: run) }
            }
            return countsAtCancel
        }
        #expect(await eventually { store.runningEffectIDs.isEmpty })
        try? await Task.sleep(for: .milliseconds(100))  // a late delivery lands by now
        let lateRuns = countsAtCancel.filter { run, countAtCancel in tally.ticks(of: run) > countAtCancel }.count
        #expect(
            countsAtCancel.count >= Self.enoughRuns, "enough runs were cancelled while sending to catch a late delivery"
        )
        #expect(
            lateRuns == 0,
            "\(lateRuns) of \(countsAtCancel.count) cancelled runs had a tick handled after cancel(id:) returned true")
    }

    // MARK: - From another store's handler

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

    /// `cancel(id:)` called from a handler of store B, while A's effect delivers an action whose handler sends
    /// to B: the canceller waits for that delivery, and the delivery waits for B. The cycle must be found: no
    /// deadlock, and if `cancel(id:)` returned `true`, no later tick is handled.
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

    // MARK: - A main-actor store's effect

    /// A `.mainActor` store's effect actions hop to the main queue; `cancel(id:)` called from another thread
    /// while they do must still keep its promise: once it returned `true`, no tick is handled.
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

    // MARK: - A scoped store's effect

    /// Once a scoped store's `cancel(id:)` returned `true`, nothing its effect sends is handled any more: also
    /// not by the parent store, which handles the scoped store's actions after its handler.
    @Test func theParentDoesNotHandleACancelledChildEffectsActionAfterCancelReturnedTrue() async {
        let cancelReturnedTrue = AttackBox(false)
        let (inChildHandler, cancelling, started) = (DispatchSemaphore(value: 0), AttackBox(false), AttackBox(false))
        let lateInParent = AttackBox(0)
        let parent = Store<Key, ParentAction, Void>(
            initialValues: [:],
            actionHandler: StoreActionHandler { _, _, _ in
                // Give the canceller time to return, then see whether it already had.
                let deadline = Date().addingTimeInterval(0.5)
                while !cancelReturnedTrue.value, Date() < deadline { usleep(1_000) }
                if cancelReturnedTrue.value { lateInParent.value += 1 }
                return .none
            })
        let child = parent.scope(
            keys: [.count],
            actionHandler: StoreActionHandler<Key, ChildAction, Void> { state, action, _ in
                switch action {
                case .start:
                    return .run(id: "ticks") { send in
                        // Sent once `handle(action: .start)` returned: else the canceller's thread,
                        // which then holds the turn, could handle `.tick` itself and wait for itself.
                        let deadline = Date().addingTimeInterval(30)
                        while !started.value, Date() < deadline { try? await Task.sleep(for: .milliseconds(1)) }
                        await send(.tick(1))
                    }
                case .tick(let value):
                    state.set(value: value, forKey: .count)
                    inChildHandler.signal()
                    // The canceller calls cancel(id:) now, and waits for this handler: it is given the
                    // time, however late its thread runs on a loaded machine.
                    let deadline = Date().addingTimeInterval(30)
                    while !cancelling.value, Date() < deadline { usleep(1_000) }
                    usleep(200_000)
                    return .none
                }
            },
            dependencyTransformation: { _ in () },
            actionTransformation: { action in
                if case .tick(let value) = action { return .fromChild(value) }
                return nil
            })
        await offThePool {
            child.handle(action: .start)
            started.value = true
            inChildHandler.wait()
            cancelling.value = true
            if child.cancel(id: "ticks") { cancelReturnedTrue.value = true }
        }
        #expect(await eventually(timeout: .seconds(30)) { child.runningEffectIDs.isEmpty })
        try? await Task.sleep(for: .milliseconds(600))
        #expect(cancelReturnedTrue.value, "cancel(id:) of an effect whose action was in hand returned true")
        #expect(lateInParent.value == 0, "the parent handled the cancelled effect's action after cancel returned true")
    }
}
