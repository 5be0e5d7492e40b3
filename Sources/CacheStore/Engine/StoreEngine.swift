import Dispatch

/// The engine behind a ``Store``: one action's path from `handle` to committed state, observers,
/// the debug log and the effects it starts.
///
/// ```
/// handle(action) ─▶ ActionQueue turn ─▶ apply: handler on a TransactionCore ─▶ commit (writeAll)
///                                                                              ├─▶ observers, changes
///                                                                              └─▶ debug report
///                 ─▶ start effect parts ─▶ EffectRunner tasks ─▶ deliver(action) ─▶ handle …
/// ```
///
/// Everything here runs in the turn of the store tree's ``ActionQueue`` (one action at a time per
/// tree), with no lock held: the handler, the debug output and observers may call back into any
/// store. The `var`s are guarded by that turn.
///
/// ## The engine's locks
///
/// Each guards one thing, is held only to read or change it, and no code takes a second lock while
/// holding one, so there is no lock order to keep:
///
/// | lock | guards |
/// | --- | --- |
/// | `RootCore.lock` | one key space's values, observation marks and subscribers |
/// | `ActionQueue.lock` | the work queued for a store tree (which thread handles it: `ActionQueue.turn`) |
/// | `EffectRunner.lock` | a store's ``EffectLifecycle`` |
/// | `effectRunnerCreationLock` | every store's reference to its ``EffectRunner``, made by its first effect |
/// | `WaitGraph.lock` | which thread waits for which, across stores |
/// | `ChangeBuffer.lock` | the keys waiting for one `changes` iterator |
/// | `Subscription.lock` | whether a subscription was cancelled |
///
/// A transaction (``TransactionCore``) needs none: it belongs to the turn. The turn itself is an
/// atomic word, `ActionQueue.turn`: a plain action begins and ends it without a lock.
@usableFromInline
final class StoreEngine<Key: Hashable & SendableMetatype, Action, Dependency>: @unchecked Sendable {
    /// The committed state, its core with its hot operations: a root cache's, or a scope of the parent
    /// store's state. (Not a ``CacheStore``, which is only a handle to them: a row's scoped store makes
    /// one object fewer.)
    @usableFromInline let state: CoreAccess<Key>
    @usableFromInline let queue: ActionQueue
    @usableFromInline let handler: StoreActionHandler<Key, Action, Dependency>
    @usableFromInline let dependency: Dependency
    /// The store's running effects, once its first effect made them (see ``effects``). Written once,
    /// in the turn and under ``effectRunnerCreationLock``; read in the turn, or under that lock.
    @exclusivity(unchecked) @usableFromInline var madeEffects: EffectRunner?
    /// Whether the store was released: an effect runner made after that is closed at once (see
    /// ``closeEffects()``). Guarded by ``effectRunnerCreationLock``.
    @exclusivity(unchecked) @usableFromInline var isEffectsClosed = false
    /// Where actions are handled; a scoped store shares its parent's.
    @usableFromInline let isolation: ActionIsolation
    /// Hands an action on to the parent store, for a scoped store; runs after this store's handler,
    /// in the same turn, so a cancelled effect's action never reaches the parent after
    /// `cancel(id:)` returned `true`.
    @usableFromInline let forwardToParent: ((Action) -> Void)?
    /// The store this one is scoped from, for a scoped store: kept while this one lives, as its
    /// state is a view of the parent's, and ``DebugLog/parent`` does not retain the parent's engine.
    /// (It was kept by `forwardToParent` alone, which a store whose actions are `Never` no longer
    /// makes: under a kept row's store the parent was then freed, its effects cancelled, and a
    /// scoped store's debug log read its freed engine.)
    @usableFromInline let parentStore: AnyObject?
    /// Where this store's debug reports go: its own log and those above it (see ``DebugLog``).
    /// Guarded by the turn.
    @exclusivity(unchecked) @usableFromInline var debugLog = DebugLog<Key>()
    /// The last action's handler state, kept for the next action when nothing else holds it: a
    /// plain action then allocates nothing. Guarded by the turn.
    @exclusivity(unchecked) @usableFromInline var spare: (state: CacheStore<Key>, transaction: TransactionCore<Key>)?
    /// Whether the next single effect started waits for the turn to end before its task is made
    /// (see ``inIdleTurn(_:)``); one at most, so it is unset when one does. Guarded by the turn.
    @exclusivity(unchecked) @usableFromInline var isDeferringTask = false
    /// That effect, once started: its operation and ticket. Guarded by the turn. (Two variables: the
    /// operation moves out of its optional, where a tuple of both was copied out and destroyed, a
    /// retain and a release more; callgrind, `effect-roundtrip`: 6,595 → 6,439 instructions.)
    @exclusivity(unchecked) @usableFromInline var deferredOperation: (@Sendable () async -> Action?)?
    @exclusivity(unchecked) @usableFromInline var deferredTicket = EffectRunner.Ticket.unkept

