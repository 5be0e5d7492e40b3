import CacheStore

/// A concatenation (a debounced or throttled effect among them) that a test store runs as a store
/// does: one step at a time, the next one started only once every part of the step before it has
/// ended (received, or cancelled).
///
/// ```swift
/// return .concatenate(ActionEffect { .saved(await save()) }, .cancel(id: CancelID.sync))
/// // queued: the first step only. Once `.saved` was received, the cancellation runs.
/// ```
///
/// Shared by the queued parts of its running step, and by the concatenations started in it; read
/// and changed only under the lock of its test store's ``EffectQueue``.
final class RunningConcatenation<Action>: @unchecked Sendable {
    /// The concatenation's id: cancelling it cancels every part, and starting another effect under it
    /// replaces the whole concatenation.
    let id: AnyHashable
    /// The concatenation whose step started this one, if any.
    let parent: RunningConcatenation?
    /// The `send` or `receive` whose action started it: where its parts are reported if left over.
    let origin: QueuedEffect<Action>.Origin
    /// The steps not started yet.
    private(set) var laterSteps: ArraySlice<ActionEffect<Action>>
    /// The parts of the running step still running: queued effects, and concatenations started in it.
    var runningParts = 0
    /// Whether it was cancelled (or replaced): no step of it starts any more.
    private(set) var isCancelled = false

    init(
        id: AnyHashable, parent: RunningConcatenation?, origin: QueuedEffect<Action>.Origin,
        steps: ArraySlice<ActionEffect<Action>>
    ) {
        self.id = id
        self.parent = parent
        self.origin = origin
        laterSteps = steps
    }

    /// Whether it, or a concatenation it runs in, has `id`.
    func isInside(_ id: AnyHashable) -> Bool {
        hasAncestor { $0.id == id }
    }

    /// Whether it, or a concatenation it runs in, was cancelled.
    var isCancelledWithAncestors: Bool {
        hasAncestor(\.isCancelled)
    }

    /// Whether it, or a concatenation it runs in, is one `matches` picks.
    private func hasAncestor(_ matches: (RunningConcatenation) -> Bool) -> Bool {
        var next: RunningConcatenation? = self
        while let concatenation = next {
            if matches(concatenation) { return true }
            next = concatenation.parent
        }
        return false
    }

    /// Takes the next step to start, once the running one has ended; `nil` when none is left.
    func takeNextStep() -> ActionEffect<Action>? {
        laterSteps.popFirst()
    }

    /// Cancels it: no step of it starts any more. Returns the steps it will not start, for the caller
    /// to release once the queue's lock is left (they hold a user's closures).
    func cancel() -> ArraySlice<ActionEffect<Action>> {
        isCancelled = true
        return startNoLaterStep()
    }

    /// Starts no step after the running one, whose parts still run: one of them never ends (the test
    /// store gave up on it). Returns the steps it will not start, as ``cancel()`` does.
    func startNoLaterStep() -> ArraySlice<ActionEffect<Action>> {
        defer { laterSteps = [] }
        return laterSteps
    }
}
