/// The state of a store's effects, by id: the one place that decides whether an effect's action may
/// still be handled.
///
/// Each start of an effect gets a token, so a finishing effect never touches a newer one that
/// reused its id. An effect moves through:
///
/// ```
/// started ──▶ running ⇄ delivering(thread) ──▶ finished
///                 └──────────┴───────────────▶ cancelled (cancel(id:), replaced, store released)
/// ```
///
/// - A sent action is *admitted* (``beginDelivery(_:on:)``) in the store's turn, just before its
///   handler runs, only while the effect is running: an action queued before a cancellation is
///   dropped.
/// - An effect's last action (the value a single-action effect returns) is admitted by ``finish(_:)``,
///   which ends the effect in the same step: after that it is not running, so cancelling it
///   returns `false`.
/// - ``cancel(_:on:)`` returns `true` only when nothing the effect sent will be handled after it
///   returns. It never waits: when one of the effect's actions is being handled on another thread
///   at that instant, the effect is still cancelled, but `false` is returned.
///
/// A value type; ``EffectRunner`` guards it with its lock.
struct EffectLifecycle {
    enum State {
        case running
        case delivering(on: ThreadID)
    }

    struct Entry {
        let token: UInt64
        var state: State
        var task: Task<Void, Never>?
    }

    /// One start of an effect: its id, and the token that tells it from later starts with the same id.
    struct Ticket: @unchecked Sendable {
        let id: AnyHashable
        let token: UInt64
    }

    private(set) var entries: [AnyHashable: Entry] = [:]
    private var lastToken: UInt64 = 0

    /// Starts an effect under `id`; returns its ticket, and the task of the effect it replaces, to
    /// cancel.
    mutating func start(_ id: AnyHashable) -> (Ticket, replaced: Task<Void, Never>?) {
        lastToken += 1
        let replaced = entries.updateValue(Entry(token: lastToken, state: .running), forKey: id)
        return (Ticket(id: id, token: lastToken), replaced?.task)
    }

    /// Attaches the effect's task; returns `false` when the effect was cancelled meanwhile.
    mutating func attach(_ task: Task<Void, Never>, to ticket: Ticket) -> Bool {
        guard isCurrent(ticket) else { return false }
        entries[ticket.id]?.task = task
        return true
    }

    /// Admits an action the effect sent, to be handled now on `thread`; `false`: drop it.
    mutating func beginDelivery(_ ticket: Ticket, on thread: ThreadID) -> Bool {
        guard isCurrent(ticket), case .running = entries[ticket.id]?.state else { return false }
        entries[ticket.id]?.state = .delivering(on: thread)
        return true
    }

    /// The admitted action has been handled.
    mutating func endDelivery(_ ticket: Ticket) {
        guard isCurrent(ticket) else { return }
        entries[ticket.id]?.state = .running
    }

    /// Ends the effect: its work returned. Returns whether it was still running, that is, whether
    /// its last action may be handled.
    mutating func finish(_ ticket: Ticket) -> Bool {
        guard isCurrent(ticket) else { return false }
        entries[ticket.id] = nil
        return true
    }

    /// Cancels the effect running under `id`, if any.
    ///
    /// - Returns: Whether one was running and nothing it sent will be handled from now on (see the
    ///   type's discussion), and its task to cancel.
    mutating func cancel(_ id: AnyHashable, on thread: ThreadID) -> (Bool, task: Task<Void, Never>?) {
        guard let entry = entries.removeValue(forKey: id) else { return (false, nil) }
        if case .delivering(let deliveringThread) = entry.state, deliveringThread != thread {
            return (false, entry.task)
        }
        return (true, entry.task)
    }

    /// Cancels every effect; returns their tasks.
    mutating func cancelAll() -> [Task<Void, Never>] {
        defer { entries = [:] }
        return entries.values.compactMap(\.task)
    }

    private func isCurrent(_ ticket: Ticket) -> Bool {
        entries[ticket.id]?.token == ticket.token
    }
}