    @inlinable
    init(
        state: CoreAccess<Key>,
        queue: ActionQueue,
        handler: StoreActionHandler<Key, Action, Dependency>,
        dependency: Dependency,
        isolation: ActionIsolation,
        forwardToParent: ((Action) -> Void)?,
        parentStore: AnyObject? = nil
    ) {
        self.isolation = isolation
        self.state = state
        self.queue = queue
        self.handler = handler
        self.dependency = dependency
        self.forwardToParent = forwardToParent
        self.parentStore = parentStore
    }

    /// The store's running effects, made by its first effect: most scoped stores, a row's among them,
    /// never start one, and so make neither the runner nor its lock: two allocations fewer per row,
    /// and about 1,400 instructions (callgrind, `scope-create`: the runner's init 229, its `close()`
    /// 401, its deinit 585; `effect-roundtrip` 6,521 → 6,570, the check for a runner). In the
    /// turn, or on a thread (or in a task) that the turn that made it handed on to.
    @inlinable
    var effects: EffectRunner {
        if let madeEffects { return madeEffects }
        return makeEffects()
    }

    /// Calls `body` with the store's running effects (see ``effects``), not retained: the engine keeps
    /// its runner once made, and `body` runs while the caller holds the engine. Through ``effects``,
    /// each call on the runner was a retain and a release of it, two atomic operations more (callgrind,
    /// `effect-roundtrip`: 13 → 10 retains and 16 → 14 releases, 6,694 → 6,622 instructions).
    @inlinable
    func withEffects<Result>(_ body: (EffectRunner) -> Result) -> Result {
        if madeEffects == nil { _ = makeEffects() }
        return Unmanaged.passUnretained(madeEffects.unsafelyUnwrapped)._withUnsafeGuaranteedRef(body)
    }

    /// Makes the runner, in the turn; closed at once when the store was released meanwhile.
    @usableFromInline
    func makeEffects() -> EffectRunner {
        let made = EffectRunner()
        let isClosed = effectRunnerCreationLock.withLock {
            madeEffects = made
            return isEffectsClosed
        }
        if isClosed { made.close() }
        return made
    }

    /// The store's running effects, if it ever started one; from any thread.
    var existingEffects: EffectRunner? {
        effectRunnerCreationLock.withLock { madeEffects }
    }

    /// Cancels every effect of the released store, and every effect started from now on at once
    /// (see ``EffectRunner/close()``); a runner made later (by an action queued before the release)
    /// is closed as it is made.
    func closeEffects() {
        let runner = effectRunnerCreationLock.withLock {
            isEffectsClosed = true
            return madeEffects
        }
        runner?.close()
    }

    /// Handles `action` in the tree's turn (see ``ActionQueue``).
    @inlinable
    func handle(_ action: Action) {
        if isolation == .mainActor { return handleOnMainActor(action) }
        guard queue.beginTurn() else { return queue.perform { [self] in process(action) } }
        inIdleTurn { process(action) }
    }

