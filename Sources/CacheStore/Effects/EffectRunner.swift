/// The effects of one store that are running now: their tasks, and their ``EffectLifecycle``.
///
/// `lock` guards the lifecycle and is held only to read or change it (or to wait for a delivery to
/// end): tasks are started and cancelled, actions handled, and the ids of ended effects (a user's
/// values, whose `deinit` may call back into the store) released, with it released.
@usableFromInline
final class EffectRunner: @unchecked Sendable {
    @usableFromInline typealias Ticket = EffectLifecycle.Ticket

    private let lock = ConditionLock()
    /// Guarded by `lock`: every access is inside it, so the dynamic exclusivity check (a thread-local
    /// access set, about 300 instructions per effect round trip in callgrind) is left out.
    @exclusivity(unchecked) private var lifecycle = EffectLifecycle()
    /// When each throttled effect may start; made by the first throttled effect, as most stores
    /// have none (a row's scoped store makes one allocation fewer). Guarded by `lock`.
    private var throttleSchedule: ThrottleSchedule?

    @usableFromInline init() {}

    /// The ids of the effects running now.
    var ids: Set<AnyHashable> {
        lock.withLock { lifecycle.runningIDs }
    }

    /// Starts an effect under `identity`, cancelling the effect running under its id first.
    ///
    /// ```swift
    /// effects.start(identity) { ticket in Task { await work(ticket) } }
    /// ```
    ///
    /// - Parameters:
    ///   - identity: The effect's given id, or its anonymous identity, which replaces nothing.
    ///   - placement: On its own, or a part of a composed effect (see ``EffectLifecycle``).
    ///   - makeTask: Makes the effect's task, given the ticket to pass to the other methods; `nil`
    ///     for an effect that delivers at once, or whose task is made later and given to
    ///     ``attach(_:to:)``. (The caller makes the task, so that its closure is
    ///     the only one allocated: a closure passed here to be wrapped in the task would be one more
    ///     allocation and async frame per effect.)
    /// - Returns: The effect's ticket; `nil` when the composed effect it is a part of was
    ///   cancelled, and then nothing was started.
    @discardableResult
    @usableFromInline
    func start(
        _ identity: EffectIdentity, _ placement: EffectLifecycle.Placement = .root,
        _ makeTask: (Ticket) -> Task<Void, Never>?
    ) -> Ticket? {
        let me = ThreadID.current
        let started = changingLifecycle { lifecycle in lifecycle.start(identity, placement, on: me) }
        guard let (ticket, replaced) = started else { return nil }
        for task in replaced { task.cancel() }
        guard let task = makeTask(ticket) else { return ticket }
        attach(task, to: ticket)
        return ticket
    }

    /// Attaches the task of the effect of `ticket`, to be cancelled with it; cancels the task at
    /// once when the effect was cancelled meanwhile.
    ///
    /// The task moves into the lifecycle: copied there, it was retained and its copy here released
    /// (callgrind, `effect-roundtrip`: 6,766 → 6,439 instructions).
    @usableFromInline
    func attach(_ task: consuming Task<Void, Never>, to ticket: Ticket) {
        lock.lock()
        let rejected = lifecycle.attach(task, to: ticket)
        lock.unlock()
        rejected?.cancel()
    }

    /// The engine of the store these effects belong to, retained, unless the store was released
    /// (``close()``): how an effect's task reaches its store without keeping it alive.
    ///
    /// ```swift
    /// let engine = Unmanaged.passUnretained(self)    // in the engine, when the effect starts
    /// Task { guard let self = runner.engine(engine) else { return } … }
    /// ```
    ///
    /// Safe because a store closes its runner before it releases its engine, and the engine is
    /// retained here under the lock `close()` takes: either the store was not closed yet, and the
    /// engine is alive, or `nil`. (Callgrind, `effect-roundtrip`: 7,782 → 7,258 instructions per round
    /// trip against a task holding the engine weakly. A weakly referenced object has a side table,
    /// and every retain and release of it takes the runtime's slow path.)
    @usableFromInline
    func engine<Engine: AnyObject>(_ engine: Unmanaged<Engine>) -> Engine? {
        lock.lock()
        defer { lock.unlock() }
        return lifecycle.isClosed ? nil : engine.takeUnretainedValue()
    }

