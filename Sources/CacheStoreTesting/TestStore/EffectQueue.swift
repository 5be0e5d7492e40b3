import CacheStore

/// The effects a test store holds instead of running them, oldest first: what a store would be
/// running now, each started when and as a store starts it.
///
/// A store starts the parts of a composed effect when their turn comes: a concatenation's step once
/// every part of the step before it has ended, a debounced effect once its wait is over, a throttled
/// one when the throttle lets it. Only then does a part replace the effect running under its id,
/// does a `.cancel(id:)` cancel, is a throttle decided. The queue does the same: it holds the running
/// step of each concatenation only (see ``RunningConcatenation``), and a wait as an effect of its
/// own, and starts what comes next once a `receive` has run, or a cancellation removed, what came
/// before: in its place in the queue, so that a concatenation's steps are received one after another.
///
/// ```swift
/// queue.start(.concatenate(ActionEffect { .saved }, .cancel(id: CancelID.sync)), origin: origin)
/// queue.ids    // [an effect without an id]: the cancellation waits until `.saved` was received
/// ```
///
/// A value type; its test store guards it with a lock. What it removes (effects and steps: a user's
/// closures, actions and ids, whose `deinit` may call the test store) is kept for ``takeRemoved()``,
/// to be released once that lock is left.
struct EffectQueue<Action> {
    typealias Origin = QueuedEffect<Action>.Origin

    /// The queued effects, oldest first.
    private(set) var effects: [QueuedEffect<Action>] = []
    /// The effect a `receive` took and runs, until ``finish(_:_:)``: a cancellation
    /// meanwhile may cancel a concatenation it is a part of.
    private var taken: QueuedEffect<Action>?
    /// Whether the taken effect was cancelled while it ran: nothing it produced is handled.
    private(set) var isTakenCancelled = false
    /// The concatenations running now (started, and neither ended nor cancelled): what a
    /// cancellation of an id finds, even while one starts its next step and has no part queued.
    private var concatenations: [RunningConcatenation<Action>] = []
    private var lastSerial = 0
    private var removed: [Any] = []
    /// The throttles whose booked start was let go (``takeForgottenThrottles()``).
    private var forgottenThrottles: [AnyHashable] = []
    /// The concatenations whose step ended during the change being made (a start, a cancellation,
    /// an effect's end), in order, with where their next step goes: a store's concatenation starts
    /// its next step in its own task, after that change (see ``startLaterSteps()``).
    private var stepsEnded: [(concatenation: RunningConcatenation<Action>, anchor: Int?)] = []
    /// Where the effect the taken one leaves in its concatenation goes: before the effect that came
    /// after it when it was taken, so that what handling its action queued at the front comes first.
    private var afterTaken: Int?
    /// The first effect that the last wait over started, if it was not taken since: the `receive`
    /// that ran the wait goes on with it (see ``takeFirst(advancing:)``).
    private var startedByWait: Int?
    /// When each throttled effect may start: read as a throttled effect starts.
    let throttles: ThrottleSchedule

    init(throttles: ThrottleSchedule) {
        self.throttles = throttles
    }

    /// The ids of the queued effects, oldest first.
    var ids: [AnyHashable] {
        effects.map(\.id)
    }

    /// Where a part starts: as a part of `concatenation`'s running step, if any, queued before the
    /// effect whose serial is `anchor`, or at the end.
    private struct Place {
        var concatenation: RunningConcatenation<Action>?
        var anchor: Int?
    }

    // MARK: - Starting

    /// Starts `effect`, which a handler returned for `origin`'s action, as a store would: at the end
    /// of the queue.
    ///
    /// An action effect (``ActionEffect/init(_:)``) goes to the front, after the action effects
    /// queued there: a store handles it right after the actions queued in its turn, before anything
    /// running delivers (see ``queueAction(_:at:)``).
    mutating func start(_ effect: ActionEffect<Action>, origin: Origin) {
        start(effect, origin: origin, at: Place(concatenation: nil, anchor: nil))
        startLaterSteps()
    }

    private mutating func start(_ effect: ActionEffect<Action>, origin: Origin, at place: Place) {
        effect.forEachPart { part in start(part, origin: origin, at: place) }
    }

