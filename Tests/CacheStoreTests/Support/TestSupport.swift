import CacheStore
import Foundation

enum Key: Hashable, Sendable {
    case count, name, flag, list, url, other
    case item(Int)
}

struct Post: Equatable, Sendable {
    var id: Int
    var title: String
}

/// Polls `condition` until it holds or `timeout` passes; returns whether it held. The default is
/// generous: it only costs time when a test fails, and under ThreadSanitizer on a two-core machine
/// an effect can take seconds to be scheduled (a TSan run in CI once stalled every test for about
/// 30 s at its start, and three concatenation tests waiting 30 s failed).
func eventually(timeout: Duration = .seconds(120), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return condition()
}

/// A thread-safe list that tests append to from handlers, effects and observers.
final class Recorder<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [Value] = []

    func append(_ value: Value) {
        lock.lock()
        storage.append(value)
        lock.unlock()
    }

    var values: [Value] {
        lock.lock()
        defer { lock.unlock() }
        return storage
    }
}

/// A one-shot signal an effect can wait on, so tests control when effects finish.
final class Gate: @unchecked Sendable {
    private let lock = NSLock()
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func open() {
        lock.lock()
        isOpen = true
        let waiting = waiters
        waiters = []
        lock.unlock()
        for waiter in waiting { waiter.resume() }
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            lock.lock()
            if isOpen {
                lock.unlock()
                continuation.resume()
            } else {
                waiters.append(continuation)
                lock.unlock()
            }
        }
    }
}

/// Plain strings as errors, as the seed README's users write them: `.failure("no url")`.
// swift-format-ignore: AvoidRetroactiveConformances
extension String: @retroactive Error {}

/// Runs CPU-bound `body` on a thread of its own and waits for it, so that a long synchronous loop
/// does not occupy the concurrency pool that effects and other tests need (two threads on a
/// two-core machine). On Linux the thread's stack is the pool threads' (8 MB).
func offThePool<Result: Sendable>(_ body: @escaping @Sendable () -> Result) async -> Result {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}

/// Whether `body`, run on a thread of its own, returns within two seconds: how a value's `deinit`
/// (or other user code) probes the store without hanging the test when a lock it needs is held.
func returnsWithinTwoSeconds(_ body: @escaping @Sendable () -> Void) -> Bool {
    let done = DispatchSemaphore(value: 0)
    Thread {
        body()
        done.signal()
    }
    .start()
    return done.wait(timeout: .now() + 2) == .success
}

/// Runs `body(0)` … `body(count - 1)` each on a new thread, and waits for all of them: unlike
/// `DispatchQueue.concurrentPerform`, whose iterations take Dispatch's worker threads (two on a
/// two-core machine, the very threads that run the concurrency pool's jobs on Linux), every index
/// has a thread from the start. It blocks: call it off the pool.
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let finished = DispatchGroup()
    for index in 0..<count {
        finished.enter()
        Thread {
            body(index)
            finished.leave()
        }
        .start()
    }
    finished.wait()
}

/// Whether this test process runs under ThreadSanitizer (`swift test --sanitize=thread`), whose
/// runtime allocates on the heap as threads sync: a heap measured in-process then counts the
/// sanitizer's own memory, by tens of bytes per effect.
let isUnderThreadSanitizer: Bool = {
    #if canImport(Glibc) || canImport(Darwin)
        return dlsym(dlopen(nil, RTLD_NOW), "__tsan_init") != nil
    #else
        return false
    #endif
}()

/// Sends `action` through `send` from a plain thread, and blocks that thread until the send returns:
/// for tests that fire an effect's kept `Send` from threads of their own. Never call it on the
/// concurrency pool.
func sendBlocking<Action>(_ send: Send<Action>, _ action: Action) {
    let done = DispatchSemaphore(value: 0)
    let work = SentAction(send: send, action: action)
    Task {
        await work.send(work.action)
        done.signal()
    }
    done.wait()
}

/// An action and the `Send` to send it through, handed to a task: the tests own their use.
private struct SentAction<Action>: @unchecked Sendable {
    let send: Send<Action>
    let action: Action
}
