extension ActionEffect {
    /// One thing starting an effect does. ``forEachPart(_:)`` turns any effect into these: the one
    /// interpretation of ``Operation`` that ``Store`` and `TestStore` share.
    @usableFromInline package enum Part {
        /// Handle this action right after the current one.
        case action(Action)
        /// Cancel the effect running under this id.
        case cancel(AnyHashable)
        /// Run `operation` in a task under `identity`, and handle the action it returns, if any.
        case single(EffectIdentity, operation: @Sendable () async -> Action?)
        /// Run `work` in a task under `identity`. It sends any number of actions, and returns its
        /// last one, if any (a `run` effect returns `nil`).
        case task(EffectIdentity, work: @Sendable (Send<Action>) async -> Action?)
        /// Under `id`, start each of `effects` once the one before it has ended.
        case concatenation(id: AnyHashable, [ActionEffect])
        /// Wait, producing no action, before what follows in a concatenation; throws when cancelled.
        case delay(EffectWait)
        /// Ask, now that the effect starts, what to start, if anything (a debounce reads its clock, a
        /// throttle the store's schedule).
        case decidedAtStart(@Sendable (ThrottleSchedule) -> ActionEffect?)
        /// Wait under `id`'s waiting slot (replacing only the effect waiting there), then start
        /// `effect` as a concatenation under `id`, replacing the one running under it.
        indirect case deferred(id: AnyHashable, wait: EffectWait, effect: ActionEffect)
    }

    /// Calls `body` with each part of the effect, in order; a merged effect's parts one by one.
    @inlinable
    package func forEachPart(_ body: (Part) -> Void) {
        switch operation {
        case .action(let action):
            body(.action(action))
        case .single(let operation):
            body(.single(identity, operation: operation))
        case .sequence(let operation):
            body(
                .task(
                    identity,
                    work: { send in
                        await operation(send)
                        return nil
                    }))
        case .cancel:
            body(.cancel(id))
        case .merged(let effects):
            for effect in effects { effect.forEachPart(body) }
        case .concatenated(let effects):
            body(.concatenation(id: id, effects))
        case .delay(let wait):
            body(.delay(wait))
        case .decidedAtStart(let decide):
            body(.decidedAtStart(decide))
        case .deferred(let wait, let effect):
            body(.deferred(id: id, wait: wait, effect: effect))
        }
    }
}

extension ActionEffect {
    /// Whether the effect only waits (a debounce's or throttle's delay).
    @usableFromInline
    var isDelay: Bool {
        if case .delay = operation { true } else { false }
    }
}

/// Sendable exactly when the actions are, as the effect is.
extension ActionEffect.Part: @unchecked Sendable where Action: Sendable {}