    private mutating func start(_ part: ActionEffect<Action>.Part, origin: Origin, at place: Place) {
        let concatenation = place.concatenation
        switch part {
        case .action(let action):
            queueAction(
                QueuedEffect(id: AnonymousEffectID(), in: concatenation, origin: origin, delivering: action), at: place)
        case .cancel(let id):
            cancelRunning(id)
        case .single(let identity, let operation):
            startNamed(
                QueuedEffect(id: identity.id, in: concatenation, origin: origin) { _ in await operation() }, place)
        case .task(let identity, let work):
            startNamed(QueuedEffect(id: identity.id, in: concatenation, origin: origin, work: work), place)
        case .concatenation(let id, let steps):
            startConcatenation(id, steps[...], origin: origin, at: place)
        case .delay(let sleep):
            let name = concatenation?.id ?? AnyHashable(AnonymousEffectID())
            queue(QueuedEffect(waiting: .step, named: name, in: concatenation, origin: origin, sleep: sleep), at: place)
        case .decidedAtStart(let decide):
            if let effect = decide(throttles) { start(effect, origin: origin, at: place) }
        case .deferred(let id, let sleep, let effect):
            guard !isCancelled(place) else { return removed.append(effect) }
            // Replaces the throttled effect waiting under `id`, not the one running under it; the
            // new one keeps the start booked for it.
            remove(where: { $0.throttledID == id }, cancelling: [], forgettingThrottles: false)
            let wait = QueuedEffect<Action>.Wait.throttled(id: id, effect: effect)
            queue(QueuedEffect(waiting: wait, named: id, in: concatenation, origin: origin, sleep: sleep), at: place)
        }
    }

    /// Queues `effect`, replacing the effect running under its id, unless a concatenation it is a
    /// part of has that id (then the id names that concatenation).
    private mutating func startNamed(_ effect: QueuedEffect<Action>, _ place: Place) {
        guard !isCancelled(place) else { return removed.append(effect) }
        if place.concatenation?.isInside(effect.id) != true { removeRunning(named: effect.id) }
        queue(effect, at: place)
    }

    /// Starts a concatenation of `steps` under `id`, replacing what runs under `id` (unless a
    /// concatenation it is a part of has that id): its first step now. Returns it, unless its place
    /// was cancelled and it did not start.
    @discardableResult
    private mutating func startConcatenation(
        _ id: AnyHashable, _ steps: ArraySlice<ActionEffect<Action>>, origin: Origin, at place: Place
    ) -> RunningConcatenation<Action>? {
        guard !isCancelled(place) else {
            removed.append(steps)
            return nil
        }
        if place.concatenation?.isInside(id) != true { removeRunning(named: id) }
        let concatenation = RunningConcatenation(id: id, parent: place.concatenation, origin: origin, steps: steps)
        concatenations.append(concatenation)
        place.concatenation?.runningParts += 1
        // The first step starts now, as a store starts it; the others once the step before has ended.
        startNextStep(of: concatenation, before: place.anchor)
        return concatenation
    }

    /// Queues an action effect at the front, after the action effects queued there: a store handles
    /// it as it starts (a handler's, in the handler's turn; a step's, as the step starts), in the
    /// order they started, before any effect running already delivers. A store's turn handles the
    /// actions queued in it first in, first out: one that handling the first of two action effects
    /// returns comes after the second.
    private mutating func queueAction(_ effect: QueuedEffect<Action>, at place: Place) {
        var effect = effect
        effect.isImmediateAction = true
        let index = effects.prefix(while: \.isImmediateAction).count
        queue(effect, at: Place(concatenation: place.concatenation, anchor: nil), index: index)
    }

    /// Queues `effect` before `place.anchor`, or at the end, or at `index` when given.
    private mutating func queue(_ effect: QueuedEffect<Action>, at place: Place, index: Int? = nil) {
        guard !isCancelled(place) else { return removed.append(effect) }
        place.concatenation?.runningParts += 1
        var effect = effect
        lastSerial += 1
        effect.serial = lastSerial
        if effect.effectSerial == 0 { effect.effectSerial = lastSerial }
        let index =
            index ?? place.anchor.flatMap { anchor in effects.firstIndex { $0.serial == anchor } } ?? effects.count
        effects.insert(effect, at: index)
    }

    /// Whether `place` is in a concatenation cancelled meanwhile (by an earlier part of the same
    /// step, say): a store starts no part there, so it replaces nothing either.
    private func isCancelled(_ place: Place) -> Bool {
        place.concatenation?.isCancelledWithAncestors == true
    }