    /// Runs `work` in the turn this thread just took, then ends the turn (running the work queued
    /// meanwhile); the task of the first single effect `work` starts is made only then.
    ///
    /// So a new effect's task never finds its store's turn still taken by the thread that started
    /// it. It did: in a chain of effects (an effect's action starts the next one), the new task's
    /// thread often ran while the turn was still taken, queued its end for the handling thread and
    /// went to sleep, and the handling thread then had to wake it for the next one. Measured with
    /// `perf stat`, `--case effect-roundtrip --operations 200000`: on one CPU (`taskset -c 0`) 94,000
    /// → 2,000 context switches, 3.2–3.6 → 2.1–2.3 µs per round trip; on two CPUs busy with other
    /// builds, 86,000–106,000 → 1,000–2,000, 6.0–8.0 → 4.7 µs; on two idle CPUs, no change (the other
    /// CPU's thread takes the new task at once either way). Callgrind: `effect-roundtrip` 7,256 →
    /// 7,317 instructions, `store-handle` 1,398 → 1,418, this bookkeeping's cost. (One task is
    /// deferred, not all: a list of them would be an allocation per action.)
    @inlinable
    func inIdleTurn(_ work: () -> Void) {
        isDeferringTask = true
        work()
        guard !isDeferringTask else {
            isDeferringTask = false
            return queue.endTurn()
        }
        endTurnStartingDeferredTask()
    }

    /// Ends the turn, then makes the task of the effect ``inIdleTurn(_:)`` deferred.
    ///
    /// Not inlined into `inIdleTurn`: there, it made ``handle(_:)`` too large to have ``process(_:)``
    /// inlined, and an action without an effect paid the call (callgrind, `store-handle`: 971 → 943
    /// instructions; `effect-roundtrip` pays the call, 6,573 → 6,622).
    @inlinable @inline(never)
    func endTurnStartingDeferredTask() {
        // Read in the turn: once it ends, another thread's turn may defer its own.
        let ticket = deferredTicket
        guard let operation = deferredOperation.take() else { return queue.endTurn() }
        queue.endTurn()
        let task = singleTask(ticket, operation, in: nil)
        withEffects { effects in effects.attach(task, to: ticket) }
    }

    /// Handles `action` on the main queue: at once when called there, else sent there without
    /// waiting (see ``ActionIsolation/mainActor``).
    @usableFromInline
    func handleOnMainActor(_ action: Action) {
        guard MainQueue.isCurrent else { return sendToMainQueue(waiting: false) { [self] in process(action) } }
        queue.perform { [self] in process(action) }
    }

    /// Runs `work` in the tree's turn, on the main actor when the store's isolation asks for it.
    ///
    /// - Parameter waiting: Whether the caller waits for `work`: when another thread has the turn
    ///   (see ``ActionQueue/perform(waiting:_:)``), or, for a store on the main actor called off the
    ///   main queue, until the main queue has run it. An effect's `send` waits, so that an effect
    ///   sending faster than the main actor handles cannot queue actions without bound; it does not
    ///   when waiting could deadlock (the main queue waits for this thread, see ``WaitGraph``).
    @usableFromInline
    func perform(waiting: Bool = true, _ work: @escaping () -> Void) {
        guard isolation == .mainActor, !MainQueue.isCurrent else { return queue.perform(waiting: waiting, work) }
        sendToMainQueue(waiting: waiting, work)
    }

    /// Runs `work` in the tree's turn on the main queue, from another thread; waits for it when
    /// `waiting` and when waiting cannot deadlock.
    @usableFromInline
    func sendToMainQueue(waiting: Bool, _ work: @escaping () -> Void) {
        let done = waiting ? DispatchSemaphore(value: 0) : nil
        let handOver = UncheckedSendable((queue, work))
        DispatchQueue.main.async {
            handOver.value.0.perform(handOver.value.1)
            done?.signal()
        }
        guard let done else { return }
        let me = ThreadID.current
        guard WaitGraph.shared.beginWait(me, for: .mainQueue) else { return }
        done.wait()
        WaitGraph.shared.endWait(me)
    }

