import CacheStore
import Foundation

/// A store for tests: it runs the store's own engine and the effects' own code, and checks every
/// action's state change exhaustively.
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
/// One scheduler: a test store handles each action exactly as a store does, and the store's engine
/// starts, replaces, cancels, times and delivers its effects as in the app. What the test store adds
/// is control and assertions:
///
/// - ``send(_:fileID:file:line:column:expecting:)`` handles an action and checks the change that
///   action made: the state before it with `expecting` applied must equal the state after it.
/// - Every other action that reaches the handler — an immediate action a handler returned, an
///   action an effect returned or sent — is *received*: the test store keeps it, first in, first
///   out, in the order the engine handled it, with the change it made, and
///   ``receive(_:fileID:file:line:column:expecting:)-709tl`` takes the oldest and checks it.
/// - **Two ordering facts.** Immediate actions are handled at once, before `send` returns (as in the
///   app), so they are received first. Effects make progress only when the test lets them (inside a
///   `receive`, a ``TestClock`` advance, `finish`), one step at a time, first started first: `send`
///   starts them but does not run them, so the order of received actions is the same on every run.
/// - Effects still running, or received actions not asserted, when the test store ends are one
///   failure naming each.
///
/// Failures go to Swift Testing or XCTest, or to ``TestStoreFailure/handler``.
///
/// Effects run on an executor the test store drives (task executors: macOS 15, iOS 18, tvOS 18,
/// watchOS 11, and Linux). Before those, they run on the concurrency pool, and a `receive` waits for
/// what they deliver, in the order they deliver it.
///
/// ## Topics
///
/// ### Creating a test store
///
/// - ``init(initialValues:actionHandler:dependency:fileID:file:line:column:)``
/// - ``init(store:fileID:file:line:column:)``
/// - ``dependency``
///
/// ### Persisted keys
///
/// - ``init(initialValues:actionHandler:dependency:persistence:saved:fileID:file:line:column:)``
/// - ``persisted``
/// - ``PersistedValues``
///
/// ### Sending and receiving
///
/// - ``send(_:fileID:file:line:column:expecting:)``
/// - ``receive(_:fileID:file:line:column:expecting:)-709tl``
/// - ``receive(_:fileID:file:line:column:expecting:)-45zxx``
/// - ``receive(_:after:on:fileID:file:line:column:expecting:)``
/// - ``receivedActions``
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
/// ### Running effects
///
/// - ``runningEffectIDs``
/// - ``queuedEffectIDs``
/// - ``cancel(id:)``
/// - ``finish(fileID:file:line:column:)-50c58``
/// - ``finish(fileID:file:line:column:)-7b4f3``
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
    /// The store under test. Read its state with `get`; send actions through the test store (an
    /// action sent with `store.handle(action:)` is received, as any action that does not come from
    /// `send`).
    public let store: Store<Key, Action, Dependency>

    /// How long a step waits for an effect that waits on something outside the test's control (real
    /// I/O, another thread, a clock that is not a ``TestClock``) before it fails. Ten seconds by
    /// default. An effect asleep on a test clock is not waited for: the step fails at once, saying to
    /// advance the clock.
    public var effectTimeout: Duration {
        get { settings.withLock { $0.effectTimeout } }
        set { settings.withLock { $0.effectTimeout = newValue } }
    }

    /// The dependency the handler gets; replace it between steps (a mock that answers differently the
    /// second time). The next action handled gets the new one.
    ///
    /// ```swift
    /// store.send(.save) { $0.set(value: true, forKey: .isSaving) }
    /// await store.receive(.saved(.success)) { $0.set(value: false, forKey: .isSaving) }
    /// store.dependency = .failing
    /// store.send(.save) { $0.set(value: true, forKey: .isSaving) }
    /// await store.receive(.saved(.failure)) { $0.set(value: false, forKey: .isSaving) }
    /// ```
    public var dependency: Dependency {
        get { store.testDependency }
        set { store.testDependency = newValue }
    }

    /// Runs the store's effects (see ``EffectPump``).
    @usableFromInline let pump: EffectPump
    /// The actions the store handled that the test has not asserted yet.
    @usableFromInline let received = Locked(ReceivedActions<Key, Action>())
    /// How many actions are pending in ``received``: read by every `send` without the lock.
    @usableFromInline let pendingCount = AtomicWord(0)
    /// What the test can change: see ``effectTimeout`` and ``skippedAssertionsOutput``.
    let settings = Locked(TestStoreSettings())
    /// ``exhaustivity``, as its ``Exhaustivity/word``.
    @usableFromInline let exhaustivityWord = AtomicWord(Exhaustivity.on.word)
    /// Runs the expectation closures, reusing one transaction.
    @usableFromInline let expectationRecorder = ExpectationRecorder<Key>()
    /// The task that last used the test store, as a key: a clock's advance in that task drives its
    /// effects (see ``PumpRegistry``).
    @usableFromInline let registeredTask = AtomicWord(.max)
    /// Where the test store was made: a leftover found when it is released is reported there.
    let creation: FailureLocation
    /// A key's value in the store now, and every key that has one: what a `send`'s check reads beyond
    /// the action's changes. Made once, so that a `send` captures nothing to pass them.
    @usableFromInline let currentValue: @Sendable (Key) -> Any?
    @usableFromInline let currentKeys: @Sendable () -> Set<Key>

    /// Creates a test store around a new store.
    ///
    /// - Parameters:
    ///   - initialValues: The state the store starts with, by key.
    ///   - actionHandler: The handler under test.
    ///   - dependency: The dependency the handler gets: a mock, or ``unimplemented(_:placeholder:fileID:file:line:column:)-2s8eh``
    ///     closures for what the test should not touch.
    ///   - fileID: Where leftovers found when the test store is released are reported.
    ///   - file: Where leftovers found when the test store is released are reported.
    ///   - line: Where leftovers found when the test store is released are reported.
    ///   - column: Where leftovers found when the test store is released are reported.
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
    /// Effects the store is running already run on as they were: only those started from now on are
    /// the test store's.
    ///
    /// Over a scoped store, each action goes on to the parent as in the app: the scope's
    /// `actionTransformation` picks the parent's action, the parent's handler handles it, and what it
    /// writes to the scope's keys is part of the state the test checks. The parent's effects run in the
    /// parent store, not in this test store; to receive them too, test the app store with one handler
    /// built from the features' handlers.
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
    ///   - fileID: Where leftovers found when the test store is released are reported.
    ///   - file: Where leftovers found when the test store is released are reported.
    ///   - line: Where leftovers found when the test store is released are reported.
    ///   - column: Where leftovers found when the test store is released are reported.
    public init(
        store: Store<Key, Action, Dependency>,
        fileID: StaticString = #fileID,
        file: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) {
        self.store = store
        currentValue = { store.currentValue($0) }
        currentKeys = { Set(store.allValues.keys) }
        creation = FailureLocation(fileID: fileID, filePath: file, line: line, column: column)
        let settings = settings
        pump = EffectPump(outsideTimeout: { settings.withLock { $0.effectTimeout } })
        let (received, pendingCount) = (received, pendingCount)
        store.attachTest(
            starter: pump.starter,
            observer: ActionObserver { observed in
                received.withLock { received in
                    received.received(observed)
                    pendingCount.store(UInt(received.pending.count))
                }
            })
    }

    deinit {
        reportLeftovers(at: creation, ending: "was released")
        store.detachTest()
        pump.release()
    }

    /// Sends `action` and checks the state after it exhaustively.
    ///
    /// The state after the action must equal the state before it with `expecting` applied. When it
    /// does not, one failure lists every differing key with its expected (`−`) and actual (`+`) value.
    /// Values compare as the debug log compares them: `==` for `Equatable` values (NaN equal to
    /// NaN), identity for instances of classes that are not `Equatable`, never equal across types,
    /// and part by part otherwise; a difference of type or identity is named in the message, which
    /// is at most 64 KB.
    ///
    /// The action is handled as a store handles it: its effects start (and replace, cancel and time
    /// what they would in the app) but do not run until the test lets them; its immediate actions
    /// are handled before `send` returns, and received. With ``exhaustivity`` on, a `send` while
    /// received actions are not asserted fails, naming them: the app would have handled them first.
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
        let location = FailureLocation(fileID: fileID, filePath: file, line: line, column: column)
        if registeredTask.load() == .max { registerPump() }
        let exhaustivity = Exhaustivity(word: exhaustivityWord.load())
        if exhaustivity == .on, pendingCount.load() != 0 { reportUnreceived(before: action, at: location) }
        let check = store.send(action, expecting: expecting, recorder: expectationRecorder) {
            expected, changes, sequence, startsEffect in
            // While actions are pending, the history rebuilds the state before them, this one's part.
            if pendingCount.load() != 0 { noteSent(action, changes, sequence, startsEffect) }
            if startsEffect { note(sequence, action, at: location) }
            return StateCheck(
                expected, changes, currentValue: currentValue, currentKeys: currentKeys, exhaustivity: exhaustivity)
        }
        if !check.passed { report(check, after: action, at: location) }
    }

    /// Notes that the calling task uses the test store: a ``TestClock`` advanced in it drives the
    /// store's effects. The first `send` does, and every step that runs effects (a `receive`, a
    /// `finish`).
    @usableFromInline
    func registerPump() {
        let task = PumpRegistry.currentTask
        guard registeredTask.load() != task else { return }
        registeredTask.store(task)
        PumpRegistry.register(pump)
    }

    /// The ids of the effects running or waiting now, oldest start first: the store's effects, from
    /// the test store's point of view.
    ///
    /// ```swift
    /// store.send(.fetchPosts) { $0.set(value: true, forKey: .isLoading) }
    /// #expect(store.runningEffectIDs == [AnyHashable(CancelID.fetchPosts)])
    /// ```
    public var runningEffectIDs: [AnyHashable] {
        store.runningEffects.map(\.id)
    }

    /// The same as ``runningEffectIDs``: the name of earlier versions, whose test store queued effects.
    @available(*, deprecated, renamed: "runningEffectIDs")
    public var queuedEffectIDs: [AnyHashable] {
        runningEffectIDs
    }

    /// The actions received and not asserted yet, oldest first.
    public var receivedActions: [Action] {
        received.withLock { $0.pending.map(\.action) }
    }

    /// Takes the pending action at `index`.
    func take(at index: Int) -> ObservedAction<Key, Action> {
        received.withLock { received in
            defer { pendingCount.store(UInt(received.pending.count)) }
            return received.take(at: index)
        }
    }

    /// Forgets every pending action; returns them.
    func takeAllReceived() -> [ObservedAction<Key, Action>] {
        received.withLock { received in
            defer { pendingCount.store(0) }
            return received.takeAll()
        }
    }

    /// Cancels what runs under `id`: the store's own `cancel(id:)`.
    ///
    /// - Parameter id: The id the effect was started with.
    public func cancel(id: AnyHashable) {
        store.cancel(id: id)
    }

    /// Notes that `action`, handled with `sequence` by a step at `location`, started an effect:
    /// effects it started are reported there.
    @usableFromInline
    func note(_ sequence: UInt64, _ action: Action, at location: FailureLocation) {
        let step = ReceivedActions<Key, Action>.Step(action: action, location: location)
        received.withLock { $0.steps[sequence] = step }
    }

    /// Adds the action a `send` handled to the history, while actions are pending.
    @usableFromInline
    func noteSent(_ action: Action, _ changes: [StateChange<Key>], _ sequence: UInt64, _ startsEffect: Bool) {
        let sent = ObservedAction(
            action: action, origin: .sent, sequence: sequence, changes: changes, effectID: nil,
            startsEffect: startsEffect)
        received.withLock { $0.sent(sent) }
    }

    /// Notes the step of `handled`, a received action taken at `location`, if it started an effect.
    func note(_ handled: ObservedAction<Key, Action>, at location: FailureLocation) {
        if handled.startsEffect { note(handled.sequence, handled.action, at: location) }
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

    /// With exhaustivity on, reports the received actions not asserted before a `send`, and forgets
    /// them: the app would have handled them before this action.
    @usableFromInline
    func reportUnreceived(before action: Action, at location: FailureLocation) {
        let unreceived = takeAllReceived()
        guard !unreceived.isEmpty else { return }
        let list = unreceived.map { "  \(ValueDump.inline($0.action)) \($0.source)" }.joined(separator: "\n")
        let first = ValueDump.inline(unreceived[0].action)
        TestStoreFailure.report(
            """
            Expected to send \(ValueDump.inline(action)), but \(unreceived.count == 1 ? "an action was" : "\(unreceived.count) actions were") received and not asserted:
            \(list)
            The store handled \(unreceived.count == 1 ? "it" : "them") before this action: receive \(first) first, \
            with receive(_:), or turn exhaustivity off.
            """,
            at: location)
    }
}
