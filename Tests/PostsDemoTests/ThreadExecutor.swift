import Foundation

/// A task executor that runs every job on one thread of its own, in order, off the concurrency
/// pool: a synchronous test that waits on a process (`DemoRun`, `Tmux`) blocks this thread, not
/// one of the pool's two threads on a two-core machine. See ``OwnThreadTrait``.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
final class ThreadExecutor: TaskExecutor, @unchecked Sendable {
    /// The thread of the suites that start processes, which run one test at a time.
    static let processTests = ThreadExecutor()

    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []

    private init() {
        Thread { [self] in
            while true { nextJob().runSynchronously(on: asUnownedTaskExecutor()) }
        }
        .start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.withLock {
            jobs.append(job)
            condition.signal()
        }
    }

    private func nextJob() -> UnownedJob {
        condition.withLock {
            while jobs.isEmpty { condition.wait() }
            return jobs.removeFirst()
        }
    }
}
