import CacheStoreAtomics

/// Carries out what a store's ``EffectScheduler`` decides: it takes the lock, asks the scheduler,
/// leaves the lock, then acts — cancels tasks, starts tasks where the store's ``EffectStarter``
/// says, hands actions to the store's turn, releases what the scheduler let go of. (The shape of
/// async-algorithms' `DebounceStorage`.)
///
/// Task bodies only sleep and run the user's operation; everything they report (an action sent, an
/// operation's end, a deadline reached) is brought into the store's turn and decided there, so the
/// same program takes the same decisions in the same order on every run.
///
/// `lock` guards ``scheduler`` and is held only to ask it (or to wait for a delivery to end, see
/// ``cancel(_:)``). The runner holds its engine weakly: a running effect never keeps its store alive.
@usableFromInline
final class EffectRunner<Key: Hashable & SendableMetatype, Action, Dependency>: @unchecked Sendable {
    @usableFromInline typealias Scheduler = EffectScheduler
    @usableFromInline typealias Engine = StoreEngine<Key, Action, Dependency>

    @usableFromInline let lock = ConditionLock()
    /// Guarded by `lock`.
    @exclusivity(unchecked) @usableFromInline var scheduler = Scheduler()
    @usableFromInline weak var engine: Engine?
    /// Where tasks start: the engine's (a test store sets it). Guarded by the turn, where every task
    /// starts.
    @exclusivity(unchecked) @usableFromInline var starter: EffectStarter

    @usableFromInline
    init(engine: Engine) {
        self.engine = engine
        starter = engine.starter
    }

    // MARK: - Starting (in the turn)

    /// Starts `effect` at `placement`: every part of it, as the scheduler decides. In the turn.
    @inlinable
    func start(_ effect: ActionEffect<Action>, _ placement: Scheduler.Placement, startedBy action: UInt64) {
        // A single effect, the most common, is started here, specialized for the store's types.
        guard case .single(let operation, let recover) = effect.operation else {
            return startComposed(effect, placement, startedBy: action)
        }
        startSingle(effect.identity, operation, recover, placement, startedBy: action)
    }

    /// Starts any other kind of effect: every part of it, as the scheduler decides. In the turn.
    @usableFromInline
    func startComposed(_ effect: ActionEffect<Action>, _ placement: Scheduler.Placement, startedBy action: UInt64) {
        switch effect.operation {
        case .single(let operation, let recover):
            startSingle(effect.identity, operation, recover, placement, startedBy: action)
        case .run(let operation, let recover):
            startRun(effect.identity, operation, recover, placement, startedBy: action)
        case .action(let action):
            startImmediate(action, placement)
        case .cancel:
            _ = cancel(effect.id)
        case .merged(let parts):
            for part in parts { start(part, placement, startedBy: action) }
        case .concatenated(let steps):
            startConcatenation(effect.identity, steps, placement, startedBy: action)
        case .debounced(let timing, let inner):
            let (id, steps, now) = (effect.id, EffectSteps([inner]), timing.now())
            decide { scheduler, thread, decisions in
                scheduler.startDebounced(
                    id, timing, now: now, steps, placement, startedBy: action, on: thread, into: &decisions)
            }
        case .throttled(let timing, let latest, let inner):
            let (id, steps, now) = (effect.id, EffectSteps([inner]), timing.now())
            decide { scheduler, thread, decisions in
                scheduler.startThrottled(
                    id, timing, latest: latest, now: now, steps, placement, startedBy: action, on: thread,
                    into: &decisions)
            }
        }
    }

