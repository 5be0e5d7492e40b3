/// Every decision about a store's effects, in one value type: which effect runs under which id,
/// what a cancellation reaches, when a concatenation's next step starts, when a debounced or
/// throttled effect's wait is over, and whether an effect's action may still be handled.
///
/// It is a state machine in the shape of async-algorithms' `DebounceStateMachine`: events come in
/// as mutating methods (an effect starts, a step was started, an operation ended, a deadline was
/// reached, an action is delivered, an id is cancelled, the store is released), and each returns
/// what to do — tasks to cancel, steps to start, a timer to start, an action to deliver, values
/// to release — which its ``EffectRunner`` carries out after leaving the lock. It runs no user code
/// and reads no clock: a timed effect's start comes with a reading of its clock, taken by the runner
/// outside the lock. Task bodies only sleep and run the user's operation.
///
/// ## The tree
///
/// Each start of an effect is a node, found by its ``EffectTicket``. A composed effect's parts are
/// nodes under it: a concatenation's running step, a debounced or throttled effect's wait, the
/// effect started under a debounce's or throttle's id. Cancelling or replacing a node cancels its
/// whole subtree in one step, so no part delivers after `cancel` returned `true`.
///
/// A node moves through:
///
/// ```
/// running ⇄ delivering(thread) ──▶ ended (removed)
///    │            │
///    │            └──▶ cancelled(deliveringOn: thread) ──▶ ended, when that delivery ends
///    └──────────────────────────────────────────────────▶ ended (cancelled)
/// ```
///
/// - An action the effect sends is admitted (``beginDelivery(_:on:)``) in the store's turn, just
///   before its handler runs, only while the node is running: an action queued before a
///   cancellation is dropped.
/// - A cancelled node has ended, at once: its id is free, nothing it sends is handled, and a
///   concatenation it was a step's part of goes on without it (its task is cancelled, and what the
///   task still does is ignored). Only a node whose action is being handled at that instant ends
///   when that handling ends, and a canceller on another thread waits for it.
/// - An operation that ends with an action (a single effect's result) is, on its own, removed before
///   that action is handled: it has ended. As a part of a composed effect it stays, delivering, until
///   the action has been handled, so its concatenation's next step starts after that action.
/// - When a step's last part ends, the concatenation's next step is decided there, in the turn that
///   ended it: the same program gives the same order on every run.
///
/// ## Deadlines decide
///
/// A debounced or throttled effect waits in its id's *waiting* slot until a deadline. The wait is
/// over when the clock reaches the deadline, not when its timer task wakes: an effect timed under
/// the same id that comes later with a clock reading at or past the deadline first starts the
/// waiting one, then is timed itself. So a late timer never drops an effect whose delay had passed.
/// A newer debounced effect replaces only the one *waiting*; an effect whose wait is over starts
/// under the id and so replaces the one *running* (cancel in flight), for debounce and throttle alike.
///
/// Throttle bookings live here too: for each id, the last start and the end of the interval it
/// throttles. A booking whose interval is over changes nothing, so once the bookings have doubled
/// since the last sweep (and number 64 or more), those over at the reading in hand are dropped.
///
/// ## Ids
///
/// Only an effect given an id is entered in ``running`` to be replaced or cancelled by it. An
/// anonymous effect (made without an id, by far the most common) names only itself: a new one
/// cannot share its id with a running one unless it was made before (an effect value returned
/// twice), which the newest anonymous serial seen tells without hashing anything. A part given the
/// id of one of its ancestors is reached through that ancestor: it does not replace it.
///
/// Values a node holds for the user (ids, effects not started yet) are moved to ``released`` when
/// the node goes, and released by the runner once its lock is left: an id's `deinit` may call back
/// into the store.
///
/// Effects not started yet (a concatenation's later steps, a waiting effect) are held as
/// ``EffectSteps``, whose type the scheduler does not know: it decides when they start, the runner
/// starts them.
///
/// A value type; ``EffectRunner`` keeps it inside its lock.
@usableFromInline
struct EffectScheduler {
    @usableFromInline typealias Ticket = EffectTicket
    @usableFromInline typealias Decisions = EffectDecisions

    /// Where a node stands (see the type's discussion).
    enum State: Equatable {
        case running
        /// One of its actions is being handled on that thread now.
        case delivering(on: ThreadID)
        /// Cancelled while one of its actions is being handled on that thread: unnamed, delivers
        /// nothing more, and ends when that handling ends.
        case cancelled(deliveringOn: ThreadID)
    }

    /// What a node is. A composed node's payload is in ``composites``, so that a node stays small.
    enum Kind: UInt8 {
        /// The user's operation, running in ``Node/task``.
        case operation
        /// An immediate action of a concatenation's step, queued for the turn.
        case immediate
        /// A concatenation (``Composite/steps(_:isStartingStep:)``): its running step's parts are the
        /// node's children.
        case concatenation
        /// A debounced or throttled effect waiting (``Composite/wait(_:id:then:)``); its timer is
        /// ``Node/task``.
        case wait
    }