    // MARK: - Steps

    /// Starts the next step of `concatenation`, before `anchor`, unless one of its parts runs; when
    /// none is left, it has ended, a part of its parent's step.
    private mutating func startNextStep(of concatenation: RunningConcatenation<Action>, before anchor: Int?) {
        guard concatenation.runningParts == 0, !concatenation.isCancelledWithAncestors else { return }
        guard let step = concatenation.takeNextStep() else {
            forgetConcatenations { $0 === concatenation }
            return partEnded(in: concatenation.parent, before: anchor)
        }
        // Counted as running while its parts start, as a store's step is: a part replacing another
        // of the same step does not end the step.
        concatenation.runningParts += 1
        start(step, origin: concatenation.origin, at: Place(concatenation: concatenation, anchor: anchor))
        partEnded(in: concatenation, before: anchor)
    }

    /// Removes the running concatenations `isForgotten` picks; they are released with what else was
    /// removed, once the queue's lock is left (their ids and origin actions are a user's values).
    private mutating func forgetConcatenations(where isForgotten: (RunningConcatenation<Action>) -> Bool) {
        removed.append(concatenations.filter(isForgotten))
        concatenations.removeAll(where: isForgotten)
    }

    /// A part of `concatenation`'s running step has ended: once none runs, its next step starts once
    /// the change being made is done (see ``startLaterSteps()``).
    private mutating func partEnded(in concatenation: RunningConcatenation<Action>?, before anchor: Int?) {
        guard let concatenation, !concatenation.isCancelledWithAncestors else { return }
        concatenation.runningParts -= 1
        guard concatenation.runningParts == 0, !stepsEnded.contains(where: { $0.concatenation === concatenation })
        else { return }
        stepsEnded.append((concatenation, anchor))
    }

    /// Starts the next step of each concatenation whose step ended during the change just made, in
    /// the order they ended, and of those whose step ends meanwhile: a store's concatenation starts
    /// its next step in its own task, once the turn that ended the step before is over. So the
    /// actions a handler returns beside a `.cancel(id:)` that ends a step come before that next step's,
    /// and its parts replace what that handler started under their ids, not the other way round.
    private mutating func startLaterSteps() {
        while !stepsEnded.isEmpty {
            let (concatenation, anchor) = stepsEnded.removeFirst()
            startNextStep(of: concatenation, before: anchor)
        }
    }

    // MARK: - Cancelling

    /// Cancels what runs and waits under `id`, as `.cancel(id:)` and `cancel(id:)` do: the effect, the
    /// concatenation with every part of it, and the throttled effect waiting under `id`.
    mutating func cancel(_ id: AnyHashable) {
        cancelRunning(id)
        startLaterSteps()
    }

    /// ``cancel(_:)``'s work, for a `.cancel(id:)` part too.
    private mutating func cancelRunning(_ id: AnyHashable) {
        forgottenThrottles.append(id)
        remove(where: { $0.isNamed(id) || $0.throttledID == id }, cancelling: concatenations(named: id))
    }

    /// Removes what a new effect under `id` replaces: the effect or the concatenation running under it.
    private mutating func removeRunning(named id: AnyHashable) {
        remove(where: { $0.isNamed(id) }, cancelling: concatenations(named: id))
    }

    /// The running concatenations named `id`.
    private func concatenations(named id: AnyHashable) -> [RunningConcatenation<Action>] {
        concatenations.filter { $0.id == id }
    }

