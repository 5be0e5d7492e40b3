import CacheStore

/// One part of an effect (see `ActionEffect.forEachPart`) that a `TestStore` holds instead of running,
/// until a `receive` runs it.
struct QueuedEffect<Action>: @unchecked Sendable {
    /// The `send` or `receive` whose action started an effect: where it is reported if left over.
    struct Origin {
        let action: Action
        let location: FailureLocation
    }

    let id: AnyHashable
    /// The ids of the concatenations (debounced and throttled effects among them) the effect is part
    /// of, outermost first: cancelling one of them removes it too.
    let groupIDs: [AnyHashable]
    /// The steps of concatenations the effect is part of, outermost first (see ``ConcatenationStep``).
    let steps: [ConcatenationStep]
    /// Whether a wait (a debounce's or a throttle's) runs first in it: in a store, it has not started.
    let waitsFirst: Bool
    let origin: Origin
    /// Sends any number of actions, and returns the last one, if any.
    private let work: @Sendable (Send<Action>) async -> Action?

    /// An effect that runs `work` under `id`; one of the parts of concatenations at `steps`, after a
    /// wait when `waitsFirst`.
    init(
        id: AnyHashable, groupIDs: [AnyHashable] = [], steps: [ConcatenationStep] = [], waitsFirst: Bool = false,
        origin: Origin, work: @escaping @Sendable (Send<Action>) async -> Action?
    ) {
        self.id = id
        self.groupIDs = groupIDs
        self.steps = steps
        self.waitsFirst = waitsFirst
        self.origin = origin
        self.work = work
    }

    /// An effect that delivers `action` at once, under `id`: an action effect, or what a multi-action
    /// effect leaves queued.
    init(
        id: AnyHashable, groupIDs: [AnyHashable] = [], steps: [ConcatenationStep] = [], origin: Origin,
        delivering action: Action
    ) {
        let action = UncheckedSendable(action)
        self.init(id: id, groupIDs: groupIDs, steps: steps, origin: origin, work: { _ in action.value })
    }

    /// How failures and logs name the effect: "the effect .load", or "an effect without an id" when
    /// it was given none (its id's type and serial number mean nothing to a test's reader).
    var name: String {
        id.base is AnonymousEffectID ? "\(id)" : "the effect \(ValueDump.inline(id.base))"
    }

    /// Whether cancelling `id` removes the effect: it runs under `id`, or is part of a concatenation
    /// under `id`.
    func isCancelled(by id: AnyHashable) -> Bool {
        self.id == id || groupIDs.contains(id)
    }

    /// Runs the effect to completion, and returns every action it produced, in order.
    func run() async -> [Action] {
        let sent = LockedValue<[Action]>([])
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
        let task: Task<Void, Never>
        if onOwnThread, #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *) {
            let thread = EffectThread()
            task = Task(executorPreference: thread) {
                completion.complete(await run())
                thread.close()
            }
        } else {
            task = Task { completion.complete(await run()) }
        }
        return RunningEffect(completion: completion, task: task)
    }

    /// Whether ``start(onOwnThread:)`` can give the effect a thread of its own: it needs task executors.
    static var canRunOnOwnThread: Bool {
        if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *) { true } else { false }
    }
}

extension QueuedEffect {
    /// Whether both are parts of one effect: the same id, started at the same place.
    func isSameEffect(as other: QueuedEffect) -> Bool {
        id == other.id && origin.location.line == other.origin.location.line
            && origin.location.column == other.origin.location.column
            && "\(origin.location.filePath)" == "\(other.origin.location.filePath)"
    }
}