    /// Handles `action` and starts its effect. In the turn.
    @inlinable
    func process(_ action: Action) {
        // A consuming switch: `if let` left the `nil` effect of a plain action to be destroyed through
        // `Optional`'s value witness, as an effect holds existentials (callgrind, `store-handle`: 1,531
        // → 1,459 instructions per action).
        let effect = apply(action).effect
        switch consume effect {
        case .some(let effect): start(effect)
        case .none: break
        }
        if let forwardToParent { forwardToParent(action) }
    }

    /// Runs the handler for `action` and commits its writes, without starting its effect.
    ///
    /// The one path every action's state change takes: ``handle(_:)`` and `TestStore` both use it.
    /// In the turn.
    ///
    /// - Parameters:
    ///   - recordingChanges: Whether to return the changes even when the debug log is off.
    ///   - buffer: An empty array whose storage the changes reuse (see ``TransactionCore/commit(recordingChanges:reusing:)``).
    /// - Returns: Each key the handler wrote, with its value before and after (when recorded); and
    ///   the handler's effect.
    @inlinable
    func apply(_ action: Action, recordingChanges: Bool = false, reusing buffer: consuming [StateChange<Key>] = [])
        -> (changes: [StateChange<Key>], effect: ActionEffect<Action>?)
    {
        // Bound apart, `transaction` a `let`: destructured into two `var`s, the transaction was
        // retained for the handler's call and released after it (callgrind, `store-handle`: 1,161
        // → 1,113 instructions, `store-handle-observed-same` 13,961 → 13,913).
        let (state, transaction) = takeHandlerState()
        var handlerState = consume state
        let effect = handler.handle(store: &handlerState, action: action, dependency: dependency)
        let isLogged = queue.hasDebugLog && isDebugLogWriting
        let isRecording = recordingChanges || isLogged
        let changes: [StateChange<Key>]
        if handlerState.core === transaction {
            changes = transaction.commit(recordingChanges: isRecording, reusing: consume buffer)
            // Keep the state for the next action unless something outside the store may hold it:
            // the handler kept it (strongly, weakly or unowned), or made a scope over it. Such a
            // holder then reads and writes the committed state, as after any commit.
            if isKnownUniquelyReferenced(&handlerState), !hasWeakOrUnownedReferences(handlerState),
                !transaction.isScoped
            {
                spare = (consume handlerState, consume transaction)
            }
        } else {
            // Read before the discard: the new state may be a view over this transaction (a scope of
            // the handler's own state, assigned to it), which reads the handler's writes through it.
            let values = handlerState.allValues
            transaction.discard()
            changes = replaceState(with: values)
        }
        if isLogged { reportToDebugLog(action: action, changes: changes) }
        return (changes, effect)
    }

    /// The state a handler mutates: the spare one from the last action, or a new transaction.
    @inlinable
    func takeHandlerState() -> (CacheStore<Key>, TransactionCore<Key>) {
        guard let spare = spare.take() else {
            let transaction = TransactionCore(base: state.core, baseAccess: state)
            return (CacheStore(core: transaction), transaction)
        }
        spare.transaction.reopen()
        return spare
    }

    /// Applies a handler that assigned a whole new cache to its `inout` state: every key takes the
    /// value the new cache holds (keys it lacks are removed), in one atomic write. O(keys).
    @usableFromInline
    func replaceState(with values: [Key: Any]) -> [StateChange<Key>] {
        let keys = Array(Set(state.core.allValues(observing: false).keys).union(values.keys))
        var written = keys.map { key in values[key] }
        state.writeAll(keys, &written)
        return keys.indices.map { index in
            StateChange(key: keys[index], before: written[index], after: values[keys[index]])
        }
    }

    /// Starts `effect`: an immediate action is queued, async work runs in a task of its own.
    @inlinable
    func start(_ effect: ActionEffect<Action>) {
        // A single effect, the most common, is started as itself, not as its one part: the part was
        // made, copied and destroyed, a retain and a release of its operation more (callgrind,
        // `effect-roundtrip`: 7,040 → 6,439 instructions).
        if case .single(let operation) = effect.operation {
            return startSingle(effect.identity, operation, in: nil)
        }
        effect.forEachPart { part in start(part, in: nil) }
    }

