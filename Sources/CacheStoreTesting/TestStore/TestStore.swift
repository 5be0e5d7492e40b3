import CacheStore
import Foundation

/// A store for tests: every action's state change is checked exhaustively, and effects wait in a
/// first-in, first-out queue until the test receives their actions.
///
/// ```swift
/// @Test func fetchPosts() async {
///     let store = TestStore(
///         initialValues: [.url: URL(string: "https://example.com/posts")!],
///         actionHandler: postsHandler,
///         dependency: .mock
///     )
///
///     store.send(.fetchPosts) { state in
///         state.set(value: true, forKey: .isLoading)
///     }
///     await store.receive(.postsResponse(.success([.mock]))) { state in
///         state.set(value: false, forKey: .isLoading)
///         state.set(value: [Post.mock], forKey: .posts)
///     }
/// }
/// ```
///
/// - ``send(_:fileID:file:line:column:expecting:)`` handles an action and checks that the state
///   after it equals the state before it with `expecting` applied — every key, not only the ones
///   the closure mentions. The action's effect is queued, not run.
/// - ``receive(_:fileID:file:line:column:expecting:)-709tl`` runs the oldest queued effect,
///   checks the action it produced, and handles that action as `send` does.
/// - Effects still queued when the test store ends are a failure, reported at the `send` or `receive`
///   that started each (see ``finish(fileID:file:line:column:)``).
///
/// Failures go to Swift Testing or XCTest, or to ``TestStoreFailure/handler``.
///
/// ## Topics
///
/// ### Creating a test store
///
/// - ``init(initialValues:actionHandler:dependency:fileID:file:line:column:)``
/// - ``init(store:fileID:file:line:column:)``
///
/// ### Sending and receiving
///
/// - ``send(_:fileID:file:line:column:expecting:)``
/// - ``receive(_:fileID:file:line:column:expecting:)-709tl``
/// - ``receive(_:fileID:file:line:column:expecting:)-45zxx``
/// - ``receive(_:after:on:fileID:file:line:column:expecting:)``
/// - ``effectTimeout``
///
/// ### Effects that end without an action
///
/// - ``runEffectExpectingNoAction(fileID:file:line:column:)-873mk``
/// - ``runEffectExpectingNoAction(fileID:file:line:column:)-2ce5m``
///
/// ### Checking only what the test asserts
///
/// - ``exhaustivity``
/// - ``skippedAssertionsOutput``
///
/// ### Queued effects
///
/// - ``queuedEffectIDs``
/// - ``cancel(id:)``
/// - ``finish(fileID:file:line:column:)``
/// - ``assertNoPendingEffects(fileID:file:line:column:)``
///
/// ### The store under test
///
/// - ``store``
/// - ``content(using:)``
/// - ``content(using:fileID:file:line:column:expecting:)``
/// - ``debug``
/// - ``debug(_:)``
public final class TestStore<Key: Hashable & SendableMetatype, Action, Dependency>: @unchecked Sendable {
    /// The store under test. Read its state with `get`; send actions through the test store.
    public let store: Store<Key, Action, Dependency>

    /// How long ``receive(_:fileID:file:line:column:expecting:)-709tl`` waits for an effect to
    /// finish before it fails. Ten seconds by default.
    public var effectTimeout: Duration {
        get { settings.withValue { $0.effectTimeout } }
        set { settings.withValue { $0.effectTimeout = newValue } }
    }

    /// The effects handlers started, oldest first, each waiting for a `receive` to run it (see
    /// ``EffectQueue``).
    let queue: LockedValue<EffectQueue<Action>>
    /// When each throttled effect may start, as a store keeps it.
    let throttles: ThrottleSchedule
    /// What the test can change: see ``effectTimeout`` and ``skippedAssertionsOutput``.
    @usableFromInline let settings = LockedValue(TestStoreSettings())
    /// ``exhaustivity``, as its ``Exhaustivity/word``: every `send` reads it, and an atomic load costs
    /// what a lock round did not (callgrind, `teststore-send`: 2,327 → 2,265 instructions).
    @usableFromInline let exhaustivityWord = AtomicWord(Exhaustivity.on.word)
    /// Runs the expectation closures, reusing one transaction.
    @usableFromInline let expectationRecorder = ExpectationRecorder<Key>()

