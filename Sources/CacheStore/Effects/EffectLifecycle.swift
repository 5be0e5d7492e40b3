/// The state of a store's effects, by id: the one place that decides whether an effect's action may
/// still be handled.
///
/// Each start of an effect gets a token, so a finishing effect never touches a newer one that
/// reused its id. An effect moves through:
///
/// ```
/// started ──▶ running ⇄ delivering(thread) ──▶ finished
///                 │            │
///                 │            └──▶ cancelling(thread) ──▶ cancelled (its delivery ended)
///                 └───────────────────────────────────────▶ cancelled
/// ```
///
/// - A sent action is *admitted* (``beginDelivery(_:on:)``) in the store's turn, just before its
///   handler runs, only while the effect is running: an action queued before a cancellation is
///   dropped.
/// - When its work returns, the effect is ended by ``finish(_:)``, in the store's turn too, so after
///   every action it sent: its last action (the value a single-action effect returns) is admitted
///   in the same step. After that it is not running, so cancelling it returns `false`.
/// - ``cancel(_:on:)`` of a running effect removes it. Of an effect whose action is being handled on
///   another thread at that instant, it marks it `cancelling`: the caller waits for that one
///   action's handler to return (``endDelivery(_:)``), so that when `cancel` returns `true`,
///   nothing the effect sent is handled any more.
///
/// A value type; ``EffectRunner`` guards it with its lock.
@usableFromInline
struct EffectLifecycle {
    enum State {
        case running
        case delivering(on: ThreadID)
        /// Cancelled while one of its actions was being handled on that thread.
        case cancelling(deliveringOn: ThreadID)
    }

    /// What ``cancel(_:on:)`` found.
    enum Cancellation {
        /// No effect runs under the id.
        case notRunning
        /// Cancelled: nothing it sends will be handled.
        case cancelled
        /// Cancelled, but one of its actions is being handled on this thread now: wait for
        /// ``isGone(_:)`` before saying that nothing it sends will be handled.
        case awaitingDelivery(on: ThreadID, Ticket)
    }

    struct Entry {
        let token: UInt64
        var state: State
        var task: Task<Void, Never>?
    }

    /// One start of an effect: its id, and the token that tells it from later starts with the same id.
    @usableFromInline
    struct Ticket: @unchecked Sendable {
        @usableFromInline let id: AnyHashable
        @usableFromInline let token: UInt64
    }

    private var entries: [AnyHashable: Entry] = [:]
    private var lastToken: UInt64 = 0

    /// The ids of the effects running now (not those being cancelled).
    var runningIDs: Set<AnyHashable> {
        Set(
            entries.compactMap { id, entry in
                if case .cancelling = entry.state { return nil }
                return id
            })
    }

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

    /// The admitted action has been handled. Returns whether a canceller waits for this.
    mutating func endDelivery(_ ticket: Ticket) -> Bool {
        guard isCurrent(ticket), let state = entries[ticket.id]?.state else { return false }
        if case .cancelling = state {
            entries[ticket.id] = nil
            return true
        }
        entries[ticket.id]?.state = .running
        return false
    }

    /// Whether the effect of `ticket` is no longer in the lifecycle.
    func isGone(_ ticket: Ticket) -> Bool {
        !isCurrent(ticket)
    }

    /// Ends the effect: its work returned. Returns whether it was still running, that is, whether
    /// its last action may be handled.
    mutating func finish(_ ticket: Ticket) -> Bool {
        guard isCurrent(ticket) else { return false }
        entries[ticket.id] = nil
        return true
    }

    /// Cancels the effect running under `id`, if any, on behalf of code running on `thread`.
    ///
    /// - Returns: What was found (see ``Cancellation``), and the effect's task to cancel.
    mutating func cancel(_ id: AnyHashable, on thread: ThreadID) -> (Cancellation, task: Task<Void, Never>?) {
        guard let entry = entries[id] else { return (.notRunning, nil) }
        switch entry.state {
        case .delivering(let deliveringThread) where deliveringThread != thread:
            entries[id]?.state = .cancelling(deliveringOn: deliveringThread)
            return (.awaitingDelivery(on: deliveringThread, Ticket(id: id, token: entry.token)), entry.task)
        case .cancelling(let deliveringThread):
            return (.awaitingDelivery(on: deliveringThread, Ticket(id: id, token: entry.token)), nil)
        case .running, .delivering:
            entries[id] = nil
            return (.cancelled, entry.task)
        }
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

/// The lifecycle lives inside its runner's lock: it never crosses threads.
@available(*, unavailable)
extension EffectLifecycle: Sendable {}