    /// Starts one part of an effect; a part of a concatenation's step tells `group` when it has ended.
    @inlinable
    func start(_ part: ActionEffect<Action>.Part, in group: EffectGroup?) {
        switch part {
        case .action(let action):
            guard let group else { return handle(action) }
            startStepAction(action, in: group)
        case .cancel(let id):
            effects.cancel(id)
            effects.forgetThrottle(id)
        case .single(let identity, let operation):
            startSingle(identity, operation, in: group)
        case .task(let identity, let work):
            startTask(identity, group?.placement ?? .root, in: group) { ticket in
                let (runner, engine) = (effects, Unmanaged.passUnretained(self))
                return Task {
                    let last = await work(Send { action in runner.engine(engine)?.deliver(action, from: ticket) })
                    Self.endTask(of: ticket, delivering: last, then: group, engine, runner)
                }
            }
        case .concatenation, .delay, .decidedAtStart, .deferred:
            startComposed(part, in: group)
        }
    }

    /// Starts a single effect: its task is made now, or once the turn ends (see ``inIdleTurn(_:)``).
    ///
    /// Always inlined, as ``singleTask(_:_:in:)`` is: called, each copied the operation it was lent
    /// where the caller's could have moved (callgrind, `effect-roundtrip`: 10 → 9 retains, 6,622 →
    /// 6,559 instructions; `store-handle` 943 → 949, `lifted-handle` 1,313 → 1,326).
    @inlinable @inline(__always)
    func startSingle(
        _ identity: EffectIdentity, _ operation: @escaping @Sendable () async -> Action?, in group: EffectGroup?
    ) {
        // A part of a composed effect may start off the turn (a concatenation's later steps start in
        // its task): the deferral's state, guarded by the turn, is read only for others.
        if group == nil, isDeferringTask {
            isDeferringTask = false
            guard let ticket = withEffects({ effects in effects.start(identity, .root, { _ in nil }) }) else { return }
            (deferredTicket, deferredOperation) = (ticket, operation)
            return
        }
        startTask(identity, group?.placement ?? .root, in: group) { ticket in
            singleTask(ticket, operation, in: group)
        }
    }

    /// The task of a single effect: runs its operation, then ends it, delivering its action.
    ///
    /// The task does not hold the engine: a released store's state is freed even while an operation
    /// that ignores cancellation runs (see ``EffectRunner/engine(_:)``).
    @inlinable @inline(__always)
    func singleTask(
        _ ticket: EffectRunner.Ticket, _ operation: @escaping @Sendable () async -> Action?, in group: EffectGroup?
    ) -> Task<Void, Never> {
        let (runner, engine) = (effects, Unmanaged.passUnretained(self))
        return Task {
            let last = await operation()
            Self.endTask(of: ticket, delivering: last, then: group, engine, runner)
        }
    }

    /// Ends, from its task, the effect of `ticket`, unless its store was released meanwhile (see
    /// ``EffectRunner/engine(_:)``).
    ///
    /// A function of its own, called after the task's `await`: written out in the task's closure, it
    /// made the closure's async frame larger, one more task allocation per effect (callgrind,
    /// `effect-roundtrip`: 6,611 → 6,557 instructions).
    @inlinable
    static func endTask(
        of ticket: EffectRunner.Ticket, delivering last: Action?, then group: EffectGroup?,
        _ engine: Unmanaged<StoreEngine>, _ runner: EffectRunner
    ) {
        guard let self = runner.engine(engine) else { return group?.partEnded() ?? () }
        self.finish(ticket, delivering: last, then: group)
    }