    /// Starts a single effect's operation in a task of its own.
    @inlinable
    func startSingle(
        _ identity: EffectIdentity, _ operation: @escaping @Sendable () async throws -> Action?,
        _ recover: (@Sendable (any Error) async -> Action?)?, _ placement: Scheduler.Placement,
        startedBy action: UInt64
    ) {
        guard let ticket = startOperation(identity, placement, startedBy: action) else { return }
        let task = starter.start(EffectTask(ticket: ticket, identity: identity, isTimer: false)) { [self] in
            let last: Action?
            do {
                last = try await operation()
            } catch {
                last = Task.isCancelled ? nil : await recover?(error)
            }
            ended(ticket, last: last)
        }
        attach(task, to: ticket)
    }

    /// Starts a `run` effect's operation in a task of its own, with a ``Send`` into the store.
    @usableFromInline
    func startRun(
        _ identity: EffectIdentity, _ operation: @escaping @Sendable (Send<Action>) async throws -> Void,
        _ recover: (@Sendable (any Error, Send<Action>) async -> Void)?, _ placement: Scheduler.Placement,
        startedBy action: UInt64
    ) {
        guard let ticket = startOperation(identity, placement, startedBy: action) else { return }
        let send = Send<Action> { [self] action in await self.send(action, from: ticket) }
        let task = starter.start(EffectTask(ticket: ticket, identity: identity, isTimer: false)) { [self] in
            do {
                try await operation(send)
            } catch {
                if !Task.isCancelled, let recover { await recover(error, send) }
            }
            ended(ticket, last: nil)
        }
        attach(task, to: ticket)
    }

    /// Asks the scheduler for a new operation's ticket; `nil`: start nothing.
    @inlinable
    func startOperation(
        _ identity: EffectIdentity, _ placement: Scheduler.Placement, startedBy action: UInt64
    ) -> EffectTicket? {
        var decisions = Scheduler.Decisions()
        let thread = ThreadID.current
        lock.lock()
        let ticket = scheduler.startOperation(identity, placement, startedBy: action, on: thread, into: &decisions)
        lock.unlock()
        if !decisions.isEmpty { carryOut(decisions) }
        return ticket
    }

    /// An immediate action: handled right after the current action; as a part of a concatenation's
    /// step, the step waits for it.
    @usableFromInline
    func startImmediate(_ action: Action, _ placement: Scheduler.Placement) {
        guard let engine else { return }
        guard case .part(let concatenation) = placement else { return engine.handleNext(action, from: .immediate) }
        let ticket = lock.withLock { scheduler.startImmediate(in: concatenation) }
        guard let ticket else { return }
        engine.queue.perform(waiting: false) { [self] in deliverInTurn(action, from: ticket, origin: .immediate, engine) }
    }

    /// Starts a concatenation and its first step.
    @usableFromInline
    func startConcatenation(
        _ identity: EffectIdentity, _ steps: [ActionEffect<Action>], _ placement: Scheduler.Placement,
        startedBy action: UInt64
    ) {
        var first: EffectStep?
        decide { scheduler, thread, decisions in
            first = scheduler.startConcatenation(
                identity, EffectSteps(steps), placement, startedBy: action, on: thread, into: &decisions)
        }
        if let first { startSteps([first]) }
    }

    /// Starts each step's parts, then tells the scheduler, which may decide the next step at once (a
    /// step that started nothing): a loop, so that a long concatenation never recurses. In the turn.
    @usableFromInline
    func startSteps(_ steps: [EffectStep]) {
        var pending = steps[...]
        while let step = pending.popFirst() {
            start(step.steps.first(as: Action.self), .part(of: step.concatenation), startedBy: 0)
            var decisions = Scheduler.Decisions()
            lock.withLock { scheduler.stepStarted(step.concatenation, into: &decisions) }
            pending += decisions.steps
            decisions.steps = []
            if !decisions.isEmpty { carryOut(decisions) }
        }
    }

    /// Asks the scheduler under the lock, then carries out what it decided. In the turn.
    @usableFromInline
    func decide(_ body: (inout Scheduler, ThreadID, inout Scheduler.Decisions) -> Void) {
        var decisions = Scheduler.Decisions()
        let thread = ThreadID.current
        lock.withLock { body(&scheduler, thread, &decisions) }
        if !decisions.isEmpty { carryOut(decisions) }
    }

