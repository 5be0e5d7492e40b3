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
    case mainActor
}