    /// What a composed node holds.
    enum Composite {
        /// A concatenation's steps, from the running one on; `isStartingStep` while the runner starts
        /// a step's parts.
        case steps(EffectSteps, isStartingStep: Bool)
        /// A wait in `id`'s waiting slot until `deadline`; once over, `effect` (one step) starts under
        /// the id.
        case wait(EffectDeadline, id: AnyHashable, then: EffectSteps)
    }

    /// How a node is found by id.
    enum Name {
        /// Only by the node's own anonymous identity.
        case anonymous(AnonymousEffectID)
        /// By a given id, in ``running`` (unless an ancestor has it).
        case given(AnyHashable)
        /// By a debounce's or throttle's id, in ``waiting``.
        case waiting(AnyHashable)
        /// By nothing: an immediate action's node, or a node cancelled.
        case none

        var id: AnyHashable? {
            switch self {
            case .anonymous(let anonymous): AnyHashable(anonymous)
            case .given(let id), .waiting(let id): id
            case .none: nil
            }
        }
    }

    /// One start of an effect.
    struct Node {
        /// The serial number of the start (see ``EffectTicket``); `0` for a free slot.
        var serial: UInt64
        var state: State
        var name: Name
        /// Whether the operation ended and the action being delivered is its last: the node ends
        /// when that action has been handled.
        var isDeliveringLast = false
        /// The composed effect this one is a part of.
        let parent: Ticket?
        var kind: Kind
        /// The parts started and not ended, for a composed node.
        var children: [Ticket] = []
        /// The task of an operation or a wait's timer.
        var task: Task<Void, Never>?
        /// The sequence number of the action whose handler started the effect this node belongs to.
        let startedBy: UInt64
    }

    /// Where a new node goes.
    @usableFromInline
    enum Placement: Sendable {
        /// On its own: an effect a handler returned.
        case root
        /// A part of the composed effect of this ticket; not started once that was cancelled.
        case part(of: Ticket)
    }

    /// What a cancellation found.
    @usableFromInline
    enum Cancellation: Sendable {
        /// Nothing runs or waits under the id.
        case notRunning
        /// Cancelled: nothing it sends will be handled.
        case cancelled
        /// Cancelled, but one of its actions is being handled on this other thread now: nothing it
        /// sends will be handled once ``isDeliveryOver(_:)``.
        case awaitingDelivery(on: ThreadID, Ticket)
    }

    /// Every node, in the slot its ticket names; free slots have serial `0`.
    private var nodes: [Node] = []
    private var freeSlots: [Int] = []
    /// The payload of each composed node, by slot.
    private var composites: [Int: Composite] = [:]
    /// The node running under each given id, and the one waiting under each debounce's or
    /// throttle's id.
    private var running: [AnyHashable: Ticket] = [:]
    private var waiting: [AnyHashable: Ticket] = [:]
    /// The last throttled start under each id, and the end of the interval it throttles.
    private var bookings: [AnyHashable: Booking] = [:]
    /// How many bookings there may be before the next sweep.
    private var sweepBookingsAt = 64
    private var lastSerial: UInt64 = 0
    /// The highest serial of an anonymous identity started here or given as an id: a newer anonymous
    /// effect cannot share its id with a running one.
    private var newestAnonymousSerial: UInt64 = 0
    /// Whether the store was released: every effect started since is cancelled at once.
    private(set) var isClosed = false

    /// A throttled id's last start and the end of the interval it throttles, as instants of the
    /// clock that booked them.
    struct Booking {
        var start: any Sendable
        var end: any Sendable
    }

    @usableFromInline init() {}

    // MARK: - Starting

    /// Starts an operation (a single effect's work, or a `run`'s), replacing what runs under its id.
    ///
    /// - Returns: Its ticket, or `nil` when the composed effect it is a part of was cancelled (start
    ///   nothing). After a release, ``EffectTicket/unkept``: start the task, cancelled.
    @usableFromInline
    mutating func startOperation(
        _ identity: EffectIdentity, _ placement: Placement, startedBy action: UInt64, on thread: ThreadID,
        into decisions: inout Decisions
    ) -> Ticket? {
        guard let parent = admit(placement) else { return nil }
        if parent == .unkept { return .unkept }
        let ticket = newTicket()
        let name = enter(ticket, identity, parent: parent.ticket, on: thread, into: &decisions)
        insert(
            Node(
                serial: ticket.serial, state: .running, name: name, parent: parent.ticket, kind: .operation,
                startedBy: startedBy(action, parent.ticket)),
            at: ticket)
        return ticket
    }

    /// Starts an immediate action's node, as a part of a concatenation's step: the step ends once
    /// the action has been handled (see ``beginDelivery(_:on:)``).
    ///
    /// - Returns: Its ticket, or `nil` when the concatenation was cancelled: drop the action.
    mutating func startImmediate(in concatenation: Ticket) -> Ticket? {
        guard isRunning(concatenation) else { return nil }
        let ticket = newTicket()
        insert(
            Node(
                serial: ticket.serial, state: .running, name: .none, parent: concatenation, kind: .immediate,
                startedBy: nodes[concatenation.slot].startedBy),
            at: ticket)
        return ticket
    }