    /// Carries out `decisions`, with the lock left: cancels the tasks, releases the values, starts
    /// the timers, then the steps. In the turn.
    @usableFromInline
    func carryOut(_ decisions: consuming Scheduler.Decisions) {
        for task in decisions.cancelled { task.cancel() }
        decisions.released = []
        for (ticket, deadline) in decisions.timers { startTimer(ticket, until: deadline) }
        if !decisions.steps.isEmpty { startSteps(decisions.steps) }
    }

    /// Starts the timer of a wait: it sleeps until the deadline on its clock, then reports it reached.
    @usableFromInline
    func startTimer(_ ticket: EffectTicket, until deadline: EffectDeadline) {
        let task = starter.start(EffectTask(ticket: ticket, identity: timerIdentity(ticket), isTimer: true)) { [self] in
            let isReached = (try? await deadline.sleep()) != nil
            timerEnded(ticket, isReached: isReached)
        }
        attach(task, to: ticket)
    }

    /// The id a wait's timer waits under, for a starter that names the effects it starts.
    func timerIdentity(_ ticket: EffectTicket) -> EffectIdentity {
        lock.withLock { scheduler.id(of: ticket) }.map(EffectIdentity.given) ?? EffectIdentity(nil)
    }

    /// Gives the node of `ticket` its task, or cancels the task when the node was cancelled meanwhile.
    @inlinable
    func attach(_ task: consuming Task<Void, Never>, to ticket: EffectTicket) {
        lock.lock()
        let rejected = scheduler.attach(task, to: ticket)
        lock.unlock()
        rejected?.cancel()
    }

    // MARK: - Reports from tasks

    /// An operation returned, with its last action or none: ended in the turn, where the action is
    /// handled unless the effect was cancelled. The task does not wait.
    @inlinable
    func ended(_ ticket: EffectTicket, last: Action?) {
        guard let engine else { return }
        if engine.takeIdleTurn() {
            endedInTurn(ticket, last: last, engine)
            return engine.queue.endTurn()
        }
        engine.inTurn(withoutWaiting: { [self] in endedInTurn(ticket, last: last, engine) })
    }

    /// ``ended(_:last:)``'s work, in the turn.
    @inlinable
    func endedInTurn(_ ticket: EffectTicket, last: Action?, _ engine: Engine) {
        var decisions = Scheduler.Decisions()
        let thread = ThreadID.current
        lock.lock()
        if engine.observer != nil { engine.deliveringEffectID = scheduler.nameInMessages(of: ticket) }
        let ending = scheduler.operationEnded(ticket, hasLast: last != nil, on: thread, into: &decisions)
        lock.unlock()
        if !decisions.isEmpty { carryOut(decisions) }
        guard ending != .dropped, let last else { return }
        engine.process(last, from: .effect(ticket))
        if ending == .deliveringAsPart { endDelivery(ticket) }
    }

    /// Sends `action` from the `run` effect of `ticket`: handled in the turn unless the effect was
    /// cancelled; the effect suspends until then, holding no thread.
    @usableFromInline
    func send(_ action: Action, from ticket: EffectTicket) async {
        guard let engine else { return }
        if engine.takeIdleTurn() {
            deliverInTurn(action, from: ticket, origin: .effect(ticket), engine)
            return engine.queue.endTurn()
        }
        await engine.inTurn(forEffect: { [self] in deliverInTurn(action, from: ticket, origin: .effect(ticket), engine) })
    }

