/// One step of one concatenation a queued effect is part of: where it stands in the order a store
/// would start it.
///
/// A store starts a concatenation's steps one after another, each once the one before it has
/// ended. A test store queues every step at once, so it tells the steps apart to act as a store:
/// a later step has not started while an earlier one is queued, so it neither replaces nor is
/// replaced by an effect with its id (see ``QueuedEffect/ends(before:)``).
struct ConcatenationStep {
    /// One start of a concatenation: the same concatenation started twice (returned twice, or a
    /// step of itself) is two.
    final class Concatenation {}

    let concatenation: Concatenation
    /// The step's place in the concatenation, from 0.
    let index: Int
}

extension QueuedEffect {
    /// Whether the effect ends, in a store, before an effect at `steps` starts: both are parts of
    /// one concatenation, the effect in an earlier step.
    ///
    /// Parts of one step (a merge) start together; so do effects of different concatenations.
    func ends(before steps: [ConcatenationStep]) -> Bool {
        for (mine, theirs) in zip(self.steps, steps) {
            guard mine.concatenation === theirs.concatenation else { return false }
            if mine.index != theirs.index { return mine.index < theirs.index }
        }
        return false
    }

    /// Whether a store would be running the effect now, while `queued` (which holds it) waits: no
    /// wait comes first in it, and no effect of an earlier step of its concatenations is queued.
    func isRunning(among queued: [QueuedEffect]) -> Bool {
        Self.startsNow(at: steps, waitingFirst: waitsFirst, among: queued)
    }

    /// Whether a store would start an effect at `steps` now, while `queued` waits.
    static func startsNow(at steps: [ConcatenationStep], waitingFirst: Bool, among queued: [QueuedEffect]) -> Bool {
        !waitingFirst && !queued.contains { $0.ends(before: steps) }
    }
}

/// A concatenation's `.cancel(id:)` step queued behind an earlier step: a store cancels only once
/// the steps before it have ended, so a test store applies it once their effects were received.
struct DeferredCancel {
    let id: AnyHashable
    /// As ``QueuedEffect/groupIDs``: cancelling one of them drops the cancellation too.
    let groupIDs: [AnyHashable]
    let steps: [ConcatenationStep]
}
