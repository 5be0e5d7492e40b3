import CacheStoreTesting
import Foundation

enum LoadKey: Hashable, Sendable {
    case isLoading, items, error, page
}

struct LoadError: Error, Equatable {
    var reason: String
}

enum LoadID: Hashable { case load, stream }

/// Not `Equatable`: received actions are compared structurally.
enum LoadAction: Sendable {
    case load
    case loaded(Result<[Int], any Error>)
    case nextPage
    case stream(count: Int)
    case streamed(Int)
    case loadNothing
    case loadForever
    case touchDependency
    case stopLoading
    case loadAndPage
}

struct LoadDependency: Sendable {
    var fetch: @Sendable () async -> Result<[Int], any Error>
    var pageSize: @Sendable () -> Int
}

let loadHandler = StoreActionHandler<LoadKey, LoadAction, LoadDependency> { state, action, dependency in
    switch action {
    case .load:
        state.set(value: true, forKey: .isLoading)
        return ActionEffect(id: LoadID.load) { .loaded(await dependency.fetch()) }
    case .loaded(.success(let items)):
        state.set(value: false, forKey: .isLoading)
        state.set(value: items, forKey: .items)
    case .loaded(.failure(let error)):
        state.set(value: false, forKey: .isLoading)
        state.set(value: "\(error)", forKey: .error)
    case .nextPage:
        state.update(.page, as: Int.self) { $0 = ($0 ?? 0) + 1 }
    case .stream(let count):
        return .run(id: LoadID.stream) { send in
            for value in 1...count { await send(.streamed(value)) }
        }
    case .streamed(let value):
        state.update(.items, as: [Int].self) { $0 = ($0 ?? []) + [value] }
    case .loadNothing:
        return ActionEffect(id: LoadID.load) { nil }
    case .loadForever:
        return ActionEffect(id: LoadID.load) {
            try? await Task.sleep(for: .seconds(60))
            return nil
        }
    case .touchDependency:
        state.set(value: dependency.pageSize(), forKey: .page)
    case .stopLoading:
        state.set(value: false, forKey: .isLoading)
        return .cancel(id: LoadID.load)
    case .loadAndPage:
        // An effect, and an immediate action after it: the immediate action is handled first.
        return .merge(ActionEffect(id: LoadID.load) { .loaded(await dependency.fetch()) }, ActionEffect(.nextPage))
    }
    return .none
}

extension LoadDependency {
    static let mock = LoadDependency(fetch: { .success([1, 2, 3]) }, pageSize: { 20 })
}

func makeLoadStore(
    _ dependency: LoadDependency = .mock,
    initialValues: [LoadKey: Any] = [:],
    line: UInt = #line
) -> TestStore<LoadKey, LoadAction, LoadDependency> {
    TestStore(initialValues: initialValues, actionHandler: loadHandler, dependency: dependency, line: line)
}

/// A failure a test store reported: its message and line.
struct CapturedFailure: Equatable {
    var message: String
    var line: UInt
}

/// Every failure reported while `body` runs, in order, captured for this task only.
func captureFailures(_ body: () async -> Void) async -> [CapturedFailure] {
    let failures = LockedList<CapturedFailure>()
    let record: TestStoreFailure.SendableHandler = { message, _, line in
        failures.append(CapturedFailure(message: message, line: line))
    }
    await TestStoreFailure.withHandler(record) { await body() }
    return failures.values
}

/// Every failure reported while `body` runs, in order, captured for this task only: the synchronous
/// form, where a test store's synchronous steps (`finish()`, `receive`) are the ones called.
func captureFailuresSynchronously(_ body: () -> Void) -> [CapturedFailure] {
    let failures = LockedList<CapturedFailure>()
    let record: TestStoreFailure.SendableHandler = { message, _, line in
        failures.append(CapturedFailure(message: message, line: line))
    }
    TestStoreFailure.withHandler(record) { body() }
    return failures.values
}

final class LockedList<Element>: @unchecked Sendable {
    private let lock = NSLock()
    private var elements: [Element] = []

    func append(_ element: Element) {
        lock.withLock { elements.append(element) }
    }

    var values: [Element] {
        lock.withLock { elements }
    }
}

/// Polls `condition` until it holds or `timeout` passes; returns whether it held. Generous by
/// default: a loaded two-core machine (or ThreadSanitizer) may take seconds to run a task.
func eventually(within timeout: Duration = .seconds(30), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return condition()
}

/// Runs `body` in a task of its own and waits for its result, for at most `timeout`; `nil` when it
/// did not end in time. The task is cancelled on the way out: a test never waits without a bound for
/// a task, and never leaves one running.
func awaitResult<Value: Sendable>(
    within timeout: Duration = .seconds(30), _ body: @escaping @Sendable () async throws -> Value
) async -> Result<Value, any Error>? {
    let outcome = LockedList<Result<Value, any Error>>()
    let task = Task {
        do { outcome.append(.success(try await body())) } catch { outcome.append(.failure(error)) }
    }
    defer { task.cancel() }
    _ = await eventually(within: timeout) { !outcome.values.isEmpty }
    return outcome.values.first
}

/// A gate an effect awaits; open for good once opened.
final class AsyncGate: @unchecked Sendable {
    private let lock = NSLock()
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func open() {
        let waiting = lock.withLock {
            isOpen = true
            defer { waiters = [] }
            return waiters
        }
        for waiter in waiting { waiter.resume() }
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let isOpen = lock.withLock {
                if !self.isOpen { waiters.append(continuation) }
                return self.isOpen
            }
            if isOpen { continuation.resume() }
        }
    }
}

/// Records whether a `.startTicking` effect has stopped: it ticks on the real clock until cancelled.
final class TickerProbe: @unchecked Sendable {
    private let stopped = LockedList<Bool>()

    var hasStopped: Bool { !stopped.values.isEmpty }
    func didStop() { stopped.append(true) }
}

enum TickerAction: Sendable, Equatable {
    case startTicking
    case done
}

/// `.startTicking` starts an effect that sleeps on the real clock, 2 ms at a time, until cancelled,
/// and never sends anything: an effect that waits on something outside the test store.
let tickerHandler = StoreActionHandler<LoadKey, TickerAction, TickerProbe> { _, action, probe in
    switch action {
    case .startTicking:
        return .run(id: LoadID.stream) { _ in
            while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(2)) }
            probe.didStop()
        }
    case .done:
        return .none
    }
}
