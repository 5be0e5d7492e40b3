/// The state of a store's effects: the one place that decides whether an effect's action may still
/// be handled.
///
/// Each start of an effect gets a ticket, so a finishing effect never touches a newer one that
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
/// Effects are kept in slots of an array, reused once an effect ends, and found by their ticket: a
/// slot number and a serial number that tells this start from every other. An anonymous effect
/// (one created without an id, by far the most common) is started, admitted and finished without
/// hashing anything, and without comparing its `AnyHashable` id, whose every comparison looks up
/// generic metadata (about 1,000 instructions). Only an effect given an id is entered in
/// ``tickets``, to be replaced or cancelled by it. (Callgrind, `effect-roundtrip`: 745 instructions
/// per round trip less than a dictionary keyed by serial number, which hashed the key four times
/// and copied an entry out of the dictionary for every read; the slots alone, one array of whole
/// entries, were 520 more, as each read of an entry's state copied the entry: hence ``Mark``.)
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

    /// What is read on every start, delivery and end of an effect: plain values, so that reading
    /// them copies no reference. (Read from the ``Entry``, each read copied the whole entry.)
    struct Mark {
        /// The serial number of the effect's start (see ``Ticket``); `0` for a free slot.
        var serial: UInt64
        var state: State
        /// Whether the effect is a part of a composed one.
        let isPart: Bool
        /// Whether the action being delivered is its last: the effect ends with that delivery.
        var isDeliveringLast = false
        /// The serial number of the effect's anonymous identity; `0` for an effect given an id. Here,
        /// so that finding an anonymous effect by its id (``anonymousTicket(_:)``) reads plain values:
        /// it copied each entry's identity, through the runtime's value witnesses.
        var anonymousSerial: UInt64 = 0
    }

    /// The rest of what the lifecycle knows of an effect.
    struct Entry {
        /// The effect's given id, anonymous identity, or id it waits to run under.
        let identity: EffectIdentity
        var task: Task<Void, Never>?
        /// The composed effect this one is a part of.
        let parent: Ticket?
        /// The parts started and not yet ended, for a composed effect.
        var children: [Ticket] = []
    }

    /// One start of an effect: where it is kept, and the serial number that tells it from every
    /// other start (a slot is reused once its effect has ended).
    @usableFromInline
    struct Ticket: Sendable, Equatable {
        @usableFromInline let slot: Int
        @usableFromInline let serial: UInt64

        /// The ticket of an effect started after its store was released: it names no effect, so
        /// the effect is cancelled at once and nothing it sends is handled (see ``close()``).
        static let unkept = Ticket(slot: .max, serial: 0)
    }

    /// Every effect in the lifecycle, each in the slot its ticket names, in two arrays: ``marks`` and
    /// ``entries`` (`nil` for a free slot).
    private var marks: [Mark] = []
    private var entries: [Entry?] = []
    /// The free slots, to be reused before the array grows.
    private var freeSlots: [Int] = []
    /// The ticket of the effect running under each id an effect was given.
    private var tickets: [AnyHashable: Ticket] = [:]
    /// The ticket of the throttled effect waiting under each id.
    private var waitingTickets: [AnyHashable: Ticket] = [:]
    private var lastSerial: UInt64 = 0
    /// The highest serial number of an anonymous identity started here, or given as an id: an
    /// anonymous effect whose serial is higher (a new effect, the usual case) cannot share its id
    /// with a running one, so only one with a serial up to this is looked for (see ``start(_:_:on:)``).
    private var newestAnonymousSerial: UInt64 = 0
    /// The ids of waiting throttled effects cancelled since ``takeAbandonedThrottles()``: the
    /// throttle schedule must forget the start it booked for each (see ``ThrottleSchedule``).
    private var abandonedThrottles: [AnyHashable] = []
    /// The identities of the effects removed since ``takeReleasedIDs()``: an id is a user's value,
    /// whose `deinit` may call back into the store, so it is released by ``EffectRunner`` once its
    /// lock is left, never here. (Anonymous identities hold no user value and are not kept.)
    private var releasedIDs: [EffectIdentity] = []
    /// Whether the store was released (``close()``): every effect started since is cancelled at once.
    private(set) var isClosed = false

    /// The ids of the effects running now (not those being cancelled), waiting ones included.
    var runningIDs: Set<AnyHashable> {
        Set(
            marks.indices.compactMap { slot in
                guard let entry = entries[slot] else { return nil }
                if case .cancelling = marks[slot].state { return nil }
                return entry.identity.id
            })
    }

    /// Starts an effect; returns its ticket, and the tasks of the effects it replaces, to cancel.
    ///
    /// - Parameters:
    ///   - identity: The effect's given id, its anonymous identity (not entered in ``tickets``: it
    ///     replaces only a run of the same effect, see ``replaceRepeat(of:parent:on:)``), or the id it
    ///     waits to run under.
    ///   - placement: On its own, or a part of a running composed effect.
    ///   - thread: The calling thread (see ``cancel(_:on:)-(AnyHashable,_)``).
    /// - Returns: `nil` when the composed effect it belongs to was cancelled: do not start it.
    mutating func start(_ identity: EffectIdentity, _ placement: Placement, on thread: ThreadID) -> (
        Ticket, replaced: [Task<Void, Never>]
    )? {
        var parent: Ticket?
        switch placement {
        case .root:
            if isClosed { return (.unkept, []) }
        case .part(let composed):
            guard isRunning(composed) else { return nil }
            parent = composed
        case .successor(let predecessor):
            guard isRunning(predecessor) else { return nil }
            parent = entries[predecessor.slot]?.parent
            remove(predecessor)
        }
        lastSerial += 1
        let ticket = Ticket(slot: freeSlots.popLast() ?? marks.count, serial: lastSerial)
        // An anonymous effect, the most common, names nothing: its identity is not copied to be
        // matched (with the same in `remove`, callgrind, `effect-roundtrip`: 6,661 → 6,439).
        var mark = Mark(serial: ticket.serial, state: .running, isPart: parent != nil)
        let replaced: [Task<Void, Never>]
        if case .anonymous(let anonymous) = identity {
            mark.anonymousSerial = anonymous.serial
            replaced = replaceRepeat(of: anonymous, parent: parent, on: thread)
        } else {
            replaced = name(ticket, identity, parent: parent, on: thread)
        }
        // Each made where it is kept: made first and then stored, an entry was copied and destroyed
        // (about 200 instructions).
        if ticket.slot == marks.count {
            marks.append(mark)
            entries.append(Entry(identity: identity, parent: parent))
        } else {
            marks[ticket.slot] = mark
            entries[ticket.slot] = Entry(identity: identity, parent: parent)
        }
        if let parent { entries[parent.slot]!.children.append(ticket) }
        return (ticket, replaced)
    }

    /// Enters the effect of `ticket` under its given or waiting id, unless it is a part with an
    /// ancestor's id (reached through that ancestor). Returns the tasks of the effect it replaces.
    private mutating func name(
        _ ticket: Ticket, _ identity: EffectIdentity, parent: Ticket?, on thread: ThreadID
    ) -> [Task<Void, Never>] {
        // A part with an ancestor's id is reached through that ancestor: it is not entered.
        guard !hasAncestor(parent, named: identity) else { return [] }
        switch identity {
        case .anonymous:
            return []
        case .given(let id):
            // An anonymous effect's id, read from `ActionEffect.id`, names that effect too: a new
            // effect given it replaces it, as `cancel(id:)` cancels it, and is replaced by it when
            // that effect is returned again.
            // Callgrind, `effect-cancel` (a given id started, then cancelled): 26,961 → 27,679
            // instructions per effect with the type compared first, 39,830 with `id as?` alone.
            let base = id.base
            if type(of: base) == AnonymousEffectID.self, let anonymous = base as? AnonymousEffectID {
                newestAnonymousSerial = max(newestAnonymousSerial, anonymous.serial)
            }
            guard let old = tickets.updateValue(ticket, forKey: id) ?? anonymousTicket(id) else { return [] }
            return cancelTree(old, on: thread).tasks
        case .waiting(let id):
            guard let old = waitingTickets.updateValue(ticket, forKey: id) else { return [] }
            let replaced = cancelTree(old, on: thread).tasks
            // A waiting throttled effect replacing one: the new one keeps the booked start, which
            // cancelling the old one has just marked abandoned.
            abandonedThrottles.removeAll { $0 == id }
            return replaced
        }
    }

    /// Cancels what runs under the id of an anonymous effect started again: an effect made once and
    /// returned by a handler more than once, or an effect given its id. "Starting an effect whose id
    /// is still running cancels the running one first" holds for every id, so that one id never names
    /// two running effects. Returns the tasks to cancel.
    ///
    /// A new anonymous effect (a serial above any started or given here) shares its id with nothing,
    /// so the common start pays one comparison, and a copy of its identity to read the serial
    /// (callgrind, `effect-roundtrip`: 6,622 → 6,680 instructions; an accessor returning the serial
    /// copied it through its value witness, 6,778).
    private mutating func replaceRepeat(
        of anonymous: AnonymousEffectID, parent: Ticket?, on thread: ThreadID
    ) -> [Task<Void, Never>] {
        guard anonymous.serial <= newestAnonymousSerial else {
            newestAnonymousSerial = anonymous.serial
            return []
        }
        // The id as an effect given it holds it: made only when there is a given id or an ancestor
        // to compare with (an `AnyHashable` costs about 2,300 instructions, see `EffectIdentity`).
        let id = parent != nil || !tickets.isEmpty ? AnyHashable(anonymous) : nil
        // A part of an effect given its own id is reached through that effect (see `name`).
        if let id, hasAncestor(parent, named: .given(id)) { return [] }
        guard let old = id.flatMap({ tickets[$0] }) ?? anonymousTicket(anonymous) else { return [] }
        return cancelTree(old, on: thread).tasks
    }

    /// Attaches the effect's task; returns it when the effect was cancelled meanwhile, to be cancelled.
    mutating func attach(_ task: consuming Task<Void, Never>, to ticket: Ticket) -> Task<Void, Never>? {
        guard contains(ticket) else { return task }
        entries[ticket.slot]!.task = task
        return nil
    }

    /// Whether the effect of `ticket` runs and was not cancelled.
    func isRunning(_ ticket: Ticket) -> Bool {
        guard contains(ticket) else { return false }
        if case .cancelling = marks[ticket.slot].state { return false }
        return true
    }

    /// Admits an action the effect sent, to be handled now on `thread`; `false`: drop it.
    mutating func beginDelivery(_ ticket: Ticket, on thread: ThreadID) -> Bool {
        guard contains(ticket), case .running = marks[ticket.slot].state else { return false }
        marks[ticket.slot].state = .delivering(on: thread)
        return true
    }

    /// The admitted action has been handled. Returns whether a canceller waits for this.
    mutating func endDelivery(_ ticket: Ticket) -> Bool {
        guard contains(ticket) else { return false }
        if case .cancelling = marks[ticket.slot].state {
            remove(ticket)
            return true
        }
        if marks[ticket.slot].isDeliveringLast {
            remove(ticket)
        } else {
            marks[ticket.slot].state = .running
        }
        return false
    }

    /// Whether the effect of `ticket` is no longer in the lifecycle.
    func isGone(_ ticket: Ticket) -> Bool {
        !contains(ticket)
    }

    /// Ends the effect: its work returned, with a last action to handle or none.
    ///
    /// - Returns: Whether the last action may be handled, and whether the effect waits for it (see
    ///   ``Finish``).
    mutating func finish(_ ticket: Ticket, deliveringLast: Bool, on thread: ThreadID) -> Finish {
        guard contains(ticket) else { return .dropped }
        if case .cancelling = marks[ticket.slot].state { return .dropped }
        guard deliveringLast, marks[ticket.slot].isPart else {
            remove(ticket)
            return .finished
        }
        marks[ticket.slot].state = .delivering(on: thread)
        marks[ticket.slot].isDeliveringLast = true
        return .deliveringLast
    }

    /// Cancels the effects running and waiting under `id`, with their parts, on behalf of code
    /// running on `thread`.
    ///
    /// - Returns: What was found (see ``Cancellation``), and the tasks to cancel.
    mutating func cancel(_ id: AnyHashable, on thread: ThreadID) -> (Cancellation, tasks: [Task<Void, Never>]) {
        let running = tickets[id] ?? anonymousTicket(id)
        let waiting = waitingTickets.isEmpty ? nil : waitingTickets[id]
        guard running != nil || waiting != nil else { return (.notRunning, []) }
        var cancellation = Cancellation.cancelled
        var tasks: [Task<Void, Never>] = []
        for ticket in [running, waiting].compactMap(\.self) {
            let (awaited, treeTasks) = cancelTree(ticket, on: thread)
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

    /// Closes the lifecycle, for a released store: every effect is cancelled, and every effect
    /// started from now on (by a handler still running, on an effect's thread) is cancelled at once.
    ///
    /// - Returns: The effects it had, to be cancelled and released once the runner's lock is left.
    mutating func close() -> EffectLifecycle {
        var closed = EffectLifecycle()
        closed.isClosed = true
        swap(&self, &closed)
        return closed
    }

    /// The tasks of every effect.
    var tasks: [Task<Void, Never>] {
        entries.compactMap { entry in entry?.task }
    }

    /// Whether ``takeAbandonedThrottles()`` or ``takeReleasedIDs()`` has something to return.
    var hasLeftovers: Bool {
        !abandonedThrottles.isEmpty || !releasedIDs.isEmpty
    }

    /// The identities of the effects removed since the last call (see ``releasedIDs``).
    mutating func takeReleasedIDs() -> [EffectIdentity] {
        guard !releasedIDs.isEmpty else { return [] }
        defer { releasedIDs = [] }
        return releasedIDs
    }

    // MARK: - The slots

    /// Whether the effect of `ticket` is in the lifecycle (its slot was not freed, nor reused).
    private func contains(_ ticket: Ticket) -> Bool {
        ticket.slot < marks.count && marks[ticket.slot].serial == ticket.serial
    }

    /// The entry of `ticket`'s effect, if it is in the lifecycle.
    private func entry(_ ticket: Ticket?) -> Entry? {
        guard let ticket, contains(ticket) else { return nil }
        return entries[ticket.slot]
    }

    // MARK: - The tree

    /// Whether the effect of `ticket`, or one of its ancestors, has `identity`'s id in the same role
    /// (running, or waiting).
    private func hasAncestor(_ ticket: Ticket?, named identity: EffectIdentity) -> Bool {
        var next = ticket
        while let entry = entry(next) {
            switch (entry.identity, identity) {
            case (.given(let id), .given(let other)) where id == other: return true
            case (.waiting(let id), .waiting(let other)) where id == other: return true
            default: next = entry.parent
            }
        }
        return false
    }

    /// Cancels the effect of `ticket` and every part of it, on behalf of code running on `thread`.
    ///
    /// Each is removed, but one whose action is being handled on another thread is marked
    /// `cancelling`, for the caller to wait for (there is at most one: a store handles one action at
    /// a time).
    ///
    /// - Returns: That delivery, if any, and the tasks to cancel.
    private mutating func cancelTree(_ ticket: Ticket, on thread: ThreadID) -> (
        awaited: Cancellation?, tasks: [Task<Void, Never>]
    ) {
        var awaited: Cancellation?
        var tasks: [Task<Void, Never>] = []
        var pending = [ticket]
        while let ticket = pending.popLast() {
            guard let entry = entry(ticket) else { continue }
            pending += entry.children
            if let task = entry.task { tasks.append(task) }
            switch marks[ticket.slot].state {
            case .delivering(let deliveringThread) where deliveringThread != thread:
                unname(entry, ticket)
                marks[ticket.slot].state = .cancelling(deliveringOn: deliveringThread)
                entries[ticket.slot]!.children = []
                awaited = .awaitingDelivery(on: deliveringThread, ticket)
            case .cancelling(let deliveringThread):
                // Being handled on this very thread: the caller is inside that handler.
                if deliveringThread != thread {
                    awaited = .awaitingDelivery(on: deliveringThread, ticket)
                }
            case .running, .delivering:
                if case .waiting(let id) = entry.identity { abandonedThrottles.append(id) }
                remove(ticket)
            }
        }
        return (awaited, tasks)
    }

    /// Removes the effect of `ticket` (not its parts), and its name and place in its parent, and
    /// frees its slot. When no effect is left of more than 64, the slots go too, so that a burst of
    /// many effects does not keep its memory. (A few are kept: emptied at every round trip, the
    /// arrays cost 225 instructions more per `effect-roundtrip`.)
    private mutating func remove(_ ticket: Ticket) {
        guard contains(ticket), let entry = entries[ticket.slot].take() else { return }
        marks[ticket.slot].serial = 0
        freeSlots.append(ticket.slot)
        // An anonymous effect, the most common, names nothing: its identity is neither looked at nor
        // copied (see `start`).
        if !entry.identity.isAnonymous {
            unname(entry, ticket)
            releasedIDs.append(entry.identity)
        }
        if let parent = entry.parent, contains(parent) {
            entries[parent.slot]!.children.removeAll { $0 == ticket }
        }
        if marks.count > 64, freeSlots.count == marks.count {
            marks = []
            entries = []
            freeSlots = []
            // Empty too, with all slots free; a dictionary keeps its capacity.
            tickets = [:]
            waitingTickets = [:]
        }
    }

    /// Takes the effect's id off the effect of `ticket`, if it is the one named by it (a part with
    /// an ancestor's id never is).
    ///
    /// The table's own key goes to ``releasedIDs`` too: it is the first of the equal ids the table was
    /// entered with, which may be an effect's that a newer one replaced (`updateValue` keeps the key),
    /// and removed here it was released inside the runner's lock, where its `deinit` could not call
    /// the store.
    private mutating func unname(_ entry: Entry, _ ticket: Ticket) {
        switch entry.identity {
        case .given(let id):
            if let key = Self.remove(id, namingOnly: ticket, from: &tickets) { releasedIDs.append(.given(key)) }
        case .waiting(let id):
            if let key = Self.remove(id, namingOnly: ticket, from: &waitingTickets) {
                releasedIDs.append(.waiting(key))
            }
        case .anonymous:
            break
        }
    }

    /// Removes `id` from `table` if it names `ticket`; returns the table's key instance.
    private static func remove(
        _ id: AnyHashable, namingOnly ticket: Ticket, from table: inout [AnyHashable: Ticket]
    ) -> AnyHashable? {
        guard let index = table.index(forKey: id), table.values[index] == ticket else { return nil }
        return table.remove(at: index).key
    }

    /// The ticket of the anonymous effect whose id is `id` (read from ``ActionEffect/id``), if it
    /// runs: a search, as such ids are not in ``tickets``; rare. One being cancelled is passed over:
    /// the effect that replaced it, if any, is the one the id names.
    private func anonymousTicket(_ id: AnyHashable) -> Ticket? {
        (id.base as? AnonymousEffectID).flatMap(anonymousTicket)
    }

    /// The ticket of the running anonymous effect `anonymous`, if any: a scan of plain values, one
    /// per effect in the lifecycle.
    private func anonymousTicket(_ anonymous: AnonymousEffectID) -> Ticket? {
        let slot = marks.indices.first { slot in
            let mark = marks[slot]
            guard mark.serial != 0, mark.anonymousSerial == anonymous.serial else { return false }
            if case .cancelling = mark.state { return false }
            return true
        }
        return slot.map { slot in Ticket(slot: slot, serial: marks[slot].serial) }
    }
}

/// The lifecycle lives inside its runner's lock: it never crosses threads.
@available(*, unavailable)
extension EffectLifecycle: Sendable {}
