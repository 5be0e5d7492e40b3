/// Work a handler asks its store to do after an action: usually async, ending in another action.
///
/// Return one from a ``StoreActionHandler``, or `.none` (that is, `nil`) for no work:
///
/// ```swift
/// enum CancelID { case fetchPosts, timer }
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
///             try await dependency.clock.sleep(for: .seconds(1))
///             await send(.tick(tick))
///         }
///     } catch: { _, _ in }
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
/// An effect is a description: the store decides when each part starts, waits, replaces another or
/// delivers, in one place (its scheduler), and a `TestStore` runs that same scheduler.
///
/// `ActionEffect` declares no `none` member of its own: handlers return `ActionEffect<Action>?`, and
/// `.none` there is `Optional.none`, which is unambiguous.
///
/// ## Topics
///
/// ### Creating an effect
///
/// - ``init(id:effect:)``
/// - ``init(id:effect:catch:)``
/// - ``init(_:)``
/// - ``run(id:operation:)``
/// - ``run(id:operation:catch:)``
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
    /// What the effect does: data the store's scheduler interprets (see ``EffectScheduler``).
    @usableFromInline package let operation: Operation

    /// The kinds of work an effect describes. Only the timed cases, which hold an effect, are
    /// `indirect`: a single effect's operation is stored in the enum itself, with no box to allocate.
    @usableFromInline package enum Operation {
        /// An action to handle at once, right after the current one.
        case action(Action)
        /// An async operation that may end in one action.
        case single(@Sendable () async -> Action?)
        /// An async operation that may end in one action, or throw: the error becomes the action
        /// `recover` returns. A case of its own, so that a non-throwing operation is stored as it is,
        /// with no reabstraction thunk to allocate and run.
        case singleThrowing(@Sendable () async throws -> Action?, recover: @Sendable (any Error) async -> Action?)
        /// An async operation that sends any number of actions over time.
        case run(@Sendable (Send<Action>) async -> Void)
        /// An async operation that sends actions over time, or throws: `recover` gets the error and
        /// may send more.
        case runThrowing(
            @Sendable (Send<Action>) async throws -> Void, recover: @Sendable (any Error, Send<Action>) async -> Void)
        /// Cancel the effect running under the effect's id.
        case cancel
        /// Several effects, each started as if returned alone.
        case merged([ActionEffect])
        /// Several effects, each started when the one before it has ended, under the effect's id.
        case concatenated([ActionEffect])
        /// The effect, started under the effect's id once `timing`'s duration has passed without
        /// another debounced effect under that id.
        indirect case debounced(any EffectTiming, ActionEffect)
        /// The effect, started under the effect's id at most once per `timing`'s duration.
        indirect case throttled(any EffectTiming, latest: Bool, ActionEffect)
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

    /// An effect whose work may throw: the action it returns is handled, or, when it throws, the
    /// action `catch` makes of the error.
    ///
    /// ```swift
    /// return ActionEffect(id: CancelID.fetchPosts) {
    ///     .postsLoaded(try await dependency.fetchPosts())
    /// } catch: { error in
    ///     .postsFailed(error.localizedDescription)
    /// }
    /// ```
    ///
    /// An error thrown after the effect was cancelled (a `CancellationError` from `Task.sleep`, say)
    /// is not handed to `catch`: a cancelled effect delivers nothing.
    ///
    /// - Parameters:
    ///   - id: The effect's identity; `nil` (the default) for a new anonymous id.
    ///   - effect: The work, in its own task.
    ///   - catch: Turns an error the work threw into the action to handle, or `nil` for none.
    @inlinable
    public init(
        id: AnyHashable? = nil,
        effect: @escaping @Sendable () async throws -> Action?,
        catch: @escaping @Sendable (_ error: any Error) async -> Action?
    ) {
        self.init(id: id, operation: .singleThrowing(effect, recover: `catch`))
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
    ///         await send(.progress(progress))
    ///     }
    ///     await send(.finished)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - id: The effect's identity; `nil` (the default) for a new anonymous id, equal only to
    ///     itself, so it replaces nothing.
    ///   - operation: The work; it sends actions through the ``Send`` it is given, and each `send`
    ///     returns once its action was handled. Once the effect is cancelled, what it sends is dropped.
    /// - Returns: The effect.
    @inlinable
    public static func run(
        id: AnyHashable? = nil,
        operation: @escaping @Sendable (_ send: Send<Action>) async -> Void
    ) -> ActionEffect {
        ActionEffect(id: id, operation: .run(operation))
    }

    /// An effect that may send any number of actions while it runs, and whose work may throw.
    ///
    /// ```swift
    /// return .run(id: CancelID.timer) { send in
    ///     while true {
    ///         try await dependency.clock.sleep(for: .seconds(1))
    ///         await send(.tick)
    ///     }
    /// } catch: { error, send in
    ///     await send(.timerFailed(error.localizedDescription))
    /// }
    /// ```
    ///
    /// An error thrown after the effect was cancelled (the `CancellationError` of a sleep, say) is
    /// not handed to `catch`: a cancelled effect delivers nothing.
    ///
    /// - Parameters:
    ///   - id: The effect's identity; `nil` (the default) for a new anonymous id.
    ///   - operation: The work; it sends actions through the ``Send`` it is given.
    ///   - catch: Handles an error the work threw; it may send actions too.
    /// - Returns: The effect.
    @inlinable
    public static func run(
        id: AnyHashable? = nil,
        operation: @escaping @Sendable (_ send: Send<Action>) async throws -> Void,
        catch: @escaping @Sendable (_ error: any Error, _ send: Send<Action>) async -> Void
    ) -> ActionEffect {
        ActionEffect(id: id, operation: .runThrowing(operation, recover: `catch`))
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
    package init(identity: EffectIdentity, operation: Operation) {
        self.identity = identity
        self.operation = operation
    }
}

/// `AnyHashable` is not marked `Sendable`, but effect ids are immutable values by contract.
extension ActionEffect: @unchecked Sendable where Action: Sendable {}

/// Sendable exactly when the actions are, as the effect is.
extension ActionEffect.Operation: @unchecked Sendable where Action: Sendable {}
