/// Work a handler asks its store to do after an action: usually async, ending in another action.
///
/// Return one from a ``StoreActionHandler``, or `.none` (that is, `nil`) for no work:
///
/// ```swift
/// enum CancelID { case fetchPosts }
///
/// case .fetchPosts:
///     cacheStore.set(value: true, forKey: .isLoading)
///     return ActionEffect(id: CancelID.fetchPosts) {
///         .postsResponse(await dependency.fetchPosts())
///     }
/// case .refresh:
///     return ActionEffect(.fetchPosts)    // handled right after this action
/// case .startTimer:
///     return .run(id: CancelID.timer) { send in
///         for tick in 1... {
///             try? await Task.sleep(for: .seconds(1))
///             send(.tick(tick))
///         }
///     }
/// ```
///
/// Every effect has an ``id``. Starting an effect whose id is still running cancels the running one
/// first, and ``Store/cancel(id:)`` cancels one by id; a cancelled effect never delivers its action.
///
/// Effects compose: ``merge(_:)-(ActionEffect?...)`` runs several at once,
/// ``concatenate(id:_:)-(AnyHashable?,ActionEffect?...)`` one after another, ``map(_:)`` turns a
/// feature's actions into the app's, and ``debounce(id:for:clock:)`` and
/// ``throttle(id:for:clock:latest:)`` time them on any `Clock`. Every part of a composed effect keeps
/// its own id, so cancelling by id reaches it wherever it is.
///
/// `ActionEffect` declares no `none` member of its own: handlers return `ActionEffect<Action>?`, and
/// `.none` there is `Optional.none`, which is unambiguous.
///
/// ## Topics
///
/// ### Creating an effect
///
/// - ``init(id:effect:)``
/// - ``init(_:)``
/// - ``run(id:operation:)``
/// - ``cancel(id:)``
///
/// ### Composing effects
///
/// - ``merge(_:)-(ActionEffect?...)``
/// - ``merge(_:)-([ActionEffect])``
/// - ``concatenate(id:_:)-(AnyHashable?,ActionEffect?...)``
/// - ``concatenate(id:_:)-(AnyHashable?,[ActionEffect])``
/// - ``map(_:)``
///
/// ### Timing
///
/// - ``debounce(id:for:clock:)``
/// - ``throttle(id:for:clock:latest:)``
///
/// ### Identity
///
/// - ``id``
public struct ActionEffect<Action> {
    /// The identity under which the effect runs; a new effect with the same id replaces it.
    ///
    /// A merged effect (``merge(_:)-(ActionEffect?...)``) runs as its parts, each under its own id:
    /// its own id names nothing a store runs. An effect without an id has one of its own: giving it
    /// to a new effect replaces this one, as `cancel(id:)` with it cancels it, and returning the same
    /// effect again (made once, returned by two actions) replaces its run still going.
    ///
    /// A store looks ids up in a table of its running effects while it holds that table's lock: an
    /// id's `hash(into:)` and `==`, like any `Hashable` value's, must depend on the value alone and
    /// never call a store.
    @inlinable public var id: AnyHashable { identity.id }
    /// The id given, or the anonymous identity made for the effect (see ``EffectIdentity``).
    @usableFromInline package let identity: EffectIdentity
    /// What the effect does; `package` so that `TestStore` can run effects itself.
    @usableFromInline package let operation: Operation

    /// The kinds of work an effect does.
    @usableFromInline package enum Operation {
        /// An action to handle at once, right after the current one.
        case action(Action)
        /// An async operation that may end in one action.
        case single(@Sendable () async -> Action?)
        /// An async operation that sends any number of actions over time.
        case sequence(@Sendable (Send<Action>) async -> Void)
        /// Cancel the effect running under the effect's id.
        case cancel
        /// Several effects, each started as if returned alone.
        case merged([ActionEffect])
        /// Several effects, each started when the one before it has ended, under the effect's id.
        case concatenated([ActionEffect])
        /// Waits (for a debounce's or a throttle's deadline) and produces no action; it throws when
        /// cancelled. Only inside a concatenation.
        case delay(EffectWait)
        /// What to start, decided when the effect starts, not when it is made (`nil`: nothing): a
        /// debounced effect's deadline, read from its clock then; a throttled effect, decided against
        /// the store's throttle schedule then. So an effect made once and returned later is timed
        /// from the handler that returned it.
        case decidedAtStart(@Sendable (ThrottleSchedule) -> ActionEffect?)
        /// A throttled effect that waits for its turn (it throws when cancelled), then starts
        /// `ActionEffect` under the effect's id, replacing what runs under it. While it waits, it
        /// replaces only the one waiting under the id.
        indirect case deferred(EffectWait, ActionEffect)
    }