    /// Creates a test store around a new store.
    ///
    /// - Parameters:
    ///   - initialValues: The state the store starts with, by key.
    ///   - actionHandler: The handler under test.
    ///   - dependency: The dependency the handler gets: a mock, or ``unimplemented(_:placeholder:fileID:file:line:column:)-2s8eh``
    ///     closures for what the test should not touch.
    ///   - fileID: Unused: leftover effects are reported where they started. Kept for source compatibility.
    ///   - file: Unused, as `fileID`.
    ///   - line: Unused, as `fileID`.
    ///   - column: Unused, as `fileID`.
    public convenience init(
        initialValues: [Key: Any],
        actionHandler: StoreActionHandler<Key, Action, Dependency>,
        dependency: Dependency,
        fileID: StaticString = #fileID,
        file: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) {
        self.init(
            store: Store(initialValues: initialValues, actionHandler: actionHandler, dependency: dependency),
            fileID: fileID, file: file, line: line, column: column)
    }

    /// Creates a test store around an existing store, scoped stores included.
    ///
    /// Effects the store is running already are not queued.
    ///
    /// Over a scoped store, each action goes on to the parent as in the app: the scope's
    /// `actionTransformation` picks the parent's action, the parent's handler handles it, and what it
    /// writes to the scope's keys is part of the state the test checks. The parent's effects run in the
    /// parent store, not in this test store's queue; to receive them too, test the app store with one
    /// handler built from the features' handlers.
    ///
    /// ```swift
    /// let cart = TestStore(store: shop.scope(keys: [.cart, .total], actionHandler: cartHandler,
    ///     dependencyTransformation: { _ in }, actionTransformation: { _ in .recalculate }))
    /// cart.send(.add("Tea")) { state in
    ///     state.set(value: ["Tea"], forKey: .cart)
    ///     state.set(value: 5, forKey: .total)  // the shop's reaction
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - store: The store to test.
    ///   - fileID: Unused: leftover effects are reported where they started. Kept for source compatibility.
    ///   - file: Unused, as `fileID`.
    ///   - line: Unused, as `fileID`.
    ///   - column: Unused, as `fileID`.
    public init(
        store: Store<Key, Action, Dependency>,
        fileID: StaticString = #fileID,
        file: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) {
        self.store = store
        let throttles = ThrottleSchedule()
        self.throttles = throttles
        queue = LockedValue(EffectQueue(throttles: throttles))
    }

    deinit {
        reportPendingEffects()
    }

    /// Sends `action` and checks the state after it exhaustively.
    ///
    /// The state after the action must equal the state before it with `expecting` applied. When it
    /// does not, one failure lists every differing key with its expected (`−`) and actual (`+`) value.
    /// Values compare as the debug log compares them: `==` for `Equatable` values (NaN equal to
    /// NaN), identity for instances of classes that are not `Equatable`, never equal across types,
    /// and part by part otherwise; a difference of type or identity is named in the message, which
    /// is at most 64 KB.
    /// The action's effect, if any, is queued, replacing a queued effect with the same id as a store
    /// replaces a running one: a later step of a concatenation, or a debounced effect still waiting,
    /// has not started, so it neither replaces nor is replaced until the effects before it were
    /// received.
    ///
    /// ```swift
    /// store.send(.fetchPosts) { state in
    ///     state.set(value: true, forKey: .isLoading)
    /// }
    /// store.send(.noop)  // expects no change at all
    /// ```
    ///
    /// - Parameters:
    ///   - action: The action to send.
    ///   - fileID: Where a failure is reported (defaults to the caller).
    ///   - file: Where a failure is reported (defaults to the caller).
    ///   - line: Where a failure is reported (defaults to the caller).
    ///   - column: Where a failure is reported (defaults to the caller).
    ///   - expecting: Applies the changes the action should make to the state before it.
    @inlinable
    public func send(
        _ action: Action,
        fileID: StaticString = #fileID,
        file: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column,
        expecting: (inout CacheStore<Key>) throws -> Void = { _ in }
    ) {
        handle(
            action, at: FailureLocation(fileID: fileID, filePath: file, line: line, column: column),
            expecting: expecting)
    }

