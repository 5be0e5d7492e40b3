extension ActionEffect {
    /// One effect that starts every effect of `effects` at once; they run concurrently.
    ///
    /// Each part keeps its own id: it starts (replacing an effect running under its id), and is
    /// cancelled by ``cancel(id:)`` or ``Store/cancel(id:)``, as if its handler had returned it alone.
    /// So one effect value given twice runs once, as one id names one running effect: its second
    /// start replaces its first. To run an operation twice, make two effects.
    /// The merged effect itself runs only as its parts: its own ``id`` names nothing to cancel. To
    /// cancel several effects under one id, give them to ``concatenate(id:_:)-(AnyHashable?,ActionEffect?...)``
    /// or cancel each by its id.
    /// So a handler can cancel one effect and start another in one action:
    ///
    /// ```swift
    /// case .refresh:
    ///     return .merge(
    ///         .cancel(id: CancelID.fetchPosts),
    ///         ActionEffect(id: CancelID.fetchPosts) { .postsResponse(await dependency.fetchPosts()) }
    ///     )
    /// ```
    ///
    /// - Parameter effects: The effects to start, in order; a `nil` is skipped.
    /// - Returns: The merged effect; with no effect at all, an effect that does nothing.
    public static func merge(_ effects: ActionEffect?...) -> ActionEffect {
        merge(effects.compactMap { $0 })
    }

    /// One effect that starts every effect of `effects` at once; see ``merge(_:)-(ActionEffect?...)``.
    ///
    /// ```swift
    /// return .merge(selectedIDs.map { id in ActionEffect(id: id) { .loaded(id, await dependency.load(id)) } })
    /// ```
    ///
    /// - Parameter effects: The effects to start, in order.
    /// - Returns: The merged effect; with no effects, an effect that does nothing.
    public static func merge(_ effects: [ActionEffect]) -> ActionEffect {
        guard effects.count != 1 else { return effects[0] }
        return ActionEffect(id: nil, operation: .merged(effects))
    }

    /// One effect that runs `effects` one after another: each starts when the one before it has
    /// ended and its last action has been handled.
    ///
    /// ```swift
    /// case .save:
    ///     return .concatenate(
    ///         id: CancelID.save,
    ///         ActionEffect { .saved(await dependency.save()) },
    ///         ActionEffect { .synced(await dependency.sync()) }
    ///     )
    /// ```
    ///
    /// The first part starts at once, as a lone effect would. Each part keeps its own id: cancelling
    /// it ends that part at once (its task is cancelled, and whatever it still sends is dropped), and
    /// the next one starts then, in the same turn. The concatenation runs under `id`: cancelling `id`
    /// cancels the running part and starts no other, and a new effect with `id` replaces the whole
    /// concatenation (cancel in flight). Each next step is decided when the step before it ends, in
    /// the store's turn, so a program of composed effects handles its actions in the same order on
    /// every run.
    ///
    /// - Parameters:
    ///   - id: The concatenation's identity; `nil` (the default) for a new anonymous id, so it replaces
    ///     nothing.
    ///   - effects: The effects to run, in order; a `nil` is skipped.
    /// - Returns: The concatenated effect.
    public static func concatenate(id: AnyHashable? = nil, _ effects: ActionEffect?...) -> ActionEffect {
        concatenate(id: id, effects.compactMap { $0 })
    }

    /// One effect that runs `effects` one after another; see
    /// ``concatenate(id:_:)-(AnyHashable?,ActionEffect?...)``.
    ///
    /// ```swift
    /// return .concatenate(id: CancelID.upload, files.map { file in ActionEffect { .uploaded(await dependency.upload(file)) } })
    /// ```
    ///
    /// - Parameters:
    ///   - id: The concatenation's identity; `nil` (the default) for a new anonymous id, so it replaces
    ///     nothing.
    ///   - effects: The effects to run, in order.
    /// - Returns: The concatenated effect.
    public static func concatenate(id: AnyHashable? = nil, _ effects: [ActionEffect]) -> ActionEffect {
        ActionEffect(id: id, operation: .concatenated(effects))
    }

    /// This effect, with each action it produces turned into another action type: how a feature's
    /// effect becomes an effect of the app that embeds the feature.
    ///
    /// ```swift
    /// let appEffect: ActionEffect<AppAction>? = searchEffect?.map(AppAction.search)
    /// ```
    ///
    /// Nothing else changes: every part keeps its id, so cancelling a part by id, replacing it, and
    /// a debounce or throttle all work as before the mapping. (A lifted feature's handler,
    /// ``StoreActionHandler/scope(label:keyTransformation:actionHandler:extractAction:embedAction:dependencyTransformation:)``,
    /// also puts its effects' ids in the lift's own namespace: see ``StoreActionHandler/effectID(_:)``.)
    ///
    /// - Parameter transform: Turns an action of this effect into the new action type. It runs in the
    ///   effect's task, once for each action it produces; an immediate action (`ActionEffect(action)`) is
    ///   turned when the effect is mapped.
    /// - Returns: The mapped effect.
    public func map<NewAction>(_ transform: @escaping @Sendable (Action) -> NewAction) -> ActionEffect<NewAction> {
        mapped(transform, renaming: { $0 })
    }

    /// This effect with its actions turned by `transform` and each id it was given turned by `rename`
    /// (an anonymous identity is kept: it is unique already).
    @usableFromInline
    func mapped<NewAction>(
        _ transform: @escaping @Sendable (Action) -> NewAction, renaming rename: (EffectIdentity) -> EffectIdentity
    ) -> ActionEffect<NewAction> {
        let operation: ActionEffect<NewAction>.Operation
        switch self.operation {
        case .action(let action):
            operation = .action(transform(action))
        case .single(let work):
            operation = .single { await work().map(transform) }
        case .singleThrowing(let work, let recover):
            operation = .singleThrowing(
                { try await work().map(transform) }, recover: { error in await recover(error).map(transform) })
        case .run(let work):
            operation = .run { send in await work(Self.mapping(send, transform)) }
        case .runThrowing(let work, let recover):
            operation = .runThrowing(
                { send in try await work(Self.mapping(send, transform)) },
                recover: { error, send in await recover(error, Self.mapping(send, transform)) })
        case .cancel:
            operation = .cancel
        case .merged(let effects):
            operation = .merged(effects.map { $0.mapped(transform, renaming: rename) })
        case .concatenated(let effects):
            operation = .concatenated(effects.map { $0.mapped(transform, renaming: rename) })
        case .debounced(let timing, let effect):
            operation = .debounced(timing, effect.mapped(transform, renaming: rename))
        case .throttled(let timing, let latest, let effect):
            operation = .throttled(timing, latest: latest, effect.mapped(transform, renaming: rename))
        }
        // The identity itself, not its `id`: an anonymous effect's id wrapped in an `AnyHashable`
        // would make the mapped effect one given that id, found only by a search of every running
        // effect.
        return ActionEffect<NewAction>(identity: rename(identity), operation: operation)
    }

    /// A `Send` of this effect's actions that sends each, turned by `transform`, through `send`.
    static func mapping<NewAction>(
        _ send: Send<NewAction>, _ transform: @escaping @Sendable (Action) -> NewAction
    ) -> Send<Action> {
        Send { action in await send(transform(action)) }
    }

    /// One effect that starts all of `effects`, or `nil` when there are none: what a handler built
    /// from several returns.
    static func merging(_ effects: [ActionEffect]) -> ActionEffect? {
        effects.isEmpty ? nil : merge(effects)
    }
}
