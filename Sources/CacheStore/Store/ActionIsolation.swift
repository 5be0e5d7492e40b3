/// Where a ``Store`` handles its actions.
///
/// ```swift
/// let store = Store(
///     initialValues: [:],
///     actionHandler: postsHandler,
///     dependency: .live,
///     isolation: .mainActor
/// )
/// ```
///
/// ## Topics
///
/// ### Isolations
///
/// - ``anyThread``
/// - ``mainActor``
public enum ActionIsolation: Sendable, Equatable {
    /// Actions are handled on the thread that sends them, or by the thread handling the store at that
    /// moment; effects' actions on their tasks' threads. The default, and the fastest.
    case anyThread

    /// Every action is handled on the main actor, for UI code that observes the store: its handler,
    /// its observers' `onChange` and its debug output all run on the main thread.
    ///
    /// `handle(action:)` called on the main thread handles the action at once. Called on any other
    /// thread, a background task for example, it sends the action to the main actor, in order, and
    /// returns at once. Effects still run off the main actor, in tasks of their own; an effect's
    /// ``Send`` waits until the main actor has handled its action (so a fast effect cannot flood the
    /// main queue), unless the main actor is waiting for that effect's thread.
    ///
    /// A store whose handler is isolated to the main actor (``StoreActionHandler/mainActor(_:)``)
    /// has this isolation without asking.
    case mainActor
}

extension ActionIsolation {
    /// Stops the program: a store that handles its actions on any thread was given a handler
    /// isolated to the main actor, which could not run where it is isolated.
    @usableFromInline
    static func stopForMainActorHandlerInAnyThreadStore() -> Never {
        preconditionFailure(
            "Store: the handler is isolated to the main actor (StoreActionHandler.mainActor), but the store "
                + "handles its actions on any thread (isolation: .anyThread). Make the store with "
                + "isolation: .mainActor, or leave isolation out; a scoped store handles its actions where "
                + "its root store does.")
    }

    /// Stops the program: a handler isolated to the main actor was called on another thread.
    static func stopForHandlerOffTheMainActor() -> Never {
        preconditionFailure(
            "StoreActionHandler.mainActor: the handler was called off the main actor. A store runs it on "
                + "the main actor; call handle(store:action:dependency:) on the main actor too.")
    }
}
