import CacheStore

/// One part of an effect (see `ActionEffect.forEachPart`) that a `TestStore` holds instead of running,
/// until a `receive` runs it.
struct QueuedEffect<Action>: @unchecked Sendable {
    /// The `send` or `receive` whose action started an effect: where it is reported if left over.
    struct Origin {
        let action: Action
        let location: FailureLocation
    }

    /// What a queued wait (a debounce's or a throttle's) leads to once it is over.
    enum Wait {
        /// A step of its concatenation (or a part of one): once over, the part has ended.
        case step
        /// A throttled effect waiting for its turn under `id`: once over, `effect` starts under `id`.
        case throttled(id: AnyHashable, effect: ActionEffect<Action>)
    }

    /// The effect's id; for a wait, the id of the concatenation it is a step of, or of the throttled
    /// effect it waits for.
    let id: AnyHashable
    /// Tells it from every other effect queued by its test store (see ``EffectQueue``).
    var serial = 0
    /// The ``serial`` of the effect it is a part of: its own, or, for the actions a multi-action
    /// effect left queued, that effect's.
    var effectSerial = 0
    /// Whether it is an action effect (``/CacheStore/ActionEffect/init(_:)``) that a store handles as
    /// it starts: queued at the front, after the others (see ``EffectQueue``).
    var isImmediateAction = false
    /// The concatenation whose running step it is a part of.
    let concatenation: RunningConcatenation<Action>?
    /// For a wait, which delivers nothing: what it leads to once over, and when that is; `nil` for an
    /// effect's work.
    let wait: (leadsTo: Wait, until: EffectWait)?
    let origin: Origin
    /// Sends any number of actions, and returns the last one, if any.
    private let work: @Sendable (Send<Action>) async -> Action?

    /// An effect that runs `work` under `id`, as a part of `concatenation`'s running step, if given.
    init(
        id: AnyHashable, in concatenation: RunningConcatenation<Action>?, origin: Origin,
        work: @escaping @Sendable (Send<Action>) async -> Action?
    ) {
        self.id = id
        self.concatenation = concatenation
        self.wait = nil
        self.origin = origin
        self.work = work
    }

    /// An effect that delivers `action` at once, under `id`: an action effect, or what a multi-action
    /// effect leaves queued.
    init(id: AnyHashable, in concatenation: RunningConcatenation<Action>?, origin: Origin, delivering action: Action) {
        let action = UncheckedSendable(action)
        self.init(id: id, in: concatenation, origin: origin, work: { _ in action.value })
    }

    /// A wait on a clock, named `id`, that leads to `wait` once `sleep` returns.
    init(
        waiting wait: Wait, named id: AnyHashable, in concatenation: RunningConcatenation<Action>?, origin: Origin,
        sleep: EffectWait
    ) {
        self.id = id
        self.concatenation = concatenation
        self.wait = (wait, sleep)
        self.origin = origin
        self.work = { _ in
            try? await sleep()
            return nil
        }
    }

    /// The id of the throttled effect it waits for, if it is such a wait.
    var throttledID: AnyHashable? {
        guard case .throttled(let id, _)? = wait?.leadsTo else { return nil }
        return id
    }

    /// How failures and logs name the effect: "the effect .load", or "an effect without an id" when
    /// it was given none (its id's type and serial number mean nothing to a test's reader). An effect
    /// without an id in a concatenation that has one (a debounced effect) is named by that id, which
    /// `cancel(id:)` cancels it with.
    var name: String {
        var named: RunningConcatenation<Action>? = concatenation
        var id = self.id
        while id.base is AnonymousEffectID, let concatenation = named {
            (id, named) = (concatenation.id, concatenation.parent)
        }
        return id.base is AnonymousEffectID ? "\(id)" : "the effect \(ValueDump.inline(id.base))"
    }

    /// Runs the effect to completion, and returns every action it produced, in order; `sent` holds
    /// those it sent meanwhile.
    func run(sending sent: LockedValue<[Action]>) async -> [Action] {
        let last = await work(Send { action in sent.withValue { $0.append(action) } })
        return sent.withValue { $0 } + (last.map { [$0] } ?? [])
    }

    /// Starts the effect in a task that inherits the caller's task-local values (the running test,
    /// a failure handler).
    ///
    /// - Parameter onOwnThread: Run it on a new thread rather than the shared pool, for a caller that
    ///   will block until it finishes. Only where the platform has task executors (see
    ///   ``canRunOnOwnThread``).
    func start(onOwnThread: Bool = false) -> RunningEffect<Action> {
        let completion = Completion<[Action]>()
        let sent = LockedValue<[Action]>([])
        let task: Task<Void, Never>
        if onOwnThread, #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *) {
            let thread = EffectThread()
            task = Task(executorPreference: thread) {
                completion.complete(await run(sending: sent))
                thread.close()
            }
        } else {
            task = Task { completion.complete(await run(sending: sent)) }
        }
        return RunningEffect(completion: completion, task: task, sent: sent)
    }

    /// Whether ``start(onOwnThread:)`` can give the effect a thread of its own: it needs task executors.
    static var canRunOnOwnThread: Bool {
        if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *) { true } else { false }
    }
}

extension QueuedEffect {
    /// Whether what `wait` starts once over replaces this effect: it runs under the id the wait is
    /// named by, or in a concatenation of that id (a throttled effect, replaced by the next one).
    func isReplaced(byStartOf wait: QueuedEffect) -> Bool {
        self.wait == nil && (id == wait.id || concatenation?.isInside(wait.id) == true)
    }

    /// Whether both are parts of one effect: the actions a multi-action effect left queued.
    func isSameEffect(as other: QueuedEffect) -> Bool {
        effectSerial == other.effectSerial
    }
}