    /// An effect that runs `effect` concurrently and handles the action it returns, if any.
    ///
    /// ```swift
    /// return ActionEffect(id: CancelID.fetchPosts) {
    ///     .postsResponse(await dependency.fetchPosts())
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - id: The effect's identity; `nil` (the default) for a new anonymous id, equal only to
    ///     itself, so it replaces nothing.
    ///   - effect: The work. It runs in its own task, so it can check `Task.isCancelled`.
    @inlinable
    public init(id: AnyHashable? = nil, effect: @escaping @Sendable () async -> Action?) {
        self.init(id: id, operation: .single(effect))
    }

    /// An effect that delivers `action` at once: it is handled right after the current action, before
    /// the outermost ``Store/handle(action:)`` returns.
    ///
    /// - Parameter action: The action to handle next.
    @inlinable
    public init(_ action: Action) {
        self.init(id: nil, operation: .action(action))
    }

    /// An effect that may send any number of actions while it runs.
    ///
    /// ```swift
    /// return .run(id: CancelID.download) { send in
    ///     for await progress in dependency.download() {
    ///         send(.progress(progress))
    ///     }
    ///     send(.finished)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - id: The effect's identity; `nil` (the default) for a new anonymous id, equal only to
    ///     itself, so it replaces nothing.
    ///   - operation: The work; it sends actions through the ``Send`` it is given. Once the effect is
    ///     cancelled, what it sends is dropped.
    /// - Returns: The effect.
    @inlinable
    public static func run(
        id: AnyHashable? = nil,
        operation: @escaping @Sendable (_ send: Send<Action>) async -> Void
    ) -> ActionEffect {
        ActionEffect(id: id, operation: .sequence(operation))
    }

    /// An effect that cancels the effect running under `id`, if any: the way a handler stops an
    /// effect it started.
    ///
    /// ```swift
    /// case .cancelFetch:
    ///     state.set(value: false, forKey: .isLoading)
    ///     return .cancel(id: CancelID.fetchPosts)
    /// ```
    ///
    /// - Parameter id: The id the effect to cancel was started with.
    /// - Returns: The effect.
    @inlinable
    public static func cancel(id: AnyHashable) -> ActionEffect {
        ActionEffect(id: id, operation: .cancel)
    }

    /// An effect doing `operation` under `id`, or under a new anonymous id when `id` is `nil`.
    @inlinable
    init(id: AnyHashable?, operation: Operation) {
        self.init(identity: EffectIdentity(id), operation: operation)
    }

    /// An effect doing `operation` under `identity`: another effect's, for an effect made from it.
    @inlinable
    init(identity: EffectIdentity, operation: Operation) {
        self.identity = identity
        self.operation = operation
    }
}

/// `AnyHashable` is not marked `Sendable`, but effect ids are immutable values by contract.
extension ActionEffect: @unchecked Sendable where Action: Sendable {}

/// Sendable exactly when the actions are, as the effect is.
extension ActionEffect.Operation: @unchecked Sendable where Action: Sendable {}

/// Sends actions from a running ``ActionEffect/run(id:operation:)`` effect back to its store.
///
/// Call it like a function. The action is handled before the call returns, unless the effect was
/// cancelled, in which case it is dropped. In a store whose actions are handled on the main actor
/// (``ActionIsolation/mainActor``), the action is handled on the main queue while the call waits,
/// so an effect cannot send faster than the main actor handles; the one exception is a main actor
/// blocked waiting for the effect's thread, where the call returns at once rather than deadlock.
///
/// ```swift
/// return .run(id: "download") { send in
///     send(.progress(0.5))
///     send(.finished(try await client.download()))
/// }
/// ```
///
/// ## Topics
///
/// ### Sending actions
///
/// - ``callAsFunction(_:)``
/// - ``init(_:)``
public struct Send<Action>: Sendable {
    private let deliver: @Sendable (Action) -> Void

    /// Creates a `Send` that hands each action to `deliver`.
    ///
    /// - Parameter deliver: Receives every action sent.
    public init(_ deliver: @escaping @Sendable (Action) -> Void) {
        self.deliver = deliver
    }

    /// Sends `action` to the store.
    ///
    /// - Parameter action: The action to handle.
    public func callAsFunction(_ action: Action) {
        deliver(action)
    }
}