    /// Starts a concatenation of `steps` under `identity`, replacing what runs under its id.
    ///
    /// - Returns: Its ticket and its first step, to start as its parts and then report with
    ///   ``stepStarted(_:into:)``; `nil` when its parent was cancelled, or when the store was released.
    mutating func startConcatenation(
        _ identity: EffectIdentity, _ steps: EffectSteps, _ placement: Placement,
        startedBy action: UInt64, on thread: ThreadID, into decisions: inout Decisions
    ) -> EffectStep? {
        guard let parent = admit(placement), parent != .unkept else {
            decisions.released.append(steps)
            return nil
        }
        guard !steps.isEmpty else {
            // Nothing to run: it starts and ends at once, replacing what ran under its id.
            if case .given(let id) = identity, !hasAncestor(parent.ticket, named: id, waiting: false),
                let old = running[id] ?? anonymousTicket(id)
            {
                _ = cancelTree(old, on: thread, into: &decisions)
            }
            return nil
        }
        let ticket = newTicket()
        let name = enter(ticket, identity, parent: parent.ticket, on: thread, into: &decisions)
        insert(
            Node(
                serial: ticket.serial, state: .running, name: name, parent: parent.ticket, kind: .concatenation,
                startedBy: startedBy(action, parent.ticket)),
            at: ticket)
        composites[ticket.slot] = .steps(steps, isStartingStep: true)
        return EffectStep(concatenation: ticket, steps: steps)
    }

    /// The runner has started every part of the step ``startConcatenation`` or a step's end returned.
    /// When the step started nothing that runs (no parts, or parts that ended at once), the next step
    /// is decided now.
    mutating func stepStarted(_ ticket: Ticket, into decisions: inout Decisions) {
        guard contains(ticket), case .steps(let steps, true)? = composites[ticket.slot] else { return }
        composites[ticket.slot] = .steps(steps, isStartingStep: false)
        if nodes[ticket.slot].children.isEmpty { stepEnded(ticket, into: &decisions) }
    }

    /// Starts a debounced effect: the clock read `now`; the wait ends `timing`'s duration after it.
    ///
    /// A wait under `id` whose deadline `now` has reached starts first (see the type's discussion);
    /// one still waiting is replaced.
    mutating func startDebounced(
        _ id: AnyHashable, _ timing: any EffectTiming, now: any Sendable, _ effect: EffectSteps,
        _ placement: Placement, startedBy action: UInt64, on thread: ThreadID, into decisions: inout Decisions
    ) {
        startWaitIfDue(id, at: now, on: thread, into: &decisions)
        guard let parent = admit(placement), parent != .unkept else { return decisions.released.append(effect) }
        let deadline = timing.deadline(at: timing.advanced(now))
        startWait(id, deadline, effect, parent: parent.ticket, startedBy: action, on: thread, into: &decisions)
    }

    /// Starts a throttled effect: the clock read `now` (see
    /// ``ActionEffect/throttle(id:for:clock:latest:)``).
    ///
    /// - At once when nothing started under `id` within the interval before `now`.
    /// - When one waits to start later: in its place (`latest`), or never.
    /// - Else at the end of the last start's interval.
    mutating func startThrottled(
        _ id: AnyHashable, _ timing: any EffectTiming, latest: Bool, now: any Sendable, _ effect: EffectSteps,
        _ placement: Placement, startedBy action: UInt64, on thread: ThreadID, into decisions: inout Decisions
    ) {
        startWaitIfDue(id, at: now, on: thread, into: &decisions)
        guard let parent = admit(placement), parent != .unkept else { return decisions.released.append(effect) }
        if bookings.count >= sweepBookingsAt { sweepBookings(at: now, timing, into: &decisions) }
        let booking = bookings[id]
        guard let booking, timing.isBefore(now, booking.end) == true else {
            book(id, Booking(start: now, end: timing.advanced(now)), into: &decisions)
            let started = startConcatenation(
                .given(id), effect, parent.placement, startedBy: action, on: thread, into: &decisions)
            if let started { decisions.steps.append(started) }
            return
        }
        if timing.isBefore(now, booking.start) == true {
            // One waits for `booking.start`: the newest replaces it, or is dropped.
            guard latest else { return decisions.released.append(effect) }
            let deadline = timing.deadline(at: booking.start)
            return startWait(
                id, deadline, effect, parent: parent.ticket, startedBy: action, on: thread, into: &decisions)
        }
        let start = booking.end
        book(id, Booking(start: start, end: timing.advanced(start)), into: &decisions)
        startWait(
            id, timing.deadline(at: start), effect, parent: parent.ticket, startedBy: action, on: thread,
            into: &decisions)
    }

