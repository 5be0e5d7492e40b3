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