    /// Cancels `cancelled` and removes every part of them, and the effects `isRemoved` picks; then
    /// each concatenation that lost a part of its running step goes on once none is left.
    ///
    /// A throttled effect removed while it waited lets go of the start booked for it, unless
    /// `forgettingThrottles` is false (a newer one waiting in its place keeps it).
    private mutating func remove(
        where isRemoved: (QueuedEffect<Action>) -> Bool, cancelling cancelled: [RunningConcatenation<Action>],
        forgettingThrottles: Bool = true
    ) {
        for concatenation in cancelled { removed.append(concatenation.cancel()) }
        if !cancelled.isEmpty { forgetConcatenations(where: \.isCancelledWithAncestors) }
        var ended: [(concatenation: RunningConcatenation<Action>?, anchor: Int?)] = []
        var kept: [QueuedEffect<Action>] = []
        var gone: [QueuedEffect<Action>] = []
        var leaving = 0
        var isAfterTakenGone = false
        for effect in effects {
            if effect.concatenation?.isCancelledWithAncestors == true || isRemoved(effect) {
                gone.append(effect)
                leaving += 1
                if effect.serial == afterTaken { isAfterTakenGone = true }
            } else {
                // The parts removed before it end here: what follows them starts in their place.
                for left in gone.suffix(leaving) { ended.append((left.concatenation, effect.serial)) }
                leaving = 0
                kept.append(effect)
                // What the taken effect leaves goes where the first effect after it still queued is.
                if isAfterTakenGone { (afterTaken, isAfterTakenGone) = (effect.serial, false) }
            }
        }
        if isAfterTakenGone { afterTaken = nil }
        // The taken effect, cancelled or replaced while it runs: a store handles nothing it sends.
        if let taken, isRemoved(taken) || taken.concatenation?.isCancelledWithAncestors == true {
            isTakenCancelled = true
        }
        for left in gone.suffix(leaving) { ended.append((left.concatenation, nil)) }
        effects = kept
        if forgettingThrottles { forgottenThrottles += gone.compactMap(\.throttledID) }
        removed.append(contentsOf: gone)
        // A cancelled concatenation is a part of its parent's step that has ended.
        for concatenation in cancelled { ended.append((concatenation.parent, effects.first?.serial)) }
        for (concatenation, anchor) in ended { partEnded(in: concatenation, before: anchor) }
    }

    // MARK: - Running

    /// How a taken effect ended (see ``finish(_:_:)``).
    enum Ending {
        /// It ran to its end, and its action, if any, was handled.
        case ran
        /// It was a wait, and the wait is over.
        case waitIsOver
        /// The test store gave up on it (a timeout, a cancelled `receive`).
        case gaveUp
    }

    /// Takes the effect a `receive` runs next; ``finish(_:_:)`` ends it. In order:
    ///
    /// 1. what the wait it just ran started (the effect a debounce waited for), as a store starts it
    ///    as the wait ends;
    /// 2. an action effect at the front: a store handles it before any clock moves;
    /// 3. with an advance, when the oldest effect is a wait, the wait that advance ends first (one
    ///    the clock has passed already first), as it is the first to end in a store. When the oldest
    ///    effect is not a wait, only a wait that ends before the advance does and whose start
    ///    replaces that effect (a throttle's "cancel in flight" of the throttled effect still
    ///    sleeping): any other effect may deliver before the clock moves, and is run first;
    /// 4. without one, the oldest effect that does not wait on a clock: a wait (a debounce's, a
    ///    throttle's) is not over before the effects started after it have run; else the wait whose
    ///    clock has passed its end first, as in a store it has ended already;
    /// 5. the oldest effect.
    ///
    /// - Parameter advance: The clock the `receive` moves, and how far, if it moves one.
    mutating func takeFirst(advancing advance: (clock: AnyObject, by: Duration)?) -> QueuedEffect<Action>? {
        guard !effects.isEmpty else { return nil }
        let index =
            startedByWait.take().flatMap { next in effects.firstIndex { $0.serial == next } }
            ?? (effects[0].isImmediateAction ? 0 : nil)
            ?? advance.flatMap { advance in
                let oldest = effects[0]
                return soonestWait { waiting, wait in
                    wait.timeLeft(on: advance.clock).flatMap { left in
                        let isFirstToEnd =
                            oldest.wait != nil
                            ? left <= advance.by : left < advance.by && oldest.isReplaced(byStartOf: waiting)
                        return isFirstToEnd ? left : nil
                    }
                }
            }
            ?? (advance == nil ? effects.firstIndex { $0.wait == nil } : nil)
            ?? (advance == nil ? soonestWait { _, wait in wait.isOver ? .zero : nil } : nil) ?? 0
        taken = effects.remove(at: index)
        afterTaken = index < effects.count ? effects[index].serial : nil
        return taken
    }