    /// A wait's timer woke at its deadline: the waiting effect starts under its id.
    mutating func deadlineReached(_ ticket: Ticket, on thread: ThreadID, into decisions: inout Decisions) {
        guard contains(ticket) else { return }
        guard nodes[ticket.slot].state == .running else { return taskEnded(ticket, into: &decisions) }
        fire(ticket, on: thread, into: &decisions)
    }

    // MARK: - Ending and delivering

    /// What ``operationEnded(_:hasLast:on:into:)`` decided about the operation's last action.
    @usableFromInline
    enum Ending: Equatable, Sendable {
        /// No action, or the effect was cancelled: handle nothing.
        case dropped
        /// Handle the action: the effect has ended.
        case delivering
        /// Handle the action, then call ``endDelivery(_:into:)``: the effect is a part of a composed
        /// one, which waits for that action.
        case deliveringAsPart
    }

    /// The operation of `ticket` returned, with a last action (`hasLast`) or none. In the turn.
    @usableFromInline
    mutating func operationEnded(
        _ ticket: Ticket, hasLast: Bool, on thread: ThreadID, into decisions: inout Decisions
    ) -> Ending {
        guard contains(ticket) else { return .dropped }
        guard nodes[ticket.slot].state == .running else {
            // Cancelled while one of its actions is handled: it ends when that handling ends.
            nodes[ticket.slot].isDeliveringLast = true
            return .dropped
        }
        guard hasLast, nodes[ticket.slot].parent != nil else {
            remove(ticket, into: &decisions)
            return hasLast ? .delivering : .dropped
        }
        nodes[ticket.slot].state = .delivering(on: thread)
        nodes[ticket.slot].isDeliveringLast = true
        return .deliveringAsPart
    }

    /// Admits an action the effect of `ticket` sent, to be handled now on `thread`; `false`: drop it.
    @usableFromInline
    mutating func beginDelivery(_ ticket: Ticket, on thread: ThreadID) -> Bool {
        guard contains(ticket), nodes[ticket.slot].state == .running else { return false }
        nodes[ticket.slot].state = .delivering(on: thread)
        return true
    }

    /// The admitted action has been handled.
    ///
    /// - Returns: Whether a canceller waits for this delivery to end (see ``Cancellation``).
    @usableFromInline
    mutating func endDelivery(_ ticket: Ticket, into decisions: inout Decisions) -> Bool {
        guard contains(ticket) else { return false }
        switch nodes[ticket.slot].state {
        case .cancelled:
            remove(ticket, into: &decisions)
            return true
        case .delivering:
            if nodes[ticket.slot].isDeliveringLast || isImmediate(ticket) {
                remove(ticket, into: &decisions)
            } else {
                nodes[ticket.slot].state = .running
            }
            return false
        case .running:
            return false
        }
    }

    /// The task of `ticket` (an operation or a timer) returned with nothing to deliver: the node
    /// ends.
    mutating func taskEnded(_ ticket: Ticket, into decisions: inout Decisions) {
        guard contains(ticket) else { return }
        remove(ticket, into: &decisions)
    }

    /// Attaches the task of the node of `ticket`; returns it when the node was cancelled meanwhile,
    /// to be cancelled.
    @usableFromInline
    mutating func attach(_ task: consuming Task<Void, Never>, to ticket: Ticket) -> Task<Void, Never>? {
        guard contains(ticket) else { return task }
        if case .cancelled = nodes[ticket.slot].state { return task }
        nodes[ticket.slot].task = task
        return nil
    }

    // MARK: - Cancelling

    /// Cancels the effects running and waiting under `id`, with their parts, on behalf of code
    /// running on `thread`, and forgets the throttle booking under `id`.
    mutating func cancel(_ id: AnyHashable, on thread: ThreadID, into decisions: inout Decisions) -> Cancellation {
        if let index = bookings.index(forKey: id) { decisions.released.append(bookings.remove(at: index)) }
        let found = [running[id] ?? anonymousTicket(id), waiting.isEmpty ? nil : waiting[id]].compactMap(\.self)
        guard !found.isEmpty else { return .notRunning }
        var cancellation = Cancellation.cancelled
        for ticket in found {
            if let awaited = cancelTree(ticket, on: thread, into: &decisions) { cancellation = awaited }
        }
        return cancellation
    }

    /// Whether the delivery a ``Cancellation/awaitingDelivery(on:_:)`` waits for has ended.
    func isDeliveryOver(_ ticket: Ticket) -> Bool {
        guard contains(ticket), case .cancelled = nodes[ticket.slot].state else { return true }
        return false
    }

    /// Closes the scheduler, for a released store: every effect is cancelled, and every effect
    /// started from now on (by a handler still running, on an effect's thread) is cancelled at once.
    ///
    /// - Returns: What it held, to be cancelled and released once the lock is left.
    @usableFromInline
    mutating func close() -> EffectScheduler {
        var closed = EffectScheduler()
        closed.isClosed = true
        swap(&self, &closed)
        return closed
    }

