/// Sends actions from a running ``ActionEffect/run(id:operation:)`` effect back to its store.
///
/// Call it like an async function. It returns once the action has been handled, or at once when the
/// effect was cancelled (then the action is dropped). It belongs to its effect's run: a `Send` kept
/// and called after the effect's operation returned (from a task the operation started, say) drops
/// its action too; keep the operation running until what it started has sent. While the store is busy with other actions
/// (another thread's, or the main actor's for a store on the main actor), `send` suspends: it never
/// blocks a thread, so a thousand effects sending to a busy store hold no thread of the concurrency
/// pool, and an effect cannot send faster than its store handles.
///
/// ```swift
/// return .run(id: "download") { send in
///     await send(.progress(0.5))
///     await send(.finished(await client.download()))
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
    @usableFromInline let deliver: @Sendable (Action) async -> Void

    /// Creates a `Send` that hands each action to `deliver`: for tests of an effect's operation on
    /// its own, without a store.
    ///
    /// ```swift
    /// let sent = Recorder<DownloadAction>()
    /// await operation(Send { action in sent.append(action) })
    /// ```
    ///
    /// - Parameter deliver: Receives every action sent; `send` returns when it returns.
    public init(_ deliver: @escaping @Sendable (Action) async -> Void) {
        self.deliver = deliver
    }

    /// Sends `action` to the store, and returns once it has been handled or dropped.
    ///
    /// - Parameter action: The action to handle.
    @inlinable
    public func callAsFunction(_ action: Action) async {
        await deliver(action)
    }
}
