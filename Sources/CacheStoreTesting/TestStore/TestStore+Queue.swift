import CacheStore

/// The test store's queue of effects: adding to it as a store would start them (replacing by id,
/// cancelling, the steps of a concatenation), taking from it, and putting back.
extension TestStore {
    /// Cancels as a store does, `cancellation.id`'s running effect and every part of a composition
    /// under it, now, or once the steps before it were received (see ``DeferredCancel``).
    func cancelOrDefer(_ cancellation: DeferredCancel) {
        let isDue = queue.withValue { queued in
            QueuedEffect.startsNow(at: cancellation.steps, waitingFirst: false, among: queued)
        }
        guard isDue else { return deferredCancels.withValue { $0.append(cancellation) } }
        let id = cancellation.id
        removeQueued { queued, all in
            (queued.id == id && queued.isRunning(among: all)) || queued.groupIDs.contains(id)
        }
        dropDeferredCancels(of: id)
        throttles.forget(id)
        applyDueCancels()
    }

    /// Removes every queued part of a composition under `id`, and the effects queued under `id`.
    func removeComposition(_ id: AnyHashable) {
        removeQueued { queued, _ in queued.isCancelled(by: id) }
        dropDeferredCancels(of: id)
    }

    /// Drops the deferred cancellations of a composition under `id`, released once the lock is left
    /// (they hold user ids).
    func dropDeferredCancels(of id: AnyHashable) {
        let dropped = deferredCancels.withValue { deferred in
            let dropped = deferred.filter { $0.groupIDs.contains(id) }
            if !dropped.isEmpty { deferred.removeAll { $0.groupIDs.contains(id) } }
            return dropped
        }
        withExtendedLifetime(dropped) {}
    }

    /// Applies the deferred cancellations whose steps before them were received. Called before the
    /// queue is next used (taken from, read, added to or reported): in a store, a cancellation
    /// runs once the step before it has ended and its action was handled.
    func applyDueCancels() {
        guard !deferredCancels.withValue({ $0.isEmpty }) else { return }
        let queued = queue.withValue { $0 }
        let due = deferredCancels.withValue { deferred in
            var due: [DeferredCancel] = []
            deferred.removeAll { cancellation in
                guard QueuedEffect.startsNow(at: cancellation.steps, waitingFirst: false, among: queued) else {
                    return false
                }
                due.append(cancellation)
                return true
            }
            return due
        }
        for cancellation in due { cancelOrDefer(cancellation) }
    }

    /// Queues `effect`, replacing the queued effect with its id as a store would: when both run now
    /// (see ``QueuedEffect/isRunning(among:)``), unless the id is that of a concatenation `effect` is
    /// part of, which names the concatenation.
    func append(_ effect: QueuedEffect<Action>) {
        let mayReplace = !effect.groupIDs.contains(effect.id)
        removeQueued(
            where: { queued, all in
                mayReplace && queued.id == effect.id && effect.isRunning(among: all) && queued.isRunning(among: all)
            },
            thenAppending: effect)
    }

    /// Removes the queued effects that `isRemoved` picks, then queues `effect`, if given.
    /// `isRemoved` is given each queued effect and the whole queue as it was before the removal.
    ///
    /// The effects removed are released once the queue's lock is left: an effect holds a user's
    /// closure, action and id, whose `deinit` may call this test store.
    func removeQueued(
        where isRemoved: (QueuedEffect<Action>, [QueuedEffect<Action>]) -> Bool,
        thenAppending effect: QueuedEffect<Action>? = nil
    ) {
        let removed = queue.withValue { queued in
            let before = queued
            var removed: [QueuedEffect<Action>] = []
            queued.removeAll { queuedEffect in
                guard isRemoved(queuedEffect, before) else { return false }
                removed.append(queuedEffect)
                return true
            }
            if let effect { queued.append(effect) }
            return removed
        }
        withExtendedLifetime(removed) {}
    }

    /// Takes the oldest queued effect, if any.
    func dequeue() -> QueuedEffect<Action>? {
        queue.withValue { $0.isEmpty ? nil : $0.removeFirst() }
    }

    /// Puts `effects` back at the front of the queue, in order.
    func requeueFirst(_ effects: [QueuedEffect<Action>]) {
        queue.withValue { $0.insert(contentsOf: effects, at: 0) }
    }
}