    /// Starts an effect under `identity` with the task `makeTask` makes, counted as a part of `group`,
    /// if any, until it ends (see ``EffectRunner/start(_:_:_:)``).
    ///
    /// - Returns: The effect's ticket; `nil` when the composed effect it is a part of was cancelled,
    ///   and then nothing was started.
    @inlinable
    @discardableResult
    func startTask(
        _ identity: EffectIdentity, _ placement: EffectLifecycle.Placement, in group: EffectGroup?,
        _ makeTask: (EffectRunner.Ticket) -> Task<Void, Never>
    ) -> EffectRunner.Ticket? {
        group?.partStarted()
        let ticket = withEffects { effects in effects.start(identity, placement, makeTask) }
        if ticket == nil { group?.partEnded() }
        return ticket
    }

    /// Starts a composed part: a concatenation, a lone wait, an effect decided at its start (a
    /// debounced or throttled one), or a throttled effect waiting for its turn.
    @usableFromInline
    func startComposed(_ part: ActionEffect<Action>.Part, in group: EffectGroup?) {
        let placement = group?.placement ?? .root
        switch part {
        case .concatenation(let id, let steps):
            startConcatenation(.given(id), steps, in: group, placement)
        case .delay(let wait):
            let delay = ActionEffect<Action>(id: nil, operation: .delay(wait))
            startConcatenation(EffectIdentity(nil), [delay], in: group, placement)
        case .decidedAtStart(let decide):
            decide(effects.throttles)?.forEachPart { part in start(part, in: group) }
        case .deferred(let id, let wait, let effect):
            // Waits in `id`'s waiting slot, leaving the effect running under `id` alone, then starts
            // in its place (see `EffectLifecycle.Placement.successor`).
            // The effect moves into the task, as every effect moves into its task.
            let next = UncheckedSendable((id, effect))
            let (runner, engine) = (effects, Unmanaged.passUnretained(self))
            startTask(.waiting(id), placement, in: group) { ticket in
                Task {
                    let isOver = (try? await wait()) != nil
                    guard let self = runner.engine(engine) else { return group?.partEnded() ?? () }
                    if isOver {
                        let (id, effect) = next.value
                        self.startConcatenation(.given(id), [effect], in: group, .successor(of: ticket))
                    }
                    self.finish(ticket, delivering: nil, then: group)
                }
            }
        case .action, .cancel, .single, .task:
            start(part, in: group)
        }
    }

    /// Starts a concatenation of `steps` under `identity`: each step starts once the one before it
    /// has ended, every part placed as a part of the concatenation, so that cancelling it cancels
    /// them at once (see ``EffectLifecycle``).
    @usableFromInline
    func startConcatenation(
        _ identity: EffectIdentity, _ steps: [ActionEffect<Action>], in group: EffectGroup?,
        _ placement: EffectLifecycle.Placement
    ) {
        // The first step starts now, as a lone effect would, so that it can be cancelled by id at
        // once; the concatenation's task waits for it, then runs the others.
        var rest = steps[...]
        let first = rest.first.flatMap { step in step.isDelay ? nil : rest.removeFirst() }
        // The steps move into the concatenation's task, as every effect moves into its task.
        let later = UncheckedSendable(rest)
        let runner = effects
        var firstGroup: EffectGroup?
        let ticket = startTask(identity, placement, in: group) { ticket in
            let firstSteps = first.map { _ in EffectGroup(parent: ticket) }
            firstGroup = firstSteps
            let engine = Unmanaged.passUnretained(self)
            return Task {
                await firstSteps?.wait()
                for step in later.value {
                    guard runner.isRunning(ticket) else { break }
                    if case .delay(let wait) = step.operation {
                        do { try await wait() } catch { break }
                        continue
                    }
                    let stepGroup = EffectGroup(parent: ticket)
                    stepGroup.start { runner.engine(engine)?.start(step, in: stepGroup) }
                    await stepGroup.wait()
                }
                guard let self = runner.engine(engine) else { return group?.partEnded() ?? () }
                self.finish(ticket, delivering: nil, then: group)
            }
        }
        guard ticket != nil, let first, let firstGroup else { return }
        firstGroup.start { start(first, in: firstGroup) }
    }

