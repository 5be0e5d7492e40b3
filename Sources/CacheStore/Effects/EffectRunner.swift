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
/// `lock` guards ``scheduler`` and ``engine``, and is held only to read or change them (or to wait
/// for a delivery to end, see ``cancel(_:)``).
///
/// A running effect never keeps its store alive: its task holds the runner, and the runner holds the
/// engine only until the store is released (``close()``), which cuts that link. A strong reference
/// cut by hand, not a weak one: a weak reference gives the engine a side table, through which every
/// retain and release of it then goes.
@usableFromInline
final class EffectRunner<Key: Hashable & SendableMetatype, Action, Dependency>: @unchecked Sendable {
    @usableFromInline typealias Scheduler = EffectScheduler
    @usableFromInline typealias Engine = StoreEngine<Key, Action, Dependency>

    @usableFromInline let lock = ConditionLock()
    /// Guarded by `lock`.
    @exclusivity(unchecked) @usableFromInline var scheduler = Scheduler()
    /// The store's engine until the store is released; guarded by `lock`.
    @exclusivity(unchecked) @usableFromInline var engine: Engine?
    /// The store tree's turn, and where its actions are handled: what a task needs to bring its
    /// report into the turn.
    @usableFromInline let queue: ActionQueue
    @usableFromInline let isolation: ActionIsolation
    /// Where tasks start: the engine's (a test store sets it). Guarded by the turn, where every task
    /// starts.
    @exclusivity(unchecked) @usableFromInline var starter: EffectStarter
    /// How many effect tasks sent an action to the main actor (a `.mainActor` store's) and have not
    /// yet resumed: a test store lets them resume before it looks for leftovers. Guarded by `lock`.
    @exclusivity(unchecked) @usableFromInline var sendsToTheMainActor = 0
    /// How many of those actions the main actor has not handled yet: a test store runs no other job
    /// meanwhile, as a store on any thread would have handled the action in the sending job.
    /// Guarded by `lock`.
    @exclusivity(unchecked) @usableFromInline var sendsAwaitingTheMainActor = 0

    @usableFromInline
    init(engine: Engine) {
        self.engine = engine
        queue = engine.queue
        isolation = engine.isolation
        starter = engine.starter
    }

    // MARK: - Starting (in the turn)

    /// Starts `effect` at `placement`: every part of it, as the scheduler decides. In the turn.
    @inlinable
    func start(_ effect: ActionEffect<Action>, _ placement: Scheduler.Placement, startedBy action: UInt64) {
        // A single effect, the most common, is started here, specialized for the store's types.
        guard case .single(let operation) = effect.operation else {
            return startComposed(effect, placement, startedBy: action)
        }
        startSingle(effect.identity, operation, placement, startedBy: action)
    }

