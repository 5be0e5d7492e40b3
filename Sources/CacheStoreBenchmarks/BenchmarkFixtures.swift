import CacheStore
import Foundation

/// Keeps the optimizer from removing a value the benchmark computes and never uses.
@inline(never)
func blackHole<Value>(_ value: Value) {
    withExtendedLifetime(value) {}
}

/// `size` keys, each holding its own index as an `Int`.
func intValues(_ size: Int) -> [Int: Any] {
    Dictionary(uniqueKeysWithValues: (0..<size).map { ($0, $0 as Any) })
}

enum BenchAction: Sendable {
    case write(key: Int, value: Int)
    /// The same write as `write`, through a typed key.
    case typedWrite(key: Int, value: Int)
    /// Writes `key` and `key + 1`: an action whose commit writes several keys at once.
    case writeTwo(key: Int, value: Int)
    /// Writes a list to `key`: a persisted key's value.
    case setList(key: Int, value: [Int])
    /// Starts an effect whose action starts the next one, `remaining` more times.
    case roundTrip(remaining: Int)
    case startLong(id: Int)
}

/// What the benchmark handler's effects use.
struct BenchDependency: Sendable {
    var roundTripFinished: @Sendable () -> Void = {}
}

let benchHandler = StoreActionHandler<Int, BenchAction, BenchDependency> { state, action, dependency in
    switch action {
    case .write(let key, let value):
        state.set(value: value, forKey: key)
        return .none
    case .writeTwo(let key, let value):
        state.set(value: value, forKey: key)
        state.set(value: value, forKey: key + 1)
        return .none
    case .typedWrite(let key, let value):
        state[TypedKey(key, default: 0)] = value
        return .none
    case .setList(let key, let value):
        state.set(value: value, forKey: key)
        return .none
    case .roundTrip(let remaining):
        guard remaining > 0 else {
            dependency.roundTripFinished()
            return .none
        }
        return ActionEffect { .roundTrip(remaining: remaining - 1) }
    case .startLong(let id):
        return ActionEffect(id: id) {
            try? await Task.sleep(for: .seconds(60))
            return nil
        }
    }
}

/// The scoped store's keys: the parent's `Int` keys under a type of the feature's own.
struct ScopedKey: Hashable, Sendable {
    var raw: Int
}

let scopedKeys: BiDirectionalTransformation<Int?, ScopedKey?> = (
    from: { parentKey in parentKey.map(ScopedKey.init(raw:)) },
    to: { scopedKey in scopedKey?.raw }
)

let scopedHandler = StoreActionHandler<ScopedKey, BenchAction, BenchDependency> { state, action, _ in
    if case .write(let key, let value) = action { state.set(value: value, forKey: ScopedKey(raw: key)) }
    return .none
}

func makeStore(size: Int, dependency: BenchDependency = BenchDependency()) -> Store<Int, BenchAction, BenchDependency> {
    Store(initialValues: intValues(size), actionHandler: benchHandler, dependency: dependency)
}

/// The plain baseline: a dictionary under the same lock the library uses.
final class LockedDictionary: @unchecked Sendable {
    let lock = Lock()
    var values: [Int: Any]

    init(_ values: [Int: Any]) {
        self.values = values
    }
}
