import CacheStoreTesting
import Foundation
import Testing

/// What the effects in these tests do while nobody waits for them.
final class EffectProbe: @unchecked Sendable {
    private let lock = NSLock()
    private var tickerStopped = false
    /// Signalled to unblock `.blockThread` effects.
    let release = DispatchSemaphore(value: 0)

    /// Whether the `.startTicking` effect stopped: it stops only when cancelled.
    var hasTickerStopped: Bool { lock.withLock { tickerStopped } }
    func tickerDidStop() { lock.withLock { tickerStopped = true } }

    /// Waits up to two minutes for the ticker to stop; a loaded machine may take a while to run it.
    func waitForTickerToStop() async -> Bool {
        let deadline = ContinuousClock.now + .seconds(120)
        while !hasTickerStopped, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(5)) }
        return hasTickerStopped
    }
}

enum ProbeAction: Sendable {
    case startTicking
    case blockThread
    case instant
    case done
}

let probeHandler = StoreActionHandler<LoadKey, ProbeAction, EffectProbe> { _, action, probe in
    switch action {
    case .startTicking:
        return .run(id: LoadID.stream) { _ in
            while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(2)) }
            probe.tickerDidStop()
        }
    case .blockThread:
        return ActionEffect(id: LoadID.load) {
            probe.release.wait()  // stuck without a suspension point: cancelling it does not help
            return .done
        }
    case .instant:
        return ActionEffect(id: LoadID.load) { .done }
    case .done:
        return .none
    }
}

@Suite struct TestStoreGivingUpTests {
    @Test func aReceiveThatTimesOutCancelsTheEffect() async {
        let probe = EffectProbe()
        _ = await captureFailures {
            let store = TestStore(initialValues: [:], actionHandler: probeHandler, dependency: probe)
            store.effectTimeout = .milliseconds(30)
            store.send(.startTicking)
            await store.receive(.done)
        }
        #expect(await probe.waitForTickerToStop())
    }

    @Test func theSynchronousReceiveCancelsTheEffectItGivesUpOn() async {
        let probe = EffectProbe()
        _ = await captureFailures {
            let store = TestStore(initialValues: [:], actionHandler: probeHandler, dependency: probe)
            store.effectTimeout = .milliseconds(30)
            store.send(.startTicking)
            store.receive(.done)
        }
        #expect(await probe.waitForTickerToStop())
    }

    @Test func cancellingTheWaitingTaskEndsTheReceiveAtOnce() async throws {
        // The message tells a cancelled wait from a timeout; the time only shows it did not wait it out.
        let probe = EffectProbe()
        let failures = LockedList<CapturedFailure>()
        let receiveLine = LockedList<UInt>()
        let started = ContinuousClock.now
        let waiting = Task {
            let captured = await captureFailures {
                let store = TestStore(initialValues: [:], actionHandler: probeHandler, dependency: probe)
                store.effectTimeout = .seconds(600)
                store.send(.startTicking)
                receiveLine.append(#line + 1)
                await store.receive(.done)
            }
            for failure in captured { failures.append(failure) }
        }
        try await Task.sleep(for: .milliseconds(30))
        waiting.cancel()
        await waiting.value
        #expect(ContinuousClock.now - started < .seconds(120))
        #expect(
            failures.values == [
                CapturedFailure(
                    message: """
                        Expected to receive .done, but the wait for the effect .stream was cancelled.
                        The task awaiting receive(_:) was cancelled; the effect was cancelled too.
                        """,
                    line: receiveLine.values.first ?? 0)
            ])
        #expect(await probe.waitForTickerToStop())
    }

    @Test func aStuckEffectDoesNotStarveAnotherTestStoresSynchronousReceive() async {
        let probe = EffectProbe()
        defer { probe.release.signal() }
        let failures = await captureFailures {
            let stuck = TestStore(initialValues: [:], actionHandler: probeHandler, dependency: probe)
            stuck.effectTimeout = .milliseconds(30)
            stuck.send(.blockThread)
            stuck.receive(.done)

            let other = TestStore(initialValues: [:], actionHandler: probeHandler, dependency: probe)
            other.effectTimeout = .seconds(3)
            other.send(.instant)
            other.receive(.done)
        }
        #expect(
            failures.map(\.message) == [
                """
                Expected to receive .done, but the effect .load did not finish within 0.03 seconds.
                Make the effect finish (a mock dependency that returns at once), or raise effectTimeout.
                """
            ])
    }
}