    /// Starts any other kind of effect: every part of it, as the scheduler decides. In the turn.
    @usableFromInline
    func startComposed(_ effect: ActionEffect<Action>, _ placement: Scheduler.Placement, startedBy action: UInt64) {
        switch effect.operation {
        case .single(let operation):
            startSingle(effect.identity, operation, placement, startedBy: action)
        case .singleThrowing(let operation, let recover):
            let recovering: @Sendable () async -> Action? = {
                do { return try await operation() } catch { return Task.isCancelled ? nil : await recover(error) }
            }
            startSingle(effect.identity, recovering, placement, startedBy: action)
        case .run(let operation):
            startRun(effect.identity, operation, placement, startedBy: action)
        case .runThrowing(let operation, let recover):
            let recovering: @Sendable (Send<Action>) async -> Void = { send in
                do { try await operation(send) } catch { if !Task.isCancelled { await recover(error, send) } }
            }
            startRun(effect.identity, recovering, placement, startedBy: action)
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
        _ identity: EffectIdentity, _ operation: @escaping @Sendable () async -> Action?,
        _ placement: Scheduler.Placement, startedBy action: UInt64
    ) {
        guard let ticket = startOperation(identity, placement, startedBy: action) else { return }
        let task =
            switch starter {
            case .tasks:
                Task { [self] in ended(ticket, last: await operation()) }
            case .custom(let start):
                start(EffectTask(ticket: ticket, identity: identity, isTimer: false)) { [self] in
                    ended(ticket, last: await operation())
                }
            }
        attach(task, to: ticket)
    }

    /// Starts a `run` effect's operation in a task of its own, with a ``Send`` into the store.
    @usableFromInline
    func startRun(
        _ identity: EffectIdentity, _ operation: @escaping @Sendable (Send<Action>) async -> Void,
        _ placement: Scheduler.Placement, startedBy action: UInt64
    ) {
        guard let ticket = startOperation(identity, placement, startedBy: action) else { return }
        let send = Send<Action> { [self] action in await self.send(action, from: ticket) }
        let task = starter.start(EffectTask(ticket: ticket, identity: identity, isTimer: false)) { [self] in
            await operation(send)
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
        guard let engine = lock.withLock({ engine }) else { return }
        guard case .part(let concatenation) = placement else { return engine.handleNext(action, from: .immediate) }
        let ticket = lock.withLock { scheduler.startImmediate(in: concatenation) }
        guard let ticket else { return }
        queue.perform(waiting: false) { [self] in deliverInTurn(action, from: ticket, origin: .immediate) }
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
            guard let lists = decisions.lists else { continue }
            pending += lists.steps
            lists.steps = []
            carryOut(decisions)
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
        guard let lists = decisions.lists.take() else { return }
        for task in lists.cancelled { task.cancel() }
        lists.released = []
        for (ticket, deadline) in lists.timers { startTimer(ticket, until: deadline) }
        if !lists.steps.isEmpty { startSteps(lists.steps) }
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
        if isolation != .mainActor, queue.beginTurn() {
            endedInTurn(ticket, last: last)
            return queue.endTurn()
        }
        inTurn(withoutWaiting: { [self] in endedInTurn(ticket, last: last) })
    }

    /// ``ended(_:last:)``'s work, in the turn.
    @inlinable
    func endedInTurn(_ ticket: EffectTicket, last: Action?) {
        var decisions = Scheduler.Decisions()
        let thread = ThreadID.current
        lock.lock()
        guard let engine else { return lock.unlock() }
        // Named while the effect is still known; handed over just before its action, so no other
        // action (one that ends without one, or the decisions') takes it.
        let name = engine.observer != nil && last != nil ? scheduler.nameInMessages(of: ticket) : nil
        let ending = scheduler.operationEnded(ticket, hasLast: last != nil, on: thread, into: &decisions)
        lock.unlock()
        if !decisions.isEmpty { carryOut(decisions) }
        guard ending != .dropped, let last else { return }
        if let name { engine.deliveringEffectID = name }
        engine.process(last, from: .effect(ticket))
        if ending == .deliveringAsPart { endDelivery(ticket) }
    }

    /// Sends `action` from the `run` effect of `ticket`: handled in the turn unless the effect was
    /// cancelled; the effect suspends until then, holding no thread.
    @usableFromInline
    func send(_ action: Action, from ticket: EffectTicket) async {
        if isolation != .mainActor, queue.beginTurn() {
            deliverInTurn(action, from: ticket, origin: .effect(ticket))
            return queue.endTurn()
        }
        await inTurn(forEffect: { [self] in deliverInTurn(action, from: ticket, origin: .effect(ticket)) })
    }

    /// Handles an action of the effect of `ticket` unless it was cancelled: the check runs in the
    /// action's turn, just before its handler, so a cancellation that comes first always wins.
    @usableFromInline
    func deliverInTurn(_ action: Action, from ticket: EffectTicket, origin: ActionOrigin) {
        let thread = ThreadID.current
        let admitted = lock.withLock { () -> Engine? in
            guard let engine, scheduler.beginDelivery(ticket, on: thread) else { return nil }
            if engine.observer != nil { engine.deliveringEffectID = scheduler.nameInMessages(of: ticket) }
            return engine
        }
        guard let engine = admitted else { return }
        engine.process(action, from: origin)
        endDelivery(ticket)
    }

    /// Runs `work` in the turn for an effect's task, which suspends (holding no thread) until it ran.
    @usableFromInline
    func inTurn(forEffect work: @escaping () -> Void) async {
        guard isolation == .mainActor else { return await queue.perform(suspending: work) }
        lock.withLock {
            sendsToTheMainActor += 1
            sendsAwaitingTheMainActor += 1
        }
        await queue.performOnMainQueue(suspending: { [self] in
            work()
            lock.withLock { sendsAwaitingTheMainActor -= 1 }
        })
        lock.withLock { sendsToTheMainActor -= 1 }
    }

    /// Runs `work` in the turn for an effect's task, which does not wait for it (its end).
    @usableFromInline
    func inTurn(withoutWaiting work: @escaping () -> Void) {
        if isolation == .mainActor { return queue.queueForMainQueue(work) }
        queue.perform(waiting: false, work)
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
        inTurn(withoutWaiting: { [self] in
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
        guard let lists = decisions.lists, !lists.steps.isEmpty, !queue.isHandlingThread else {
            return carryOut(decisions)
        }
        let steps = lists.steps
        lists.steps = []
        carryOut(decisions)
        inTurn(withoutWaiting: { [self] in startSteps(steps) })
    }

    /// Cancels every effect, for a released store, and every effect started from now on at once;
    /// lets go of the engine.
    func close() {
        let (closed, engine) = lock.withLock { (scheduler.close(), self.engine.take()) }
        withExtendedLifetime(engine) {}  // released with the lock left
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

    /// Whether an effect task sent an action to the main actor and has not resumed.
    var hasSendsToTheMainActor: Bool {
        lock.withLock { sendsToTheMainActor > 0 }
    }

    /// Whether an effect task sent an action to the main actor that the main actor has not handled.
    var hasSendsAwaitingTheMainActor: Bool {
        lock.withLock { sendsAwaitingTheMainActor > 0 }
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
