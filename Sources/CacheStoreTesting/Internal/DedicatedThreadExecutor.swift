import Foundation

/// A task executor with a thread of its own, for running an effect while the caller blocks.
///
/// The synchronous `receive` must block its caller until an effect finishes. Run on the shared
/// concurrency pool, the effect could wait forever for a free thread when the pool's few threads
/// are all blocked (two, on a two-core machine). This executor's thread is always free for it.
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *)
final class DedicatedThreadExecutor: TaskExecutor, @unchecked Sendable {
    static let shared = DedicatedThreadExecutor()

    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []

    private init() {
        let thread = Thread { [unowned self] in runJobs() }
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

    private func runJobs() {
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