    /// The ids of the queued effects, oldest first, without running them: what a store would be
    /// running now. A concatenation's later steps appear once the steps before them were received;
    /// a debounced or throttled effect waiting on its clock appears under its debounce's or
    /// throttle's id.
    ///
    /// ```swift
    /// store.send(.fetchPosts) { $0.set(value: true, forKey: .isLoading) }
    /// #expect(store.queuedEffectIDs == [AnyHashable(CancelID.fetchPosts)])
    /// ```
    public var queuedEffectIDs: [AnyHashable] {
        queue.withValue { $0.ids }
    }

    /// Cancels what runs under `id`, as `Store.cancel(id:)` does: the queued effect with `id`, a
    /// concatenation with `id` and every part of it, and a throttled effect waiting under `id`. They
    /// are neither received nor reported as left over; a step that has not started yet is left.
    ///
    /// - Parameter id: The id the effect was started with.
    public func cancel(id: AnyHashable) {
        changingQueue { $0.cancel(id) }
    }

    /// Checks that no effect is queued: each one left is reported and removed.
    ///
    /// Each leftover effect is one failure, reported at the `send` or `receive` whose action started
    /// it, naming that action and the effect's id:
    ///
    /// ```text
    /// Expected no queued effects when the test store ended, but the effect .load, started by .load, is still queued.
    /// Receive its action with receive(_:), or cancel it with cancel(id:).
    /// ```
    ///
    /// The test store does this itself when it is released; call it to check at a point of your choice.
    /// With ``exhaustivity`` off, the effects are removed without a failure (and logged when it shows
    /// skipped assertions).
    ///
    /// - Parameters:
    ///   - fileID: Unused: leftover effects are reported where they started. Kept for source compatibility.
    ///   - file: Unused, as `fileID`.
    ///   - line: Unused, as `fileID`.
    ///   - column: Unused, as `fileID`.
    public func finish(
        fileID: StaticString = #fileID,
        file: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) {
        reportPendingEffects()
    }

    /// The same as ``finish(fileID:file:line:column:)``.
    ///
    /// - Parameters:
    ///   - fileID: Unused, as in ``finish(fileID:file:line:column:)``.
    ///   - file: Unused, as in ``finish(fileID:file:line:column:)``.
    ///   - line: Unused, as in ``finish(fileID:file:line:column:)``.
    ///   - column: Unused, as in ``finish(fileID:file:line:column:)``.
    public func assertNoPendingEffects(
        fileID: StaticString = #fileID,
        file: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) {
        finish(fileID: fileID, file: file, line: line, column: column)
    }

    /// Handles `action` on the store without checking the state, and queues the effect as started at
    /// `location`.
    func handleUnchecked(_ action: Action, at location: FailureLocation) {
        if let effect = store.handleWithoutEffects(action).effect { enqueue(effect, startedBy: action, at: location) }
    }