    /// The tasks of every node.
    var tasks: [Task<Void, Never>] {
        nodes.compactMap { node in node.serial == 0 ? nil : node.task }
    }

    // MARK: - Reading

    /// The ids of the effects running or waiting now (not those cancelled, nor immediate actions).
    var runningIDs: Set<AnyHashable> {
        Set(
            nodes.compactMap { node in
                guard node.serial != 0, !isCancelledState(node.state) else { return nil }
                return node.name.id
            })
    }

    /// Every node running or waiting, oldest start first: what a test store reports.
    package var runningEffects: [RunningEffect] {
        nodes.indices.filter { nodes[$0].serial != 0 && !isCancelledState(nodes[$0].state) && nodes[$0].name.id != nil }
            .sorted { nodes[$0].serial < nodes[$1].serial }
            .map { slot in
                let node = nodes[slot]
                var deadline: EffectDeadline?
                if node.kind == .wait, case .wait(let wait, _, _)? = composites[slot] { deadline = wait }
                return RunningEffect(
                    id: node.name.id!, serial: node.serial, waitsUntil: deadline, startedBy: node.startedBy,
                    isComposed: node.kind == .concatenation)
            }
    }

    /// Whether the node of `ticket` runs and was not cancelled.
    func isRunning(_ ticket: Ticket) -> Bool {
        guard contains(ticket) else { return false }
        if case .cancelled = nodes[ticket.slot].state { return false }
        return true
    }

    /// The id of the node of `ticket`, for a test store to name it.
    @usableFromInline
    func id(of ticket: Ticket) -> AnyHashable? {
        contains(ticket) ? nodes[ticket.slot].name.id : nil
    }

    /// The id a test store's failures name the effect of `ticket` by, while it runs: its own given
    /// id, else that of the nearest composed effect it is a part of that was given one (a debounced
    /// or throttled effect runs under the debounce's or throttle's id, the id `cancel(id:)` takes),
    /// else its own.
    @usableFromInline
    func nameInMessages(of ticket: Ticket) -> AnyHashable? {
        guard contains(ticket) else { return nil }
        var part = ticket
        while case .anonymous = nodes[part.slot].name, let parent = nodes[part.slot].parent, contains(parent) {
            if case .given(let id) = nodes[parent.slot].name { return id }
            part = parent
        }
        return nodes[ticket.slot].name.id
    }

    // MARK: - Internals: placement, naming, slots

    /// Where a new node goes, in ``admit(_:)``'s answer.
    struct Admission: Equatable {
        let ticket: Ticket?
        static let unkept = Admission(ticket: .unkept)
        var placement: Placement { ticket.map { .part(of: $0) } ?? .root }
    }

    /// The parent a node started at `placement` goes under; `nil` when that parent was cancelled;
    /// ``Admission/unkept`` after a release.
    func admit(_ placement: Placement) -> Admission? {
        switch placement {
        case .root:
            return isClosed ? .unkept : Admission(ticket: nil)
        case .part(let parent):
            return isRunning(parent) ? Admission(ticket: parent) : nil
        }
    }

    /// The sequence number of the action that started a node's effect: its parent's for a part.
    func startedBy(_ action: UInt64, _ parent: Ticket?) -> UInt64 {
        parent.map { nodes[$0.slot].startedBy } ?? action
    }

    mutating func newTicket() -> Ticket {
        lastSerial += 1
        return Ticket(slot: freeSlots.popLast() ?? nodes.count, serial: lastSerial)
    }

    mutating func insert(_ node: consuming Node, at ticket: Ticket) {
        if ticket.slot == nodes.count {
            nodes.append(node)
        } else {
            nodes[ticket.slot] = node
        }
        if let parent = nodes[ticket.slot].parent { nodes[parent.slot].children.append(ticket) }
    }

    /// Enters a new node under its id, cancelling what ran under it; returns the node's name.
    mutating func enter(
        _ ticket: Ticket, _ identity: EffectIdentity, parent: Ticket?, on thread: ThreadID,
        into decisions: inout Decisions
    ) -> Name {
        switch identity {
        case .anonymous(let anonymous):
            // A new anonymous effect (the common case) names nothing that runs.
            if anonymous.serial > newestAnonymousSerial {
                newestAnonymousSerial = anonymous.serial
            } else {
                replaceRepeat(of: anonymous, parent: parent, on: thread, into: &decisions)
            }
            return .anonymous(anonymous)
        case .given(let id):
            return enter(ticket, given: id, parent: parent, on: thread, into: &decisions)
        }
    }

    /// Enters a new node under the id it was given, cancelling what ran under it, unless an ancestor
    /// has the id: then the node is reached through that ancestor.
    mutating func enter(
        _ ticket: Ticket, given id: AnyHashable, parent: Ticket?, on thread: ThreadID, into decisions: inout Decisions
    ) -> Name {
        guard !hasAncestor(parent, named: id, waiting: false) else { return .none }
        if let anonymous = id.base as? AnonymousEffectID {
            newestAnonymousSerial = max(newestAnonymousSerial, anonymous.serial)
        }
        if let old = running.updateValue(ticket, forKey: id) ?? anonymousTicket(id) {
            _ = cancelTree(old, on: thread, into: &decisions)
        }
        return .given(id)
    }

