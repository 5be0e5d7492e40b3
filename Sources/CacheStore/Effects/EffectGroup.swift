/// The parts one step of a concatenation started: the step ends when every one has ended, and
/// cancelling the concatenation cancels them.
///
/// `lock` guards the fields below, held only to read or change them; parts are cancelled and the
/// waiting task resumed with it released.
@usableFromInline
final class EffectGroup: @unchecked Sendable {
    private let lock = Lock()
    private let runner: EffectRunner
    private var tickets: [EffectRunner.Ticket] = []
    /// Parts started and not yet ended, plus one while the step is still starting them.
    private var unfinished = 1
    private var waiter: CheckedContinuation<Void, Never>?
    private var cancelled = false

    @usableFromInline
    init(runner: EffectRunner) {
        self.runner = runner
    }

    /// Whether the concatenation was cancelled: a part not yet started is not started.
    @usableFromInline
    var isCancelled: Bool {
        lock.withLock { cancelled }
    }

    /// A part is starting; it calls ``partEnded()`` when it has ended, its last action handled.
    @usableFromInline
    func partStarted() {
        lock.withLock { unfinished += 1 }
    }

    /// The started part runs under `ticket`, to cancel with the concatenation (at once if it was).
    @usableFromInline
    func add(_ ticket: EffectRunner.Ticket) {
        let cancelNow = lock.withLock {
            if !cancelled { tickets.append(ticket) }
            return cancelled
        }
        if cancelNow { runner.cancel(ticket) }
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

    /// Waits until each part has ended. When the calling task is cancelled, meanwhile or before,
    /// cancels the parts.
    @usableFromInline
    func wait() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let isDone = lock.withLock {
                    if unfinished == 0 { return true }
                    waiter = continuation
                    return false
                }
                if isDone { continuation.resume() }
            }
        } onCancel: {
            cancel()
        }
    }

    private func cancel() {
        let tickets = lock.withLock {
            cancelled = true
            return self.tickets
        }
        for ticket in tickets { runner.cancel(ticket) }
    }
}
