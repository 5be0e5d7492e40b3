import Foundation

/// A clock whose sleep ends only when the sleeping task is cancelled, with no timer left behind.
struct ParkedClock: Clock {
    var now: ContinuousClock.Instant { ContinuousClock.now }
    var minimumResolution: Duration { .zero }

    func sleep(until deadline: ContinuousClock.Instant, tolerance: Duration?) async throws {
        let parking = Parking()
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in parking.park(continuation) }
        } onCancel: {
            parking.release()
        }
        throw CancellationError()
    }
}

/// One parked task's continuation, resumed once by ``release()``, whether it parked yet or not.
final class Parking: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Void, Never>?
    private var isReleased = false

    /// How many sleeps are parked now, in every ``ParkedClock``.
    static let parked = Counter()

    func park(_ continuation: CheckedContinuation<Void, Never>) {
        let resumeNow = lock.withLock {
            if isReleased { return true }
            self.continuation = continuation
            Self.parked.add(1)
            EffectCycle.waitsBegun.add(1)
            return false
        }
        if resumeNow { continuation.resume() }
    }

    func release() {
        let parked = lock.withLock {
            isReleased = true
            return continuation.take()
        }
        if parked != nil { Self.parked.add(-1) }
        parked?.resume()
    }
}