    /// Cancels what runs under the id of an anonymous effect started again (an effect value returned
    /// twice): one id never names two running effects.
    mutating func replaceRepeat(
        of anonymous: AnonymousEffectID, parent: Ticket?, on thread: ThreadID, into decisions: inout Decisions
    ) {
        let id = AnyHashable(anonymous)
        if hasAncestor(parent, named: id, waiting: false) { return }
        guard let old = running[id] ?? anonymousTicket(anonymous) else { return }
        _ = cancelTree(old, on: thread, into: &decisions)
    }

    /// Starts the wait under `id` if `now` has reached its deadline (see the type's discussion).
    mutating func startWaitIfDue(
        _ id: AnyHashable, at now: any Sendable, on thread: ThreadID, into decisions: inout Decisions
    ) {
        guard !waiting.isEmpty, let ticket = waiting[id], nodes[ticket.slot].state == .running,
            case .wait(let deadline, _, _)? = composites[ticket.slot], deadline.isReached(at: now)
        else { return }
        fire(ticket, on: thread, into: &decisions)
    }

    /// Starts a wait node under `id`'s waiting slot, replacing the one waiting there.
    mutating func startWait(
        _ id: AnyHashable, _ deadline: EffectDeadline, _ effect: EffectSteps, parent: Ticket?,
        startedBy action: UInt64, on thread: ThreadID, into decisions: inout Decisions
    ) {
        let ticket = newTicket()
        var name = Name.waiting(id)
        if hasAncestor(parent, named: id, waiting: true) {
            name = .none
        } else if let old = waiting.updateValue(ticket, forKey: id) {
            // Replaced while it waits: a newer effect takes its place, and its booking.
            let booking = bookings[id]
            _ = cancelTree(old, on: thread, into: &decisions)
            if let booking { bookings[id] = booking }
        }
        insert(
            Node(
                serial: ticket.serial, state: .running, name: name, parent: parent,
                kind: .wait, startedBy: startedBy(action, parent)),
            at: ticket)
        composites[ticket.slot] = .wait(deadline, id: id, then: effect)
        decisions.timers.append((ticket, deadline))
    }

    /// The wait of `ticket` is over: its effect starts under its id, in its place, replacing what
    /// runs under the id.
    mutating func fire(_ ticket: Ticket, on thread: ThreadID, into decisions: inout Decisions) {
        guard case .wait(_, let id, let effect)? = composites[ticket.slot] else { return }
        let parent = nodes[ticket.slot].parent
        let action = nodes[ticket.slot].startedBy
        // The successor goes under the wait's parent before the wait leaves it, so that a step
        // waiting for both never sees none.
        let successor = startConcatenation(
            .given(id), effect, parent.map { .part(of: $0) } ?? .root, startedBy: action, on: thread,
            into: &decisions)
        if let task = nodes[ticket.slot].task { decisions.cancelled.append(task) }
        // Its effect moved to the successor, and the start it booked stays booked.
        if let index = waiting.index(forKey: id), waiting.values[index] == ticket {
            decisions.released.append(waiting.remove(at: index))
        }
        nodes[ticket.slot].name = .none
        composites[ticket.slot] = nil
        nodes[ticket.slot].kind = .operation
        remove(ticket, into: &decisions)
        if let successor { decisions.steps.append(successor) }
    }

    /// Records a throttle booking; the one replaced is released outside the lock.
    mutating func book(_ id: AnyHashable, _ booking: Booking, into decisions: inout Decisions) {
        if let old = bookings.updateValue(booking, forKey: id) { decisions.released.append(old) }
    }

    /// Drops the bookings whose interval is over at `now` (on `timing`'s clock).
    mutating func sweepBookings(at now: any Sendable, _ timing: any EffectTiming, into decisions: inout Decisions) {
        let over = bookings.filter { _, booking in timing.isBefore(now, booking.end) == false }
        for id in over.keys { bookings.removeValue(forKey: id) }
        decisions.released.append(over)
        sweepBookingsAt = max(64, 2 * bookings.count)
    }

    /// The concatenation of `ticket` has no part left running: its next step starts, or it ends.
    mutating func stepEnded(_ ticket: Ticket, into decisions: inout Decisions) {
        guard case .steps(let steps, _)? = composites[ticket.slot] else { return }
        let next = steps.dropFirst()
        guard nodes[ticket.slot].state == .running, !next.isEmpty else { return remove(ticket, into: &decisions) }
        composites[ticket.slot] = .steps(next, isStartingStep: true)
        decisions.steps.append(EffectStep(concatenation: ticket, steps: next))
    }