    /// Whether the effect of `ticket` runs and was not cancelled.
    @usableFromInline
    func isRunning(_ ticket: Ticket) -> Bool {
        lock.withLock { lifecycle.isRunning(ticket) }
    }

    /// The store's throttle schedule (see ``ActionEffect/throttle(id:for:clock:latest:)``).
    @usableFromInline
    var throttles: ThrottleSchedule {
        lock.withLock {
            if let throttleSchedule { return throttleSchedule }
            let schedule = ThrottleSchedule()
            throttleSchedule = schedule
            return schedule
        }
    }

    /// Forgets when the effect under `id` was last started by a throttle, if one ever was.
    @usableFromInline
    func forgetThrottle(_ id: AnyHashable) {
        lock.withLock { throttleSchedule }?.forget(id)
    }

    /// Forgets the starts booked for cancelled waiting throttled effects, so that the next one with
    /// their id is not dropped as if they were still due.
    private func forgetThrottles(_ ids: [AnyHashable]) {
        for id in ids { forgetThrottle(id) }
    }

    /// Admits an action the effect sent, to be handled now by the calling thread.
    @usableFromInline
    func beginDelivery(_ ticket: Ticket) -> Bool {
        lock.withLock { lifecycle.beginDelivery(ticket, on: .current) }
    }

    /// The admitted action has been handled.
    @usableFromInline
    func endDelivery(_ ticket: Ticket) {
        let isAwaited = changingLifecycle { lifecycle in lifecycle.endDelivery(ticket) }
        if isAwaited { lock.broadcast() }
    }

    /// Ends the effect, whose work returned with a last action to handle or none; see
    /// ``EffectLifecycle/finish(_:deliveringLast:on:)``.
    @usableFromInline
    func finish(_ ticket: Ticket, deliveringLast: Bool) -> EffectLifecycle.Finish {
        let me = ThreadID.current
        return changingLifecycle { lifecycle in lifecycle.finish(ticket, deliveringLast: deliveringLast, on: me) }
    }

    /// Cancels the effects running and waiting under `id`, with their parts; see ``EffectLifecycle``.
    ///
    /// When one of their actions is being handled on another thread, waits for that handler to
    /// return — unless waiting could deadlock (see ``WaitGraph``): then returns `false`.
    ///
    /// - Returns: Whether an effect was running under `id` and nothing it sends will be handled.
    @discardableResult
    @usableFromInline
    func cancel(_ id: AnyHashable) -> Bool {
        let me = ThreadID.current
        let (cancellation, tasks) = changingLifecycle { lifecycle in lifecycle.cancel(id, on: me) }
        for task in tasks { task.cancel() }
        switch cancellation {
        case .notRunning:
            return false
        case .cancelled:
            return true
        case .awaitingDelivery(let thread, let ticket):
            guard WaitGraph.shared.beginWait(me, for: thread) else { return false }
            lock.lock()
            while !lifecycle.isGone(ticket) { lock.wait() }
            lock.unlock()
            WaitGraph.shared.endWait(me)
            return true
        }
    }

    /// Cancels every effect, for a released store, and every effect started from now on at once
    /// (see ``EffectLifecycle/close()``).
    func close() {
        let closed = lock.withLock { lifecycle.close() }
        lock.broadcast()
        for task in closed.tasks { task.cancel() }
        // `closed`, with the ids it holds, is released here, with the lock left.
    }

    /// Runs `body` on the lifecycle under the lock; then, with the lock left, forgets the throttle
    /// bookings of the waiting throttled effects it cancelled, and releases the ids of the effects it
    /// removed.
    private func changingLifecycle<Result>(_ body: (inout EffectLifecycle) -> Result) -> Result {
        lock.lock()
        let result = body(&lifecycle)
        // Most changes leave nothing (an anonymous effect's start or end): 150 instructions fewer
        // per `effect-roundtrip` than taking two empty arrays.
        guard lifecycle.hasLeftovers else {
            lock.unlock()
            return result
        }
        let abandoned = lifecycle.takeAbandonedThrottles()
        let released = lifecycle.takeReleasedIDs()
        lock.unlock()
        forgetThrottles(abandoned)
        withExtendedLifetime(released) {}
        return result
    }
}
