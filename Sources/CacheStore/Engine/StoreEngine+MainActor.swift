/// How a store whose actions are handled on the main actor (``ActionIsolation/mainActor``) takes
/// an action: on the main queue in its turn, after every action queued before it; from any other
/// thread, queued for the main queue, without waiting.
extension StoreEngine {
    @usableFromInline
    func handleOnMainActor(_ action: Action) {
        let work = { [self] in process(action, from: .sent) }
        guard MainQueue.isCurrent else { return queue.queueForMainQueue(work) }
        queue.performOnMainQueue(work)
    }
}

extension StoreEngine {
    /// Runs `work` in the tree's turn where the store handles its actions: for a store on the main
    /// actor, on the main queue (queued from another thread, without waiting), so that no other
    /// thread takes the turn and handles what waits for the main queue.
    ///
    /// - Parameter waiting: Whether a caller on another thread waits for `work` to be done when the
    ///   turn is another thread's (see ``ActionQueue/perform(waiting:_:)``).
    func performWhereActionsAreHandled(waiting: Bool = true, _ work: @escaping () -> Void) {
        guard isolation == .mainActor else { return queue.perform(waiting: waiting, work) }
        guard MainQueue.isCurrent else { return queue.queueForMainQueue(work) }
        queue.performOnMainQueue(work)
    }
}
