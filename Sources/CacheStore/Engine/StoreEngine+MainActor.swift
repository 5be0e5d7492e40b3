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
