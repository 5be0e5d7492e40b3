import CacheStore

/// The keys of the stores the effect attack suites build.
enum ScriptKey: Hashable, Sendable { case value, payload }

/// The actions of those stores: `start(n)` starts the effect a test gives, `got(name)` records `name`.
enum ScriptAction: Sendable {
    case start(Int)
    case got(String)
}

/// A class value kept in the state, to see whether the state is released.
final class ScriptPayload: Sendable {}

/// What an attack test's handler does: `start(n)` returns `effect(n)`; `got(name)` records `name`,
/// runs `onGot`, stores the name under `.value` and returns `reaction(name)`.
///
/// ```swift
/// let script = EffectScript { _ in ActionEffect { .got("done") } }
/// script.makeStore().handle(action: .start(0))
/// ```
final class EffectScript: Sendable {
    let log = Recorder<String>()
    let effect: @Sendable (Int) -> ActionEffect<ScriptAction>?
    let onGot: @Sendable (String) -> Void
    let reaction: @Sendable (String) -> ActionEffect<ScriptAction>?

    init(
        onGot: @escaping @Sendable (String) -> Void = { _ in },
        reaction: @escaping @Sendable (String) -> ActionEffect<ScriptAction>? = { _ in nil },
        effect: @escaping @Sendable (Int) -> ActionEffect<ScriptAction>?
    ) {
        self.effect = effect
        self.onGot = onGot
        self.reaction = reaction
    }

    func makeStore(
        isolation: ActionIsolation = .anyThread, initialValues: [ScriptKey: Any] = [:]
    ) -> Store<ScriptKey, ScriptAction, Void> {
        Store(
            initialValues: initialValues,
            actionHandler: StoreActionHandler { [self] state, action, _ in
                switch action {
                case .start(let number):
                    return effect(number)
                case .got(let name):
                    log.append(name)
                    onGot(name)
                    state.set(value: name, forKey: .value)
                    return reaction(name)
                }
            },
            dependency: (),
            isolation: isolation)
    }
}

extension EffectScript {
    /// One of two stores that send to each other: `.start(n)`, for `n > 0`, returns an effect that
    /// starts `n - 1` in the store `other` returns, then sends `.got("n")` to its own store.
    ///
    /// ```swift
    /// let peers = AttackBox<(Attacked?, Attacked?)>((nil, nil))
    /// let (left, right) = (EffectScript.peer { peers.value.1 }, EffectScript.peer { peers.value.0 })
    /// ```
    static func peer(of other: @escaping @Sendable () -> Store<ScriptKey, ScriptAction, Void>?) -> EffectScript {
        EffectScript { number in
            guard number > 0 else { return nil }
            return .run { send in
                other()?.handle(action: .start(number - 1))
                await send(.got("\(number)"))
            }
        }
    }
}
