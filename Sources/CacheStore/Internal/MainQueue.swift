import Dispatch

/// Whether the caller runs on the main queue, where the main actor's work runs.
///
/// `Thread.isMainThread` is not the test: on Linux, after `dispatchMain()` the main queue (and so the
/// main actor) is served by a worker thread. The queue is marked with a specific value instead.
enum MainQueue {
    private static let key = DispatchSpecificKey<Bool>()
    private static let marked: Void = DispatchQueue.main.setSpecific(key: key, value: true)

    /// Whether the calling code runs on the main queue.
    static var isCurrent: Bool {
        marked
        return DispatchQueue.getSpecific(key: key) == true
    }
}
