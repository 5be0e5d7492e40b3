/// The parts one step of a concatenation started: the step ends when every one has ended.
///
/// The parts are effects of their own in the store's ``EffectLifecycle``, each placed as a part of
/// the concatenation (``parent``), so cancelling the concatenation cancels them there, at once. The
/// group only counts them, for the concatenation's task to wait on.
///
/// `lock` guards the fields below, held only to read or change them; the waiting task is resumed
/// with it released.
@usableFromInline
final class EffectGroup: @unchecked Sendable {
    /// The concatenation whose step this is: the parts' placement.
    @usableFromInline let parent: EffectLifecycle.Ticket
    private let lock = Lock()
    /// Parts started and not yet ended, plus one while the step is still starting them.
    private var unfinished = 1
    private var waiter: CheckedContinuation<Void, Never>?
    private var cancelled = false

    @usableFromInline
    init(parent: EffectLifecycle.Ticket) {
        self.parent = parent
    }

    /// Where the step's parts go in the lifecycle.
    @usableFromInline
    var placement: EffectLifecycle.Placement { .part(of: parent) }

    /// A part is starting; it calls ``partEnded()`` when it has ended, its last action handled.
    @usableFromInline
    func partStarted() {
        lock.withLock { unfinished += 1 }
    }

    @usableFromInline
    func partEnded() {
        let waiter = lock.withLock {
            unfinished -= 1
            return unfinished == 0 ? self.waiter.take() : nil
        }
        waiter?.resume()
    }

    /// Runs `start`, which starts the step's parts; after it, ``wait()`` can end.
    @usableFromInline
    func start(_ start: () -> Void) {
        start()
        partEnded()  // every part is started
    }

    /// Waits until each part has ended, or until the calling task (the concatenation's) is
    /// cancelled: then its parts were cancelled with it.
    @usableFromInline
    func wait() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let isDone = lock.withLock {
                    if unfinished == 0 || cancelled { return true }
                    waiter = continuation
                    return false
                }
                if isDone { continuation.resume() }
            }
        } onCancel: {
            let waiter = lock.withLock {
                cancelled = true
                return self.waiter.take()
            }
            waiter?.resume()
        }
    }
}