    /// Handles an action of the effect of `ticket` unless it was cancelled: the check runs in the
    /// action's turn, just before its handler, so a cancellation that comes first always wins.
    @usableFromInline
    func deliverInTurn(_ action: Action, from ticket: EffectTicket, origin: ActionOrigin, _ engine: Engine) {
        let thread = ThreadID.current
        let isAdmitted = lock.withLock {
            if engine.observer != nil { engine.deliveringEffectID = scheduler.nameInMessages(of: ticket) }
            return scheduler.beginDelivery(ticket, on: thread)
        }
        guard isAdmitted else { return }
        engine.process(action, from: origin)
        endDelivery(ticket)
    }

    /// The admitted action of `ticket` has been handled; wakes a canceller waiting for it.
    @usableFromInline
    func endDelivery(_ ticket: EffectTicket) {
        var decisions = Scheduler.Decisions()
        lock.lock()
        let wakes = scheduler.endDelivery(ticket, into: &decisions)
        lock.unlock()
        if wakes { lock.broadcast() }
        if !decisions.isEmpty { carryOut(decisions) }
    }

    /// A wait's timer returned: at its deadline, or cancelled.
    @usableFromInline
    func timerEnded(_ ticket: EffectTicket, isReached: Bool) {
        guard let engine else { return }
        engine.inTurn(withoutWaiting: { [self] in
            decide { scheduler, thread, decisions in
                if isReached {
                    scheduler.deadlineReached(ticket, on: thread, into: &decisions)
                } else {
                    scheduler.taskEnded(ticket, into: &decisions)
                }
            }
        })
    }

    // MARK: - From any thread

    /// Cancels the effects running and waiting under `id`, with their parts (see ``EffectScheduler``).
    ///
    /// When one of their actions is being handled on another thread, waits for that handler to
    /// return, unless this thread holds a turn itself (then it returns `false`; see ``ActionQueue``).
    ///
    /// - Returns: Whether an effect was running or waiting under `id`, and nothing it sends will be
    ///   handled.
    @usableFromInline
    func cancel(_ id: AnyHashable) -> Bool {
        var decisions = Scheduler.Decisions()
        let thread = ThreadID.current
        lock.lock()
        let cancellation = scheduler.cancel(id, on: thread, into: &decisions)
        lock.unlock()
        carryOutFromAnyThread(decisions)
        switch cancellation {
        case .notRunning:
            return false
        case .cancelled:
            return true
        case .awaitingDelivery(_, let ticket):
            guard !cachestore_holds_turn() else { return false }
            lock.lock()
            while !scheduler.isDeliveryOver(ticket) { lock.wait() }
            lock.unlock()
            return true
        }
    }

    /// Carries out `decisions` from any thread: the steps they start go to the turn.
    func carryOutFromAnyThread(_ decisions: consuming Scheduler.Decisions) {
        guard !decisions.steps.isEmpty, let engine, !engine.queue.isHandlingThread else {
            return carryOut(decisions)
        }
        let steps = decisions.steps
        decisions.steps = []
        carryOut(decisions)
        engine.inTurn(withoutWaiting: { [self] in startSteps(steps) })
    }

    /// Cancels every effect, for a released store, and every effect started from now on at once.
    func close() {
        let closed = lock.withLock { scheduler.close() }
        lock.broadcast()
        for task in closed.tasks { task.cancel() }
        // `closed`, with the ids and effects it holds, is released here, with the lock left.
    }

    /// The ids of the effects running or waiting now.
    var runningIDs: Set<AnyHashable> {
        lock.withLock { scheduler.runningIDs }
    }

    /// Every effect running or waiting now, oldest first.
    var runningEffects: [RunningEffect] {
        lock.withLock { scheduler.runningEffects }
    }

    /// The id of the node of `ticket`, while it runs.
    func id(of ticket: EffectTicket) -> AnyHashable? {
        lock.withLock { scheduler.id(of: ticket) }
    }

    /// The id a test store's failures name the effect of `ticket` by, while it runs.
    func nameInMessages(of ticket: EffectTicket) -> AnyHashable? {
        lock.withLock { scheduler.nameInMessages(of: ticket) }
    }
}
