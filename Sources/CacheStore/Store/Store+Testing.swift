import CacheStoreAtomics
import Dispatch

/// What an expectation closure would do to a store's state, recorded without applying it.
@usableFromInline
package enum ExpectedState<Key: Hashable & SendableMetatype> {
    /// The closure wrote `keys`, each once, in the order first written, with `values` (`nil`: removed).
    case writes(keys: [Key], values: [Any?])
    /// The closure assigned a whole new cache holding these values.
    case replaced([Key: Any])
}

/// It holds values of any type.
@available(*, unavailable)
extension ExpectedState: Sendable {}

/// Runs a `TestStore`'s expectation closures, each against a transaction over a state whose writes
/// are then thrown away: the store's state, or the state as it was before an action handled earlier
/// (a ``SnapshotCore``). One transaction, and its storage, serves every expectation over the store's
/// state while nothing else holds it, as one serves every action of a store.
///
/// Used only in its store's turn, which guards it.
@usableFromInline
package final class ExpectationRecorder<Key: Hashable & SendableMetatype>: @unchecked Sendable {
    @exclusivity(unchecked) @usableFromInline var spare: (state: CacheStore<Key>, transaction: TransactionCore<Key>)?
    /// The storage of the last sent action's changes, emptied, for the next one's.
    @exclusivity(unchecked) @usableFromInline var changeBuffer: [StateChange<Key>] = []

    package init() {}

    /// Runs `body` against the state `engine` holds (with `overlay`'s values in place of its own, when
    /// given), and hands what it would write to `use`.
    ///
    /// - Returns: What `use` returns.
    @inlinable
    func withExpectation<Action, Dependency, Result>(
        over engine: StoreEngine<Key, Action, Dependency>,
        overlay: [Key: Any?]?,
        _ body: (inout CacheStore<Key>) throws -> Void,
        _ use: (Swift.Result<ExpectedState<Key>, any Error>) -> Result
    ) -> Result {
        var (expectation, transaction) =
            overlay == nil
            ? spare.take() ?? makeTransaction(over: engine.state)
            : makeTransaction(
                over: CoreAccess(SnapshotCore(base: engine.state, overlay: overlay!)))
        transaction.reopen()
        let expected = Swift.Result {
            try body(&expectation)
            guard expectation.core === transaction else { return ExpectedState.replaced(expectation.allValues) }
            var (keys, values): ([Key], [Any?]) = ([], [])
            swap(&keys, &transaction.writtenKeys)
            swap(&values, &transaction.writtenValues)
            return .writes(keys: keys, values: values)
        }
        let result = use(expected)
        // The writes go, their storage stays for the next expectation.
        transaction.isCommitted = true
        if case .success(.writes(var keys, var values)) = consume expected {
            swap(&keys, &transaction.writtenKeys)
            swap(&values, &transaction.writtenValues)
        }
        for _ in transaction.writtenKeys.indices {
            transaction.writtenValues.removeLast()
            transaction.writtenKeys.removeLast()
        }
        if !transaction.index.isEmpty { transaction.index.removeAll(keepingCapacity: true) }
        // Kept unless the closure replaced its state, or something may still hold it (see `apply`).
        if overlay == nil, expectation.core === transaction, isKnownUniquelyReferenced(&expectation),
            !hasWeakOrUnownedReferences(expectation), !transaction.isScoped
        {
            spare = (consume expectation, transaction)
        }
        return result
    }

    @usableFromInline
    func makeTransaction(over base: CoreAccess<Key>) -> (CacheStore<Key>, TransactionCore<Key>) {
        let transaction = TransactionCore(base: base.core, baseAccess: base, holdsOnlyWriteApart: false)
        return (CacheStore(core: transaction), transaction)
    }
}

/// A store's state as it was before some actions: `overlay`'s values (`nil`: absent) over the
/// committed state. Read-only: an expectation's writes stay in its transaction.
@usableFromInline
final class SnapshotCore<Key: Hashable & SendableMetatype>: StorageCore, @unchecked Sendable {
    let base: CoreAccess<Key>
    let overlay: [Key: Any?]

    @usableFromInline
    init(base: CoreAccess<Key>, overlay: [Key: Any?]) {
        self.base = base
        self.overlay = overlay
    }