    /// Whether `ticket`, or one of its ancestors, has `id` in the same role (running, or waiting).
    func hasAncestor(_ ticket: Ticket?, named id: AnyHashable, waiting: Bool) -> Bool {
        var next = ticket
        while let ticket = next, contains(ticket) {
            switch nodes[ticket.slot].name {
            case .given(let other) where !waiting && other == id: return true
            case .waiting(let other) where waiting && other == id: return true
            case .anonymous(let anonymous) where !waiting && AnyHashable(anonymous) == id: return true
            default: next = nodes[ticket.slot].parent
            }
        }
        return false
    }

    /// Cancels the node of `ticket` and its subtree, on behalf of code running on `thread`: each
    /// node ends at once, parents before their parts, so that only the subtree's own parent hears of
    /// it (its step may end). A node whose action is being handled now ends when that handling
    /// ends; when that is on another thread, it is returned, for the caller to wait for (at most
    /// one: a store handles one action at a time).
    mutating func cancelTree(_ ticket: Ticket, on thread: ThreadID, into decisions: inout Decisions) -> Cancellation? {
        var awaited: Cancellation?
        var pending = [ticket]
        while let ticket = pending.popLast() {
            guard contains(ticket) else { continue }
            pending += nodes[ticket.slot].children
            if let task = nodes[ticket.slot].task { decisions.cancelled.append(task) }
            switch nodes[ticket.slot].state {
            case .running:
                remove(ticket, into: &decisions)
            case .delivering(let deliveringThread), .cancelled(let deliveringThread):
                unname(ticket, into: &decisions)
                nodes[ticket.slot].state = .cancelled(deliveringOn: deliveringThread)
                if deliveringThread != thread { awaited = .awaitingDelivery(on: deliveringThread, ticket) }
            }
        }
        return awaited
    }

    /// Removes the node of `ticket` from the tables that name it.
    mutating func unname(_ ticket: Ticket, into decisions: inout Decisions) {
        switch nodes[ticket.slot].name {
        case .given(let id):
            if let index = running.index(forKey: id), running.values[index] == ticket {
                decisions.released.append(running.remove(at: index))
            }
            decisions.released.append(id)
        case .waiting(let id):
            if let index = waiting.index(forKey: id), waiting.values[index] == ticket {
                decisions.released.append(waiting.remove(at: index))
                // A wait given up on lets go of the start it booked.
                if let index = bookings.index(forKey: id) { decisions.released.append(bookings.remove(at: index)) }
            }
            decisions.released.append(id)
        case .anonymous, .none:
            break
        }
        nodes[ticket.slot].name = .none
    }

    /// Removes the node of `ticket`, ended, from the tree, its name tables and its parent, and frees
    /// its slot; tells the parent a part of it ended.
    mutating func remove(_ ticket: Ticket, into decisions: inout Decisions) {
        guard contains(ticket) else { return }
        unnameIfNamed(ticket, into: &decisions)
        let parent = nodes[ticket.slot].parent
        switch nodes[ticket.slot].kind {
        case .operation, .immediate: break
        case .concatenation, .wait:
            if let composite = composites.removeValue(forKey: ticket.slot) { decisions.released.append(composite) }
        }
        nodes[ticket.slot].serial = 0
        nodes[ticket.slot].kind = .operation
        nodes[ticket.slot].task = nil
        nodes[ticket.slot].children = []
        freeSlots.append(ticket.slot)
        if freeSlots.count == nodes.count, nodes.count > 64 {
            // A burst of many effects does not keep its memory: with every slot free, the tables are
            // empty, and a dictionary keeps its capacity.
            nodes = []
            freeSlots = []
            running = [:]
            waiting = [:]
            composites = [:]
        }
        guard let parent, contains(parent) else { return }
        nodes[parent.slot].children.removeAll { $0 == ticket }
        guard nodes[parent.slot].children.isEmpty else { return }
        if nodes[parent.slot].kind == .concatenation, case .steps(_, isStartingStep: false)? = composites[parent.slot] {
            stepEnded(parent, into: &decisions)
        }
    }

    mutating func unnameIfNamed(_ ticket: Ticket, into decisions: inout Decisions) {
        switch nodes[ticket.slot].name {
        case .anonymous, .none: break
        case .given, .waiting: unname(ticket, into: &decisions)
        }
    }

    func contains(_ ticket: Ticket) -> Bool {
        ticket.slot < nodes.count && nodes[ticket.slot].serial == ticket.serial
    }

    func isImmediate(_ ticket: Ticket) -> Bool {
        nodes[ticket.slot].kind == .immediate
    }

    func isCancelledState(_ state: State) -> Bool {
        if case .cancelled = state { true } else { false }
    }

    /// The ticket of the running anonymous effect whose id is `id`, if any: a search, as such ids are
    /// not in ``running``; rare.
    func anonymousTicket(_ id: AnyHashable) -> Ticket? {
        (id.base as? AnonymousEffectID).flatMap(anonymousTicket)
    }

    func anonymousTicket(_ anonymous: AnonymousEffectID) -> Ticket? {
        let slot = nodes.indices.first { slot in
            guard nodes[slot].serial != 0, case .anonymous(let other) = nodes[slot].name else { return false }
            return other == anonymous
        }
        return slot.map { slot in Ticket(slot: slot, serial: nodes[slot].serial) }
    }
}

