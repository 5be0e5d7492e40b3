/// The state of a store's effects: the one place that decides whether an effect's action may still
/// be handled.
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
/// - When its work returns, the effect is ended by ``finish(_:deliveringLast:on:)``, in the store's
///   turn too, so after every action it sent, and its last action (the value a single-action effect
///   returns) is admitted in the same step. A lone effect is then finished: cancelling it returns
///   `false`. A part of a composed effect stays, delivering, until that action has been handled,
///   because the composed effect it belongs to still runs.
/// - ``cancel(_:on:)-(AnyHashable,_)`` of a running effect removes it. Of an effect whose action is
///   being handled on another thread at that instant, it marks it `cancelling`: the caller waits
///   for that one action's handler to return (``endDelivery(_:)``), so that when `cancel` returns
///   `true`, nothing the effect sent is handled any more.
///
/// ## Composed effects: a tree
///
/// A concatenation (and so a debounced or throttled effect) is an effect whose parts are effects of
/// their own, each with its own id. The lifecycle knows each part's parent, so that cancelling or
/// replacing the concatenation removes every part in the same step, under the runner's lock: no
/// part can deliver after `cancel` returned `true`, even one started an instant before. A part is
/// started only while its parent still runs (``Placement``).
///
/// A part given the id of one of its ancestors (`ActionEffect(id: X) { … }.debounce(id: X, …)`) is
/// reached through that ancestor: it does not replace it, and cancelling the id cancels both.
///
/// ## Cost
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

    /// Where a new effect goes in the tree of running effects.
    @usableFromInline
    enum Placement: Sendable {
        /// On its own: an effect a handler returned.
        case root
        /// A part of the composed effect of this ticket; not started once that was cancelled.
        case part(of: Ticket)
        /// In place of the effect of this ticket (a throttled effect whose wait is over), which ends
        /// as this one starts; not started once that was cancelled.
        case successor(of: Ticket)
    }

    /// What ``cancel(_:on:)-(AnyHashable,_)`` found.
    enum Cancellation {
        /// No effect runs under the id.
        case notRunning
        /// Cancelled: nothing it sends will be handled.
        case cancelled
        /// Cancelled, but one of its actions (or one of its parts') is being handled on this thread
        /// now: wait for ``isGone(_:)`` before saying that nothing it sends will be handled.
        case awaitingDelivery(on: ThreadID, Ticket)
    }

    /// What ``finish(_:deliveringLast:on:)`` decided about the effect's last action.
    @usableFromInline
    enum Finish: Sendable {
        /// The effect was cancelled or replaced: drop the action.
        case dropped
        /// The effect has ended: handle the action.
        case finished
        /// Handle the action, then call ``endDelivery(_:)``: the effect is a part of a composed one,
        /// delivering until then.
        case deliveringLast
    }

    struct Entry {
        /// The effect's given id, anonymous identity, or id it waits to run under.
        let identity: EffectIdentity
        var state: State
        var task: Task<Void, Never>?
        /// The composed effect this one is a part of.
        let parent: UInt64?
        /// The parts started and not yet ended, for a composed effect.
        var children: [UInt64] = []
        /// Whether the action being delivered is its last: the effect ends with that delivery.
        var isDeliveringLast = false
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
    /// The token of the throttled effect waiting under each id.
    private var waitingTokens: [AnyHashable: UInt64] = [:]
    private var lastToken: UInt64 = 0
    /// The ids of waiting throttled effects cancelled since ``takeAbandonedThrottles()``: the
    /// throttle schedule must forget the start it booked for each (see ``ThrottleSchedule``).
    private var abandonedThrottles: [AnyHashable] = []

    /// The ids of the effects running now (not those being cancelled), waiting ones included.
    var runningIDs: Set<AnyHashable> {
        Set(
            entries.values.compactMap { entry in
                if case .cancelling = entry.state { return nil }
                return entry.identity.id
            })
    }

    /// Starts an effect; returns its ticket, and the tasks of the effects it replaces, to cancel.
    ///
    /// - Parameters:
    ///   - identity: The effect's given id, its anonymous identity (unique: it replaces nothing and
    ///     is not entered in ``tokens``), or the id it waits to run under.
    ///   - placement: On its own, or a part of a running composed effect.
    ///   - thread: The calling thread (see ``cancel(_:on:)-(AnyHashable,_)``).
    /// - Returns: `nil` when the composed effect it belongs to was cancelled: do not start it.
    mutating func start(_ identity: EffectIdentity, _ placement: Placement, on thread: ThreadID) -> (
        Ticket, replaced: [Task<Void, Never>]
    )? {
        var parent: UInt64?
        switch placement {
        case .root:
            break
        case .part(let composed):
            guard isRunning(composed.token) else { return nil }
            parent = composed.token
        case .successor(let predecessor):
            guard isRunning(predecessor.token) else { return nil }
            parent = entries[predecessor.token]?.parent
            remove(predecessor.token)
        }
        lastToken += 1
        let token = lastToken
        var replaced: [Task<Void, Never>] = []
        switch identity {
        case .anonymous:
            break
        case .given(let id), .waiting(let id):
            // A part with an ancestor's id is reached through that ancestor: it is not entered.
            if !hasAncestor(parent, named: identity) {
                if let old = updateToken(token, for: identity, id) {
                    replaced = cancelTree(old, on: thread).tasks
                    // A waiting throttled effect replacing one: the new one keeps the booked start.
                    if case .waiting = identity { abandonedThrottles.removeAll { $0 == id } }
                }
            }
        }
        entries[token] = Entry(identity: identity, state: .running, parent: parent)
        if let parent { entries[parent]?.children.append(token) }
        return (Ticket(token: token), replaced)
    }

    /// Attaches the effect's task; returns `false` when the effect was cancelled meanwhile.
    mutating func attach(_ task: Task<Void, Never>, to ticket: Ticket) -> Bool {
        guard let index = entries.index(forKey: ticket.token) else { return false }
        entries.values[index].task = task
        return true
    }

    /// Whether the effect of `ticket` runs and was not cancelled.
    func isRunning(_ ticket: Ticket) -> Bool {
        isRunning(ticket.token)
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
        if entries.values[index].isDeliveringLast {
            remove(ticket.token)
        } else {
            entries.values[index].state = .running
        }
        return false
    }

    /// Whether the effect of `ticket` is no longer in the lifecycle.
    func isGone(_ ticket: Ticket) -> Bool {
        entries[ticket.token] == nil
    }

    /// Ends the effect: its work returned, with a last action to handle or none.
    ///
    /// - Returns: Whether the last action may be handled, and whether the effect waits for it (see
    ///   ``Finish``).
    mutating func finish(_ ticket: Ticket, deliveringLast: Bool, on thread: ThreadID) -> Finish {
        guard let index = entries.index(forKey: ticket.token) else { return .dropped }
        if case .cancelling = entries.values[index].state { return .dropped }
        guard deliveringLast, entries.values[index].parent != nil else {
            remove(ticket.token)
            return .finished
        }
        entries.values[index].state = .delivering(on: thread)
        entries.values[index].isDeliveringLast = true
        return .deliveringLast
    }

    /// Cancels the effects running and waiting under `id`, with their parts, on behalf of code
    /// running on `thread`.
    ///
    /// - Returns: What was found (see ``Cancellation``), and the tasks to cancel.
    mutating func cancel(_ id: AnyHashable, on thread: ThreadID) -> (Cancellation, tasks: [Task<Void, Never>]) {
        let running = tokens[id] ?? anonymousToken(id)
        let waiting = waitingTokens.isEmpty ? nil : waitingTokens[id]
        guard running != nil || waiting != nil else { return (.notRunning, []) }
        var cancellation = Cancellation.cancelled
        var tasks: [Task<Void, Never>] = []
        for token in [running, waiting].compactMap(\.self) {
            let (awaited, treeTasks) = cancelTree(token, on: thread)
            tasks += treeTasks
            if let awaited { cancellation = awaited }
        }
        return (cancellation, tasks)
    }

    /// The ids of the waiting throttled effects cancelled since the last call, or replaced by
    /// anything but another waiting one (see ``abandonedThrottles``).
    mutating func takeAbandonedThrottles() -> [AnyHashable] {
        guard !abandonedThrottles.isEmpty else { return [] }
        defer { abandonedThrottles = [] }
        return abandonedThrottles
    }

    /// Cancels every effect; returns their tasks.
    mutating func cancelAll() -> [Task<Void, Never>] {
        defer {
            entries = [:]
            tokens = [:]
            waitingTokens = [:]
        }
        return entries.values.compactMap(\.task)
    }

    // MARK: - The tree

    private func isRunning(_ token: UInt64) -> Bool {
        guard let entry = entries[token] else { return false }
        if case .cancelling = entry.state { return false }
        return true
    }

    /// Whether the effect of `token`, or one of its ancestors, has `identity`'s id in the same role
    /// (running, or waiting).
    private func hasAncestor(_ token: UInt64?, named identity: EffectIdentity) -> Bool {
        var next = token
        while let token = next, let entry = entries[token] {
            switch (entry.identity, identity) {
            case (.given(let id), .given(let other)) where id == other: return true
            case (.waiting(let id), .waiting(let other)) where id == other: return true
            default: next = entry.parent
            }
        }
        return false
    }

    /// Names `token` the effect of `identity`'s `id`; returns the token it named before.
    private mutating func updateToken(_ token: UInt64, for identity: EffectIdentity, _ id: AnyHashable) -> UInt64? {
        if case .waiting = identity { return waitingTokens.updateValue(token, forKey: id) }
        return tokens.updateValue(token, forKey: id)
    }

    /// Cancels the effect of `token` and every part of it, on behalf of code running on `thread`.
    ///
    /// Each is removed, but one whose action is being handled on another thread is marked
    /// `cancelling`, for the caller to wait for (there is at most one: a store handles one action at
    /// a time).
    ///
    /// - Returns: That delivery, if any, and the tasks to cancel.
    private mutating func cancelTree(_ token: UInt64, on thread: ThreadID) -> (
        awaited: Cancellation?, tasks: [Task<Void, Never>]
    ) {
        var awaited: Cancellation?
        var tasks: [Task<Void, Never>] = []
        var pending = [token]
        while let token = pending.popLast() {
            guard let index = entries.index(forKey: token) else { continue }
            let entry = entries.values[index]
            pending += entry.children
            if let task = entry.task { tasks.append(task) }
            switch entry.state {
            case .delivering(let deliveringThread) where deliveringThread != thread:
                unname(entry, token)
                entries.values[index].state = .cancelling(deliveringOn: deliveringThread)
                entries.values[index].children = []
                awaited = .awaitingDelivery(on: deliveringThread, Ticket(token: token))
            case .cancelling(let deliveringThread):
                // Being handled on this very thread: the caller is inside that handler.
                if deliveringThread != thread {
                    awaited = .awaitingDelivery(on: deliveringThread, Ticket(token: token))
                }
            case .running, .delivering:
                if case .waiting(let id) = entry.identity { abandonedThrottles.append(id) }
                remove(token)
            }
        }
        return (awaited, tasks)
    }

    /// Removes the effect of `token` (not its parts), and its name and place in its parent.
    private mutating func remove(_ token: UInt64) {
        guard let entry = entries.removeValue(forKey: token) else { return }
        unname(entry, token)
        if let parent = entry.parent, let index = entries.index(forKey: parent) {
            entries.values[index].children.removeAll { $0 == token }
        }
    }

    /// Takes the effect's id off the effect of `token`, if it is the one named by it (a part with
    /// an ancestor's id never is).
    private mutating func unname(_ entry: Entry, _ token: UInt64) {
        switch entry.identity {
        case .given(let id) where tokens[id] == token: tokens[id] = nil
        case .waiting(let id) where waitingTokens[id] == token: waitingTokens[id] = nil
        default: break
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
}

/// The lifecycle lives inside its runner's lock: it never crosses threads.
@available(*, unavailable)
extension EffectLifecycle: Sendable {}
