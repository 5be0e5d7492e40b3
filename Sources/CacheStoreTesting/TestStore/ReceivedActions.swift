import CacheStore

extension ObservedAction {
    /// Where it came from, for messages, as a phrase that follows "was received": "from the effect
    /// .load".
    var source: String {
        switch origin {
        case .sent: "from store.handle(action:), around the test store"
        case .immediate: "from a handler that returned it at once (ActionEffect(action))"
        case .effect: "from \(EffectName.of(effectID))"
        }
    }
}

/// What a test store knows of the actions its store handled: those received and not yet asserted,
/// first in, first out, in the order the engine handled them; and enough of the history to rebuild
/// the state before each of them.
///
/// Every action that reaches the handler other than by the test store's `send` is *received*: an
/// immediate action, an action an effect returned or sent, one sent with `store.handle(action:)`.
@usableFromInline
struct ReceivedActions<Key: Hashable & SendableMetatype, Action> {
    /// Received and not yet asserted, oldest first.
    var pending: [ObservedAction<Key, Action>] = []
    /// Every action handled since the oldest pending one, in order: to rebuild the state before
    /// (and after) a pending action. Empty while nothing is pending.
    var history: [ObservedAction<Key, Action>] = []
    /// Where each step's action was sent or received, for those that started an effect: the `send`
    /// or `receive` that the effects it started are reported at.
    var steps: [UInt64: Step] = [:]

    /// The action of a step, and the line of the test that sent or received it.
    struct Step {
        let action: Action
        let location: FailureLocation
    }

    @usableFromInline init() {}

    /// Takes in an action the engine handled that the test store did not send.
    mutating func received(_ action: ObservedAction<Key, Action>) {
        pending.append(action)
        history.append(action)
    }

    /// Takes in the action of the test store's `send`: part of the history while actions are pending.
    @usableFromInline
    mutating func sent(_ action: ObservedAction<Key, Action>) {
        if !pending.isEmpty { history.append(action) }
    }

    /// Removes the pending action at `index`, and the history no pending action needs any more.
    mutating func take(at index: Int) -> ObservedAction<Key, Action> {
        let taken = pending.remove(at: index)
        if let oldest = pending.first?.sequence {
            history.removeAll { $0.sequence < oldest }
        } else {
            history = []
        }
        return taken
    }

    /// Forgets every pending action; returns them.
    mutating func takeAll() -> [ObservedAction<Key, Action>] {
        defer { (pending, history) = ([], []) }
        return pending
    }

    /// The values the keys had before `action` (a pending one) was handled, where they differ from
    /// now: the `before` of the first change of each key from `action` on.
    func overlay(before action: ObservedAction<Key, Action>) -> [Key: Any?] {
        overlay(from: action.sequence)
    }

    /// The values the keys had right after `action` was handled, where they differ from now.
    func overlay(after action: ObservedAction<Key, Action>) -> [Key: Any?] {
        overlay(from: action.sequence + 1)
    }

    private func overlay(from sequence: UInt64) -> [Key: Any?] {
        var overlay: [Key: Any?] = [:]
        for handled in history where handled.sequence >= sequence {
            for change in handled.changes where overlay.index(forKey: change.key) == nil {
                overlay[change.key] = change.before
            }
        }
        return overlay
    }
}

/// It holds actions and values of any type, inside its test store's lock.
@available(*, unavailable)
extension ReceivedActions: Sendable {}
