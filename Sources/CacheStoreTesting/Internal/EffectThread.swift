import Foundation

/// A task executor with a thread of its own, for one effect that a synchronous `receive` blocks on.
///
/// Run on the shared concurrency pool, the effect could wait forever for a free thread when the
/// pool's few threads are all blocked (two, on a two-core machine). Each effect gets a new thread, so
/// an effect stuck on its thread starves no other. The thread ends after ``close()``, once the jobs
/// queued so far have run.
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *)
final class EffectThread: TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var isClosed = false

    init() {
        let thread = Thread { [self] in runJobs() }
        thread.name = "CacheStoreTesting.receive"
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.withLock {
            jobs.append(job)
            condition.signal()
        }
    }

    /// Lets the thread end once its queued jobs have run; call it as the effect's task's last step.
    func close() {
        condition.withLock {
            isClosed = true
            condition.signal()
        }
    }

    private func runJobs() {
        while true {
            condition.lock()
            while jobs.isEmpty, !isClosed { condition.wait() }
            guard !jobs.isEmpty else {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
