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
/// Effects are kept by token, a counter: an anonymous effect (one created without an id, by far the
/// most common) is started, admitted and finished without hashing or comparing its `AnyHashable` id,
/// whose every comparison looks up generic metadata (about 1,000 instructions). Only an effect given
/// an id is entered in ``tokens``, to be replaced or cancelled by it.
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
        /// The effect's given id (then it is in ``tokens``) or anonymous identity.
        let identity: EffectIdentity
        var state: State
        var task: Task<Void, Never>?
    }

    /// One start of an effect: the token that tells it from every other start.
    @usableFromInline
    struct Ticket: Sendable {
        @usableFromInline let token: UInt64
    }

    /// Every effect in the lifecycle, by token.
    private var entries: [UInt64: Entry] = [:]
    /// The token of the effect running under each id an effect was given.
    private var tokens: [AnyHashable: UInt64] = [:]
    private var lastToken: UInt64 = 0

    /// The ids of the effects running now (not those being cancelled).
    var runningIDs: Set<AnyHashable> {
        Set(
            entries.values.compactMap { entry in
                if case .cancelling = entry.state { return nil }
                return entry.identity.id
            })
    }

    /// Starts an effect under `id`; returns its ticket, and the effect it replaces, whose task to
    /// cancel.
    ///
    /// - Parameter identity: The effect's given id, or its anonymous identity: that is unique, so it
    ///   replaces nothing and is not entered in ``tokens``.
    mutating func start(_ identity: EffectIdentity) -> (Ticket, replaced: Entry?) {
        lastToken += 1
        let token = lastToken
        entries[token] = Entry(identity: identity, state: .running)
        var replaced: Entry?
        if case .given(let id) = identity, let replacedToken = tokens.updateValue(token, forKey: id) {
            replaced = entries.removeValue(forKey: replacedToken)
        }
        return (Ticket(token: token), replaced)
    }

    /// Attaches the effect's task; returns `false` when the effect was cancelled meanwhile.
    mutating func attach(_ task: Task<Void, Never>, to ticket: Ticket) -> Bool {
        guard let index = entries.index(forKey: ticket.token) else { return false }
        entries.values[index].task = task
        return true
    }

    /// Admits an action the effect sent, to be handled now on `thread`; `false`: drop it.
    mutating func beginDelivery(_ ticket: Ticket, on thread: ThreadID) -> Bool {
        guard let index = entries.index(forKey: ticket.token), case .running = entries.values[index].state else {
            return false
        }
        entries.values[index].state = .delivering(on: thread)
        return true
    }

    /// The admitted action has been handled. Returns whether a canceller waits for this.
    mutating func endDelivery(_ ticket: Ticket) -> Bool {
        guard let index = entries.index(forKey: ticket.token) else { return false }
        if case .cancelling = entries.values[index].state {
            remove(ticket.token)
            return true
        }
        entries.values[index].state = .running
        return false
    }

    /// Whether the effect of `ticket` is no longer in the lifecycle.
    func isGone(_ ticket: Ticket) -> Bool {
        entries[ticket.token] == nil
    }

    /// Ends the effect: its work returned. Returns whether it was still running, that is, whether
    /// its last action may be handled.
    mutating func finish(_ ticket: Ticket) -> Bool {
        remove(ticket.token)
    }

    /// Removes the effect of `token`; returns whether it was there.
    ///
    /// An identified effect in ``entries`` is always the one ``tokens`` names for its id (starting
    /// one removes the one it replaces), so its id goes too.
    @discardableResult
    private mutating func remove(_ token: UInt64) -> Bool {
        guard let entry = entries.removeValue(forKey: token) else { return false }
        if case .given(let id) = entry.identity { tokens[id] = nil }
        return true
    }

    /// Cancels the effect running under `id`, if any, on behalf of code running on `thread`.
    ///
    /// - Returns: What was found (see ``Cancellation``), and the effect's task to cancel.
    mutating func cancel(_ id: AnyHashable, on thread: ThreadID) -> (Cancellation, task: Task<Void, Never>?) {
        guard let token = tokens[id] ?? anonymousToken(id) else { return (.notRunning, nil) }
        return cancel(token: token, on: thread)
    }

    /// Cancels the effect of `ticket`, if it is still in the lifecycle.
    mutating func cancel(_ ticket: Ticket, on thread: ThreadID) -> (Cancellation, task: Task<Void, Never>?) {
        cancel(token: ticket.token, on: thread)
    }

    private mutating func cancel(token: UInt64, on thread: ThreadID) -> (Cancellation, task: Task<Void, Never>?) {
        guard let index = entries.index(forKey: token) else { return (.notRunning, nil) }
        let (state, task) = (entries.values[index].state, entries.values[index].task)
        let ticket = Ticket(token: token)
        switch state {
        case .delivering(let deliveringThread) where deliveringThread != thread:
            entries.values[index].state = .cancelling(deliveringOn: deliveringThread)
            return (.awaitingDelivery(on: deliveringThread, ticket), task)
        case .cancelling(let deliveringThread):
            return (.awaitingDelivery(on: deliveringThread, ticket), nil)
        case .running, .delivering:
            remove(token)
            return (.cancelled, task)
        }
    }

    /// The token of the anonymous effect whose id is `id` (read from ``ActionEffect/id``), if it
    /// runs: a search, as such ids are not in ``tokens``; rare.
    private func anonymousToken(_ id: AnyHashable) -> UInt64? {
        guard let anonymous = id.base as? AnonymousEffectID else { return nil }
        return entries.first { _, entry in
            if case .anonymous(let other) = entry.identity { other == anonymous } else { false }
        }?.key
    }

    /// Cancels every effect; returns their tasks.
    mutating func cancelAll() -> [Task<Void, Never>] {
        defer {
            entries = [:]
            tokens = [:]
        }
        return entries.values.compactMap(\.task)
    }
}

/// The lifecycle lives inside its runner's lock: it never crosses threads.
@available(*, unavailable)
extension EffectLifecycle: Sendable {}