    /// Handles `action` on the store, checks the state against `expecting`, and queues the effect.
    ///
    /// Inlinable, with what it calls on the way that passes, so that it specializes for the test's key
    /// and action types; failures take the out-of-line paths.
    @inlinable
    func handle(_ action: Action, at location: FailureLocation, expecting: (inout CacheStore<Key>) throws -> Void) {
        let exhaustivity = Exhaustivity(word: exhaustivityWord.load())
        let (check, effect) = store.handleWithoutEffects(
            action, expecting: expecting, recorder: expectationRecorder
        ) { expected, changes in
            StateCheck(
                expected, changes, currentValue: { store.currentValue($0) }, currentKeys: { Set(store.allValues.keys) },
                exhaustivity: exhaustivity)
        }
        if !check.passed { report(check, after: action, at: location) }
        // A consuming switch, as in `StoreEngine.process`: `if let` copied the effect, and destroyed the
        // copy and a `nil` effect through `Optional`'s value witnesses (callgrind, `teststore-send`:
        // 3,992 → 3,744 instructions per send).
        switch consume effect {
        case .some(let effect): enqueue(effect, startedBy: action, at: location)
        case .none: break
        }
    }

    /// Reports what `check` found wrong, and logs what it skipped.
    @usableFromInline
    func report(_ check: StateCheck<Key>, after action: Action, at location: FailureLocation) {
        if let error = check.thrown {
            TestStoreFailure.report(
                "The expectation for \(ValueDump.inline(action)) threw \(ValueDump.inline(error)).", at: location)
        }
        if !check.mismatches.isEmpty {
            TestStoreFailure.report(StateMismatch.message(after: action, check.mismatches), at: location)
        }
        if !check.skipped.isEmpty { logSkippedChanges(check.skipped, after: action, at: location) }
    }

    /// Queues `effect` as started by `action` at `location`.
    @usableFromInline
    func enqueue(_ effect: ActionEffect<Action>, startedBy action: Action, at location: FailureLocation) {
        enqueue(effect, origin: QueuedEffect.Origin(action: action, location: location))
    }

    /// Starts `effect` in the queue as a store would start it (see ``EffectQueue``).
    ///
    /// - Parameters:
    ///   - effect: The effect an action returned.
    ///   - origin: That action, and the `send` or `receive` that handled it.
    func enqueue(_ effect: ActionEffect<Action>, origin: QueuedEffect<Action>.Origin) {
        changingQueue { $0.start(effect, origin: origin) }
    }

    /// Runs `body` on the queue under its lock; what it removed is released once the lock is left (a
    /// user's closures, actions and ids, whose `deinit` may call this test store).
    @discardableResult
    func changingQueue<Result>(_ body: (inout EffectQueue<Action>) -> Result) -> Result {
        // The throttles decided meanwhile let go of what they replace once the lock is left, too.
        throttles.holdReleases()
        let (result, forgotten, removed) = queue.withValue { queue in
            (body(&queue), queue.takeForgottenThrottles(), queue.takeRemoved())
        }
        let held = throttles.releaseHeld()
        for id in forgotten { throttles.forget(id) }
        withExtendedLifetime((removed, held)) {}
        return result
    }

    /// Reports each queued effect at the `send` or `receive` that started it, and empties the queue.
    /// The actions a multi-action effect left queued are one effect.
    private func reportPendingEffects() {
        let pending = changingQueue { $0.removeAll() }
        let exhaustivity = self.exhaustivity
        var reported: [QueuedEffect<Action>] = []
        for effect in pending where !reported.contains(where: { $0.isSameEffect(as: effect) }) {
            reported.append(effect)
            guard exhaustivity == .on else {
                if exhaustivity.showsSkippedAssertions { logSkippedLeftover(effect) }
                continue
            }
            let advice =
                effect.wait == nil
                ? "Receive its action with receive(_:)"
                : "It waits on its clock: receive what it waits for with receive(_:after:on:)"
            TestStoreFailure.report(
                """
                Expected no queued effects when the test store ended, but \(effect.name), started by \
                \(ValueDump.inline(effect.origin.action)), is still queued.
                \(advice), or cancel it with cancel(id:).
                """,
                at: effect.origin.location)
        }
    }
}