    /// Starts an immediate action of a concatenation's step: a part of the concatenation like any
    /// other, handled in the turn unless the concatenation was cancelled by then.
    @usableFromInline
    func startStepAction(_ action: Action, in group: EffectGroup) {
        group.partStarted()
        guard let ticket = effects.start(EffectIdentity(nil), group.placement, { _ in nil }) else {
            return group.partEnded()
        }
        finish(ticket, delivering: action, then: group)
    }

    /// Starts every part of `effect` as parts of `group`.
    @usableFromInline
    func start(_ effect: ActionEffect<Action>, in group: EffectGroup) {
        effect.forEachPart { part in start(part, in: group) }
    }

    /// Ends the effect of `ticket` in the turn, after every action it sent, and handles its last
    /// action, unless it was cancelled or replaced by then; then tells `group`, if any, that it ended.
    @inlinable
    func finish(_ ticket: EffectRunner.Ticket, delivering last: Action?, then group: EffectGroup? = nil) {
        if takeIdleTurn() { return inIdleTurn { finishInTurn(ticket, delivering: last, then: group) } }
        perform(waiting: false) { [self] in finishInTurn(ticket, delivering: last, then: group) }
    }

    /// ``finish(_:delivering:then:)``'s work, in the turn.
    @inlinable
    func finishInTurn(_ ticket: EffectRunner.Ticket, delivering last: Action?, then group: EffectGroup?) {
        switch withEffects({ effects in effects.finish(ticket, deliveringLast: last != nil) }) {
        case .dropped:
            break
        case .finished:
            if let last { process(last) }
        case .deliveringLast:
            if let last { process(last) }
            withEffects { effects in effects.endDelivery(ticket) }
        }
        group?.partEnded()
    }

    /// Handles an action an effect sent, unless the effect was cancelled or replaced by then.
    ///
    /// The check runs in the action's turn, just before its handler: a cancel that comes first
    /// always wins (see ``EffectLifecycle``).
    @inlinable
    func deliver(_ action: Action, from ticket: EffectRunner.Ticket) {
        if takeIdleTurn() { return inIdleTurn { deliverInTurn(action, from: ticket) } }
        perform { [self] in deliverInTurn(action, from: ticket) }
    }

    /// ``deliver(_:from:)``'s work, in the turn.
    @inlinable
    func deliverInTurn(_ action: Action, from ticket: EffectRunner.Ticket) {
        guard withEffects({ effects in effects.beginDelivery(ticket) }) else { return }
        process(action)
        withEffects { effects in effects.endDelivery(ticket) }
    }

    /// Takes the turn of an idle tree without a lock, as ``handle(_:)`` does, for work an effect's
    /// task brings (its actions, its end) to a store not on the main actor; `false` when the tree is
    /// busy or the work must go to the main queue: then it goes through ``perform(waiting:_:)``.
    /// (Callgrind, `effect-roundtrip`: 770 instructions less per round trip than always through
    /// `perform`, which takes the queue's lock and allocates the work's closure.)
    @inlinable
    func takeIdleTurn() -> Bool {
        isolation != .mainActor && queue.beginTurn()
    }
}

/// Whether a weak or unowned reference to `object` exists, which `isKnownUniquelyReferenced` does
/// not count: a handler may keep its state as `weak var` or `[weak state]`, and such a state must
/// not be reused for the next action. The standard library's reference-count queries are its only
/// means; measured with callgrind, the check costs 30 instructions per action, against about 650
/// for a new state object per action.
@inlinable
func hasWeakOrUnownedReferences(_ object: AnyObject) -> Bool {
    // With none, the weak count is 1 (the object's own) and the unowned count 1 (the strong ones').
    _getWeakRetainCount(object) > 1 || _getUnownedRetainCount(object) > 1
}

/// Guards every engine's ``StoreEngine/madeEffects`` while it is made, and its reads off the turn:
/// held only to set or read that one reference.
@usableFromInline let effectRunnerCreationLock = Lock()