    @usableFromInline
    func value(for key: Key, observing: Bool) -> Any? {
        if let index = overlay.index(forKey: key) { return overlay.values[index] }
        return base.read(key, false)
    }

    @usableFromInline
    func write(_ value: consuming Any?, for key: Key) -> Any? {
        self.value(for: key, observing: false)
    }

    @usableFromInline
    func writeAll(_ keys: [Key], _ values: inout [Any?]) {
        for index in keys.indices { values[index] = value(for: keys[index], observing: false) }
    }

    @usableFromInline
    func update(_ key: Key, _ body: (inout Any?) -> Void) {
        var value = value(for: key, observing: false)
        body(&value)
    }

    @usableFromInline
    func allValues(observing: Bool) -> [Key: Any] {
        var values = base.core.allValues(observing: false)
        for (key, value) in overlay { values[key] = value }
        return values
    }

    @usableFromInline
    func subscribe(_ subscriber: Subscriber<Key>) -> Subscription {
        Subscription {}
    }
}

/// A test store's hold on the store it tests: the engine's seam (see `TestStore`).
extension Store {
    /// Makes the store's effects run where `starter` says, and tells `observer` every action the
    /// store handles from now on. Effects already running are left as they are. Called once, before
    /// the test store's first step.
    package func attachTest(starter: EffectStarter, observer: ActionObserver<Key, Action>) {
        inTurn {
            engine.starter = starter
            engine.madeEffects?.starter = starter
            engine.observer = observer
        }
    }

    /// Ends a test store's hold: effects start in new tasks again, and no one observes the actions.
    package func detachTest() {
        inTurn {
            engine.starter = .tasks
            engine.madeEffects?.starter = .tasks
            engine.observer = nil
        }
    }

    /// Records what `expectation` would write to the state (the state before the actions of the
    /// overlay, when given), and hands it to `use`; in the turn, so no action comes between.
    @inlinable
    package func withExpectation<Result>(
        _ expectation: (inout CacheStore<Key>) throws -> Void,
        before overlay: [Key: Any?]? = nil,
        recorder: ExpectationRecorder<Key>,
        _ use: (Swift.Result<ExpectedState<Key>, any Error>) -> Result
    ) -> Result {
        inTurn { recorder.withExpectation(over: engine, overlay: overlay, expectation, use) }
    }

    /// Records what `expectation` would write to the state, then handles `action` as a store does (its
    /// effects started where the test's starter says, its observer not told), and hands both to
    /// `check`: all in one turn, so no other action comes between. Immediate actions the handler
    /// returned are handled after `check`, before the turn ends, as in the app.
    ///
    /// - Parameters:
    ///   - check: Compares the expectation with what the action changed: each key, before and after,
    ///     the action's sequence number, and whether it started an effect. In the turn: it must not
    ///     call into the store.
    @inlinable
    package func send<Result>(
        _ action: Action,
        expecting expectation: (inout CacheStore<Key>) throws -> Void,
        recorder: ExpectationRecorder<Key>,
        check: (Swift.Result<ExpectedState<Key>, any Error>, _ changes: [StateChange<Key>], UInt64, Bool) -> Result
    ) -> Result {
        inTurn {
            recorder.withExpectation(over: engine, overlay: nil, expectation) { expected in
                engine.handledCount &+= 1
                var buffer: [StateChange<Key>] = []
                swap(&buffer, &recorder.changeBuffer)
                let (changes, startsEffect) = engine.processRecording(action, reusing: consume buffer)
                let checked = check(expected, changes, engine.handledCount, startsEffect)
                // Released one at a time: `removeAll(keepingCapacity:)` is a generic `replaceSubrange`.
                buffer = consume changes
                for _ in buffer.indices { buffer.removeLast() }
                recorder.changeBuffer = consume buffer
                return checked
            }
        }
    }

    /// Whether work waits in the store tree's queue for the thread handling it: for a benchmark that
    /// sends into a busy store.
    package var hasQueuedWork: Bool {
        engine.queue.turn.load() & ActionQueue.queuedFlag != 0
    }