/// What the scheduler decided, for its runner to carry out once the lock is left, in this order:
/// cancel the tasks, release the values, start the timers, then start the steps.
///
/// Most events decide nothing: the lists are made on the first thing decided, so such an event makes
/// and destroys nothing.
@usableFromInline
struct EffectDecisions: @unchecked Sendable {
    /// The lists, made by the first decision; they never leave the thread that asked.
    @usableFromInline
    final class Lists: @unchecked Sendable {
        @usableFromInline var cancelled: [Task<Void, Never>] = []
        @usableFromInline var timers: [(EffectTicket, EffectDeadline)] = []
        @usableFromInline var steps: [EffectStep] = []
        @usableFromInline var released: [Any] = []
        @usableFromInline init() {}
    }

    @usableFromInline var lists: Lists?

    @inlinable init() {}

    /// Whether nothing was decided.
    @inlinable var isEmpty: Bool { lists == nil }

    @usableFromInline var made: Lists {
        mutating get {
            if let lists { return lists }
            let made = Lists()
            lists = made
            return made
        }
    }

    /// The tasks of cancelled effects.
    @usableFromInline var cancelled: [Task<Void, Never>] {
        get { lists?.cancelled ?? [] }
        _modify { yield &made.cancelled }
    }
    /// Timers to start: each sleeps until its deadline, then reports it reached.
    @usableFromInline var timers: [(EffectTicket, EffectDeadline)] {
        get { lists?.timers ?? [] }
        _modify { yield &made.timers }
    }
    /// Steps to start, in order: each is started as parts of its concatenation, which is then told
    /// (``EffectScheduler/stepStarted(_:into:)``).
    @usableFromInline var steps: [EffectStep] {
        get { lists?.steps ?? [] }
        _modify { yield &made.steps }
    }
    /// Values let go of: ids, effects never started. Released once the lock is left.
    @usableFromInline var released: [Any] {
        get { lists?.released ?? [] }
        _modify { yield &made.released }
    }
}

/// One start of an effect in a store's scheduler: its node's slot, and the serial number that tells
/// this start from every other (a slot is reused once its node has ended).
@usableFromInline
package struct EffectTicket: Sendable, Equatable {
    @usableFromInline let slot: Int
    /// Tells this start of an effect from every other of its store; a later start's is higher.
    @usableFromInline package let serial: UInt64

    @inlinable
    init(slot: Int, serial: UInt64) {
        self.slot = slot
        self.serial = serial
    }

    /// The ticket of an effect started after its store was released: it names no node, so the
    /// effect is cancelled at once and nothing it sends is handled.
    @usableFromInline static let unkept = EffectTicket(slot: .max, serial: 0)
}

/// An effect running or waiting in a store, as a test store reports it.
package struct RunningEffect: @unchecked Sendable {
    /// Its id (an anonymous one's when it was given none).
    package let id: AnyHashable
    /// The serial number of its start: a younger effect's is higher.
    package let serial: UInt64
    /// For a debounced or throttled effect's wait, its deadline.
    package let waitsUntil: EffectDeadline?
    /// The sequence number of the action whose handler started it (see ``StoreEngine``).
    package let startedBy: UInt64
    /// Whether it is a composed effect (a concatenation, or an effect started under a debounce's or
    /// throttle's id), whose parts are listed too.
    package let isComposed: Bool
}

/// The effects of a concatenation, from the next one to start on (or the one effect a wait starts
/// under its id), as the runner made them: an `[ActionEffect<Action>]` the scheduler does not look
/// into.
@usableFromInline
struct EffectSteps: @unchecked Sendable {
    /// The effects, an `[ActionEffect<Action>]`.
    @usableFromInline let effects: Any
    /// Where the steps not started yet begin, and how many effects there are.
    @usableFromInline let start: Int
    @usableFromInline let count: Int

    @inlinable
    init<Action>(_ effects: [ActionEffect<Action>]) {
        self.effects = effects
        start = 0
        count = effects.count
    }

    init(effects: Any, start: Int, count: Int) {
        self.effects = effects
        self.start = start
        self.count = count
    }

    var isEmpty: Bool { start >= count }

    /// The steps after the first.
    func dropFirst() -> EffectSteps {
        EffectSteps(effects: effects, start: start + 1, count: count)
    }

    /// The first step.
    @inlinable
    func first<Action>(as _: Action.Type) -> ActionEffect<Action> {
        (effects as! [ActionEffect<Action>])[start]
    }
}

/// A step to start: the first of `steps`, as parts of the concatenation of `concatenation`.
@usableFromInline
struct EffectStep: Sendable {
    @usableFromInline let concatenation: EffectTicket
    @usableFromInline let steps: EffectSteps
}

/// The scheduler lives inside its runner's lock: it never crosses threads.
@available(*, unavailable)
extension EffectScheduler: Sendable {}
