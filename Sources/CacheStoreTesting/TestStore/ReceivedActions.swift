import CacheStore

/// An action the store under test handled, as its engine reported it.
struct HandledAction<Key: Hashable & SendableMetatype, Action>: @unchecked Sendable {
    let action: Action
    let origin: ActionOrigin
    /// Its sequence number in the store: the effects its handler started remember it.
    let sequence: UInt64
    /// Each key it changed, with its value before and after.
    let changes: [StateChange<Key>]
    /// The id of the effect that sent or returned it, named when it was handled.
    let effectID: AnyHashable?

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
struct ReceivedActions<Key: Hashable & SendableMetatype, Action> {
    /// Received and not yet asserted, oldest first.
    var pending: [HandledAction<Key, Action>] = []
    /// Every action handled since the oldest pending one, in order: to rebuild the state before
    /// (and after) a pending action. Empty while nothing is pending.
    var history: [HandledAction<Key, Action>] = []
    /// The action of the test store's `send` being handled now, once the engine has reported it.
    var sent: HandledAction<Key, Action>?
    /// Whether a `send` is handling its action now: the first action reported sent is that one.
    var isSending = false
    /// Where each step's action was sent or received: the `send` or `receive` that effects started by
    /// it are reported at.
    var steps: [UInt64: Step] = [:]

    /// The action of a step, and the line of the test that sent or received it.
    struct Step {
        let action: String
        let location: FailureLocation
    }

    /// Takes in an action the engine handled.
    mutating func handled(_ action: HandledAction<Key, Action>) {
        if isSending, sent == nil, action.origin == .sent {
            sent = action
            if !pending.isEmpty { history.append(action) }
            return
        }
        pending.append(action)
        history.append(action)
    }

    /// Removes the pending action at `index`, and the history no pending action needs any more.
    mutating func take(at index: Int) -> HandledAction<Key, Action> {
        let taken = pending.remove(at: index)
        if let oldest = pending.first?.sequence {
            history.removeAll { $0.sequence < oldest }
        } else {
            history = []
        }
        return taken
    }

    /// The values the keys had before `action` (a pending one) was handled, where they differ from
    /// now: the `before` of the first change of each key from `action` on.
    func overlay(before action: HandledAction<Key, Action>) -> [Key: Any?] {
        overlay(from: action.sequence)
    }

    /// The values the keys had right after `action` was handled, where they differ from now.
    func overlay(after action: HandledAction<Key, Action>) -> [Key: Any?] {
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