    /// The store's dependency; a test store replaces it between steps.
    package var testDependency: Dependency {
        get { inTurn { engine.dependency } }
        set { inTurn { engine.dependency = newValue } }
    }

    /// Every effect running or waiting now, oldest first.
    package var runningEffects: [RunningEffect] {
        engine.existingEffects?.runningEffects ?? []
    }

    /// The id a test store's failures name the effect of `ticket` by, while it runs: its own, or
    /// that of the composed effect it runs under (see `EffectScheduler.nameInMessages(of:)`).
    package func effectID(of ticket: EffectTicket) -> AnyHashable? {
        engine.existingEffects?.nameInMessages(of: ticket)
    }

    /// Whether an effect task sent an action to the main actor (a `.mainActor` store's) and has not
    /// resumed since: it resumes after the main actor handled the action, which a test may see first.
    package var hasEffectSendsToTheMainActor: Bool {
        engine.existingEffects?.hasSendsToTheMainActor ?? false
    }

    /// Whether an effect task sent an action to the main actor that the main actor has not handled
    /// yet: a test store runs no other job of its effects until it has.
    package var hasEffectSendsAwaitingTheMainActor: Bool {
        engine.existingEffects?.hasSendsAwaitingTheMainActor ?? false
    }

    /// On the main queue, for a store that handles its actions on the main actor: runs the work its
    /// effects queued for the main queue (their sends), for a synchronous test step that holds the
    /// main queue while it waits for them. Returns whether it could: `false` anywhere else.
    package func runWorkQueuedForTheMainQueue() -> Bool {
        guard engine.isolation == .mainActor, MainQueue.isCurrent else { return false }
        engine.inTurn {}
        return true
    }

    /// Cancels every effect running or waiting now.
    package func cancelAllEffects() {
        for effect in runningEffects { _ = cancel(id: effect.id) }
    }

    /// Runs `body` in the store tree's turn: at once when no thread is handling the tree, else after
    /// the actions before it (see ``StoreEngine/inTurn(_:)``).
    @inlinable
    package func inTurn<Result>(_ body: () -> Result) -> Result {
        engine.inTurn(body)
    }

    /// The value of `key` now, without recording an observation access.
    @inlinable
    package func currentValue(_ key: Key) -> Any? {
        engine.read(key, observing: false)
    }
}

extension StoreEngine {
    /// Runs `body` in the store tree's turn: at once when no thread is handling the tree, else after
    /// the actions before it. The engine owns the turn; ``Store/inTurn(_:)`` is its facade.
    @inlinable
    func inTurn<Result>(_ body: () -> Result) -> Result {
        if isolation == .mainActor { return inTurnOnMainActor(body) }
        return queue.inTurn(body)
    }

    /// Runs `body` in the turn on the main queue, for a store that handles its actions on the main
    /// actor: a test store's step from another thread waits there, so that the handler runs where the
    /// store promises. A thread that holds a turn never waits: `body` then runs here. On the main queue,
    /// the work queued for it runs first, here: waiting for the main queue's own drain from the main
    /// queue would never end.
    @usableFromInline
    func inTurnOnMainActor<Result>(_ body: () -> Result) -> Result {
        if MainQueue.isCurrent { return queue.inTurnOnMainQueue(body) }
        guard !cachestore_holds_turn() else { return queue.inTurn(body) }
        return withoutActuallyEscaping(body) { body in
            let work = UncheckedSendable((queue, body))
            return DispatchQueue.main.sync { UncheckedSendable(work.value.0.inTurnOnMainQueue(work.value.1)) }.value
        }
    }
}

extension ActionQueue {
    /// ``StoreEngine/inTurn(_:)``'s work: at once when the tree is idle or this thread handles it, else after
    /// the work queued before it.
    @inlinable
    func inTurn<Result>(_ body: () -> Result) -> Result {
        if beginTurn() {
            defer { endTurn() }
            return body()
        }
        return afterTurn(body)
    }

    /// Runs `body` in the turn after the work queued before it.
    @usableFromInline
    func afterTurn<Result>(_ body: () -> Result) -> Result {
        withoutActuallyEscaping(body) { body in
            performAndWait { UncheckedSendable(body()) }.value
        }
    }
}
