/// Something that handles actions: a ``Store``, or a type of yours that forwards to one.
///
/// ```swift
/// func refreshAll(_ handlers: [any ActionHandling<AppAction>]) {
///     for handler in handlers { handler.handle(action: .refresh) }
/// }
/// ```
///
/// ## Topics
///
/// ### Handling actions
///
/// - ``handle(action:)``
/// - ``Action``
public protocol ActionHandling<Action> {
    /// The type of actions handled.
    associatedtype Action

    /// Handles `action`.
    ///
    /// - Parameter action: The action to handle.
    func handle(action: Action)
}