    /// The index of the queued wait that ends first by `timeLeft` (given the wait's effect and its
    /// deadline), which is `nil` for a wait that does not end; of two that end together, the older.
    private func soonestWait(where timeLeft: (QueuedEffect<Action>, EffectWait) -> Duration?) -> Int? {
        var soonest: (index: Int, left: Duration)?
        for (index, effect) in effects.enumerated() {
            guard let wait = effect.wait, let left = timeLeft(effect, wait.until) else { continue }
            if soonest.map({ left < $0.left }) ?? true { soonest = (index, left) }
        }
        return soonest?.index
    }

    /// Queues the actions the taken `effect` produced after the first, first and in order: the rest of
    /// its part, received one by one.
    mutating func requeue(_ rest: some Collection<Action>, from effect: QueuedEffect<Action>) {
        // Cancelled while it ran: a store drops what it sends.
        guard effect.concatenation?.isCancelledWithAncestors != true else { return }
        let place = Place(concatenation: effect.concatenation, anchor: effects.first?.serial)
        for action in rest {
            var part = QueuedEffect(id: effect.id, in: effect.concatenation, origin: effect.origin, delivering: action)
            part.effectSerial = effect.effectSerial
            queue(part, at: place)
        }
    }

    /// The taken `effect` has ended: its part of its concatenation's step ended, and what follows it
    /// starts where the effect was. A wait that is over starts the throttled effect it waited for.
    ///
    /// An effect given up on never ends, as far as the queue knows: no later step of its
    /// concatenation, or of one that concatenation runs in, starts; the other parts of its step stay
    /// queued, as a store still runs them.
    ///
    /// - Returns: For a wait that is over, whether what it led to still runs (the step after it, the
    ///   throttled effect): `false` when that ended at once, a debounced `.cancel(id:)` say.
    @discardableResult
    mutating func finish(_ effect: QueuedEffect<Action>, _ ending: Ending) -> Bool {
        let anchor = afterTaken
        let lastSerialBefore = lastSerial
        (taken, afterTaken, isTakenCancelled, startedByWait) = (nil, nil, false, nil)
        guard ending != .gaveUp else {
            // A throttled effect's wait given up on lets go of the start booked for it, as a cancelled
            // one does.
            if let id = effect.throttledID { forgottenThrottles.append(id) }
            // Cancelled meanwhile, it has already ended its part of its parent's step.
            guard let concatenation = effect.concatenation, !concatenation.isCancelledWithAncestors else {
                return false
            }
            var next: RunningConcatenation? = concatenation
            while let stalled = next {
                removed.append(stalled.startNoLaterStep())
                next = stalled.parent
            }
            return false
        }
        var ledTo = effect.concatenation
        if ending == .waitIsOver, case .throttled(let id, let throttled)? = effect.wait?.leadsTo,
            effect.concatenation?.isCancelledWithAncestors != true
        {
            ledTo = startConcatenation(
                id, [throttled][...], origin: effect.origin,
                at: Place(concatenation: effect.concatenation, anchor: anchor))
        }
        partEnded(in: effect.concatenation, before: anchor)
        startLaterSteps()
        guard ending == .waitIsOver, let ledTo, !ledTo.isCancelledWithAncestors,
            concatenations.contains(where: { $0 === ledTo })
        else { return false }
        startedByWait = effects.first { $0.serial > lastSerialBefore }?.serial
        return true
    }

    /// Empties the queue, and cancels every running concatenation; returns what the queue held.
    mutating func removeAll() -> [QueuedEffect<Action>] {
        for concatenation in concatenations { removed.append(concatenation.cancel()) }
        forgetConcatenations { _ in true }
        forgottenThrottles += effects.compactMap(\.throttledID)
        defer { effects = [] }
        return effects
    }

    /// The ids of the throttles whose booked start was let go since the last call: the caller tells
    /// the throttle schedule once its lock is left, as forgetting releases a user's clock's instants.
    mutating func takeForgottenThrottles() -> [AnyHashable] {
        guard !forgottenThrottles.isEmpty else { return [] }
        defer { forgottenThrottles = [] }
        return forgottenThrottles
    }

    /// What was removed since the last call, to be released once the caller's lock is left.
    mutating func takeRemoved() -> [Any] {
        guard !removed.isEmpty else { return [] }
        defer { removed = [] }
        return removed
    }
}

extension QueuedEffect {
    /// Whether it is the effect running under `id` (a wait is named after what it waits for, and is
    /// reached through that).
    func isNamed(_ id: AnyHashable) -> Bool {
        wait == nil && self.id == id
    }
}
